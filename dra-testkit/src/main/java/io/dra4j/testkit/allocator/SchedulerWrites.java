package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Claims.describeRequests;
import static io.dra4j.testkit.allocator.Claims.ref;
import static io.dra4j.testkit.allocator.Claims.reserved;
import static io.dra4j.testkit.allocator.Claims.withFinalizers;
import static io.dra4j.testkit.allocator.ClusterAllocator.FINALIZER;

import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import io.dra4j.kube.ResourceClaimStatus;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What kube-scheduler writes for a decision, each write retried after a 409 Conflict on the object
 * read again: the claim's finalizer, allocation and reservations, the pod's extended-resource claim
 * status, and the binding of the pod.
 */
final class SchedulerWrites {
  static final int CONFLICT_RETRIES = 5;
  private static final Logger LOG = LoggerFactory.getLogger(ClusterAllocator.class);

  private final KubeClient client;
  private final Clock clock;

  SchedulerWrites(KubeClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Writes one planned claim, re-reading it after a conflict and applying the same decision. */
  ResourceClaim planned(Planned p, ResourceClaimConsumerReference me, List<Step> steps)
      throws KubeException {
    ResourceClaim claim = p.claim;
    KubeException lastConflict = null;
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      if (attempt > 0) {
        claim =
            client.get(ResourceClaim.TYPE, claim.metadata().namespace(), claim.metadata().name());
        if (p.allocation.isPresent() && claim.status().allocation().isPresent()) {
          throw new KubeException(
              409, "Conflict", ref(claim) + " got allocated elsewhere in the meantime");
        }
      }
      List<ResourceClaimConsumerReference> add =
          p.reserve && !reserved(claim, me.uid()) ? List.of(me) : List.of();
      if (p.allocation.isEmpty() && add.isEmpty()) {
        return claim;
      }
      try {
        return claim(claim, p.allocation, add, steps);
      } catch (KubeException e) {
        if (!e.isConflict()) {
          throw e;
        }
        lastConflict = e;
        steps.add(new Step("conflict", ref(claim), e.getMessage() + "; reading it again"));
      }
    }
    throw lastConflict;
  }

  /** Finalizer (normal update) then allocation and reservations (status update). */
  ResourceClaim claim(
      ResourceClaim claim,
      Optional<AllocationResult> allocation,
      List<ResourceClaimConsumerReference> consumers,
      List<Step> steps)
      throws KubeException {
    if (allocation.isPresent() && !claim.metadata().finalizers().contains(FINALIZER)) {
      List<String> finalizers = new ArrayList<>(claim.metadata().finalizers());
      finalizers.add(FINALIZER);
      claim =
          client.update(ResourceClaim.TYPE, claim.withMetadata(withFinalizers(claim, finalizers)));
      steps.add(new Step("update", ref(claim), "add finalizer " + FINALIZER));
    }
    var status = claim.status();
    List<String> what = new ArrayList<>();
    if (allocation.isPresent()) {
      AllocationResult a = allocation.get();
      String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
      a = new AllocationResult(a.devices(), a.nodeSelector(), Optional.of(now), a.unknownFields());
      status = status.withAllocation(a);
      what.add("status.allocation (" + new AllocationOutcome.Allocated(a).describe() + ")");
    }
    if (!consumers.isEmpty()) {
      List<ResourceClaimConsumerReference> reservedFor = new ArrayList<>(status.reservedFor());
      reservedFor.addAll(consumers);
      status = status.withReservedFor(reservedFor);
      what.add(
          "status.reservedFor += "
              + consumers.stream()
                  .map(c -> c.resource() + "/" + c.name())
                  .collect(Collectors.joining(", ")));
    }
    ResourceClaim stored = client.updateStatus(ResourceClaim.TYPE, claim.withStatus(status));
    steps.add(new Step("updateStatus", ref(stored), String.join("; ", what)));
    LOG.debug("{}: {}", ref(stored), what);
    return stored;
  }

  /** Creates the claim built for the pod's extended resources. */
  ResourceClaim create(ResourceClaim claim, List<Step> steps) throws KubeException {
    ResourceClaim created = client.create(ResourceClaim.TYPE, claim);
    steps.add(new Step("create", ref(created), describeRequests(created)));
    return created;
  }

  /** Deallocates the claim after a binding failure. */
  void deallocate(ResourceClaim claim, String failure, List<Step> steps) throws KubeException {
    ResourceClaim cleared =
        client.updateStatus(
            ResourceClaim.TYPE,
            // As the scheduler deallocates: allocation, reservations and device status go.
            claim.withStatus(
                new ResourceClaimStatus(
                    Optional.empty(), List.of(), List.of(), claim.status().unknownFields())));
    steps.add(new Step("updateStatus", ref(cleared), "deallocated: " + failure));
  }

  Pod podStatus(
      Pod pod, String claimName, List<Pod.ExtendedResourceRequest> mappings, List<Step> steps)
      throws KubeException {
    Pod.ExtendedResourceClaimStatus status =
        Pod.ExtendedResourceClaimStatus.of(claimName, mappings);
    return writePod(
        pod,
        p -> p.status().extendedResourceClaimStatus().filter(status::equals).isPresent(),
        p -> {
          Pod stored =
              client.updateStatus(
                  Pod.TYPE, p.withStatus(p.status().withExtendedResourceClaimStatus(status)));
          steps.add(
              new Step(
                  "updateStatus",
                  "Pod " + p.metadata().namespace() + "/" + p.metadata().name(),
                  "status.extendedResourceClaimStatus: claim "
                      + claimName
                      + ", "
                      + mappings.stream()
                          .map(
                              m ->
                                  m.containerName()
                                      + "/"
                                      + m.resourceName()
                                      + " -> "
                                      + m.requestName())
                          .collect(Collectors.joining(", "))));
          return stored;
        });
  }

  /**
   * Sets {@code spec.nodeName} with an update (kube-scheduler uses the binding subresource, which
   * has the same effect; the test kit's fake server serves plain updates).
   */
  Pod bind(Pod pod, String nodeName, List<Step> steps) throws KubeException {
    return writePod(
        pod,
        p -> p.spec().nodeName().equals(nodeName),
        p -> {
          Pod stored = client.update(Pod.TYPE, p.withSpec(p.spec().withNodeName(nodeName)));
          steps.add(
              new Step(
                  "bind",
                  "Pod " + p.metadata().namespace() + "/" + p.metadata().name(),
                  "spec.nodeName = " + nodeName));
          return stored;
        });
  }

  /** One write of a pod. */
  private interface PodWrite {
    Pod write(Pod pod) throws KubeException;
  }

  /** Writes the pod unless it is {@code done} already, reading it again after a conflict. */
  private Pod writePod(Pod pod, Predicate<Pod> done, PodWrite write) throws KubeException {
    KubeException lastConflict = null;
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      if (attempt > 0) {
        pod = client.get(Pod.TYPE, pod.metadata().namespace(), pod.metadata().name());
      }
      if (done.test(pod)) {
        return pod;
      }
      try {
        return write.write(pod);
      } catch (KubeException e) {
        if (!e.isConflict()) {
          throw e;
        }
        lastConflict = e;
      }
    }
    throw lastConflict;
  }
}
