package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.BindingConditions.bindingFailure;
import static io.dra4j.testkit.allocator.BindingConditions.bindingPending;
import static io.dra4j.testkit.allocator.Claims.claimName;
import static io.dra4j.testkit.allocator.Claims.describeRequests;
import static io.dra4j.testkit.allocator.Claims.extendedResourceClaimOf;
import static io.dra4j.testkit.allocator.Claims.find;
import static io.dra4j.testkit.allocator.Claims.ref;
import static io.dra4j.testkit.allocator.Claims.reserved;
import static io.dra4j.testkit.allocator.Claims.sameObject;
import static io.dra4j.testkit.allocator.Claims.unsatisfiable;
import static io.dra4j.testkit.allocator.Claims.unusable;

import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's DRA work against an API server, for tests and the no-cluster demo: reads
 * ResourceSlices, DeviceClasses and claims, allocates with {@link Allocator}, and writes what
 * kube-scheduler writes.
 *
 * <p>Writes, as the scheduler's PreBind does: the finalizer {@value #FINALIZER} with a normal
 * update, then {@code status.allocation} (with {@code allocationTimestamp}, which the scheduler
 * sets whenever the binding-condition gates are on, the default since 1.36) and the pod in {@code
 * status.reservedFor} with one status update guarded by the resourceVersion. A 409 Conflict makes
 * it read the claim again and retry (re-allocating only in {@link #allocateClaim}, where nothing
 * else was decided yet).
 *
 * <p>Binding conditions (KEP-5007) hold the pod back as PreBind does: while a device's binding
 * conditions are not all {@code True} in the claim's {@code status.devices}, {@link #schedulePod}
 * leaves the claims allocated and reserved, does not bind, and says {@value
 * #WAITING_FOR_BINDING}...; a later call binds once they are, and a {@code True} failure condition
 * deallocates the claim instead. The scheduler's timeout (10 minutes after {@code
 * allocationTimestamp}) is not modelled.
 *
 * <p>Not done: claims from ResourceClaimTemplates are not generated (that is the resourceclaim
 * controller's job; a pod whose {@code status.resourceClaimStatuses} names the generated claim
 * works), DeviceTaintRules are not applied, and several claims of a pod are allocated one after the
 * other rather than searched jointly.
 */
public final class ClusterAllocator {

  /** The finalizer built-in controllers put on claims they allocate. */
  public static final String FINALIZER = "resource.kubernetes.io/delete-protection";

  /**
   * How the reason of a pod that waits in PreBind starts: a device's binding conditions are not all
   * {@code True} yet. Its claims stay allocated and reserved; call {@link #schedulePod} again.
   */
  public static final String WAITING_FOR_BINDING = "waiting for binding conditions: ";

  private static final Logger LOG = LoggerFactory.getLogger(ClusterAllocator.class);

  private final KubeClient client;
  private final Allocator allocator;
  private final SchedulerWrites writes;

  /** The scheduler's extended resource names, kept across calls as kube-scheduler keeps them. */
  private final ExtendedResourceCache classCache = new ExtendedResourceCache();

  /** An allocator with default settings and the system clock. */
  public ClusterAllocator(KubeClient client) {
    this(client, new Allocator(), Clock.systemUTC());
  }

  /**
   * @param clock for {@code allocationTimestamp}
   */
  public ClusterAllocator(KubeClient client, Allocator allocator, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
    this.writes = new SchedulerWrites(client, Objects.requireNonNull(clock, "clock"));
  }

  /** {@link #allocateClaim(String, String, String, Optional)} without a consumer. */
  public ClaimDecision allocateClaim(String namespace, String name, String nodeName)
      throws KubeException {
    return allocateClaim(namespace, name, nodeName, Optional.empty());
  }

  /**
   * Allocates the claim on the node (unless it is allocated already) and reserves it for the
   * consumer, if one is given. Devices held by every other allocated claim in the cluster are
   * unavailable.
   *
   * @return the decision, always an allocated one; {@link ClaimDecision#claim()} is the claim as
   *     stored, with its {@code status.allocation}
   * @throws UnsatisfiableClaimException naming the request and what could not be met, when no
   *     devices fit (nothing is written); {@link #tryAllocateClaim} returns that as a decision
   * @throws KubeException when the API server fails, or conflicts persist
   */
  public ClaimDecision allocateClaim(
      String namespace,
      String name,
      String nodeName,
      Optional<ResourceClaimConsumerReference> consumer)
      throws KubeException {
    ClaimDecision decision = tryAllocateClaim(namespace, name, nodeName, consumer);
    if (decision.outcome() instanceof AllocationOutcome.Unsatisfiable unsatisfiable) {
      throw new UnsatisfiableClaimException(unsatisfiable, decision.steps());
    }
    return decision;
  }

  /** {@link #tryAllocateClaim(String, String, String, Optional)} without a consumer. */
  public ClaimDecision tryAllocateClaim(String namespace, String name, String nodeName)
      throws KubeException {
    return tryAllocateClaim(namespace, name, nodeName, Optional.empty());
  }

  /**
   * {@link #allocateClaim(String, String, String, Optional)}, with an unsatisfiable claim as a
   * decision instead of an exception: for tests of what does not fit.
   *
   * @return the decision; for an unsatisfiable claim nothing is written and {@link
   *     ClaimDecision#allocated()} is false
   * @throws KubeException when the API server fails, or conflicts persist
   */
  public ClaimDecision tryAllocateClaim(
      String namespace,
      String name,
      String nodeName,
      Optional<ResourceClaimConsumerReference> consumer)
      throws KubeException {
    List<Step> steps = new ArrayList<>();
    KubeException lastConflict = null;
    for (int attempt = 0; attempt < SchedulerWrites.CONFLICT_RETRIES; attempt++) {
      ResourceClaim claim = client.get(ResourceClaim.TYPE, namespace, name);
      Snapshot snapshot = Snapshot.read(client, nodeName);
      Optional<String> unusable = unusable(claim, snapshot.node);
      if (unusable.isPresent()) {
        return new ClaimDecision(claim, unsatisfiable(claim, nodeName, unusable.get()), steps);
      }
      AllocationOutcome outcome;
      Optional<AllocationResult> toWrite = Optional.empty();
      if (claim.status().allocation().isPresent()) {
        outcome = new AllocationOutcome.Allocated(claim.status().allocation().get());
        steps.add(new Step("found", ref(claim), "already allocated"));
      } else {
        AllocatedState state =
            AllocatedState.fromClaims(
                snapshot.claims.stream()
                    .filter(c -> !sameObject(c, claim))
                    .collect(Collectors.toList()));
        outcome =
            allocator.allocate(snapshot.slices, snapshot.classes, claim, snapshot.node, state);
        steps.add(new Step("allocate", ref(claim), outcome.describe()));
        if (!outcome.isAllocated()) {
          return new ClaimDecision(claim, outcome, steps);
        }
        toWrite = Optional.of(outcome.orElseThrow());
      }
      List<ResourceClaimConsumerReference> add = new ArrayList<>();
      consumer.filter(c -> !reserved(claim, c.uid())).ifPresent(add::add);
      if (toWrite.isEmpty() && add.isEmpty()) {
        return new ClaimDecision(claim, outcome, steps);
      }
      try {
        ResourceClaim stored = writes.claim(claim, toWrite, add, steps);
        return new ClaimDecision(
            stored, new AllocationOutcome.Allocated(stored.status().allocation().get()), steps);
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

  /**
   * Schedules the pod onto the node the way kube-scheduler's DRA plugin does: allocates the pod's
   * claims that are not allocated yet (and checks that allocated ones are usable on the node),
   * builds the claim for DRA-backed extended resources (KEP-5004) and allocates it, then writes:
   * claim finalizers and statuses (allocation, reservedFor), the created extended-resource claim,
   * {@code pod.status.extendedResourceClaimStatus}, and finally {@code spec.nodeName}.
   *
   * <p>Nothing is written unless every claim can be allocated. Extended resources the node offers
   * through a device plugin (non-zero {@code status.allocatable} on its Node object) are left to
   * the device plugin (how many of them other pods use is not counted). A name that neither a
   * DeviceClass maps (in the scheduler's own cache of names, kept across calls: {@link
   * ExtendedResourceCache}) nor the node makes allocatable fails the pod with {@code Insufficient
   * <name>}, as the scheduler's NodeResourcesFit says. A pod that already has its extended-resource
   * claim (created earlier) keeps it.
   *
   * @throws KubeException when the API server fails, or conflicts persist
   */
  public PodDecision schedulePod(String namespace, String podName, String nodeName)
      throws KubeException {
    List<Step> steps = new ArrayList<>();
    Pod pod = client.get(Pod.TYPE, namespace, podName);
    String podRef = "Pod " + namespace + "/" + podName;
    if (!pod.spec().nodeName().isEmpty() && !pod.spec().nodeName().equals(nodeName)) {
      return failed(
          pod,
          nodeName,
          "the pod is already bound to node \"" + pod.spec().nodeName() + "\"",
          steps);
    }
    Snapshot snapshot = Snapshot.read(client, nodeName);
    AllocatedState state = AllocatedState.fromClaims(snapshot.claims);
    ResourceClaimConsumerReference me =
        ResourceClaimConsumerReference.pod(pod.metadata().name(), pod.metadata().uid());

    // 1. The claims the pod references.
    List<Planned> plan = new ArrayList<>();
    for (Pod.PodResourceClaim prc : pod.spec().resourceClaims()) {
      Optional<String> claimName = claimName(pod, prc);
      if (claimName.isEmpty()) {
        return failed(
            pod,
            nodeName,
            "pod claim \""
                + prc.name()
                + "\" comes from ResourceClaimTemplate \""
                + prc.resourceClaimTemplateName().orElse("")
                + "\" and pod.status.resourceClaimStatuses names no generated claim yet"
                + " (generating claims is the resourceclaim controller's job)",
            steps);
      }
      if (claimName.get().isEmpty()) {
        steps.add(new Step("skip", podRef, "pod claim \"" + prc.name() + "\" needs no claim"));
        continue;
      }
      Optional<ResourceClaim> found = find(snapshot.claims, namespace, claimName.get());
      if (found.isEmpty()) {
        return failed(
            pod,
            nodeName,
            "pod claim \""
                + prc.name()
                + "\": ResourceClaim "
                + namespace
                + "/"
                + claimName.get()
                + " does not exist",
            steps);
      }
      Planned p = Planned.of(allocator, found.get(), snapshot, state, me, steps);
      if (p.failure.isPresent()) {
        return failed(pod, nodeName, p.failure.get(), steps);
      }
      if (p.allocation.isPresent()) {
        state = state.plus(p.allocation.get());
      }
      plan.add(p);
    }

    // 2. DRA-backed extended resources.
    ExtendedResourceMapping mapping = ExtendedResourceMapping.of(snapshot.classes, classCache);
    Set<String> devicePlugin = new TreeSet<>();
    snapshot
        .node
        .status()
        .allocatable()
        .forEach(
            (resource, amount) -> {
              if (amount.signum() > 0) {
                devicePlugin.add(resource);
              }
            });
    Optional<String> unfit = mapping.unservedName(pod, devicePlugin);
    if (unfit.isPresent()) {
      return failed(pod, nodeName, "Insufficient " + unfit.get(), steps);
    }
    Optional<ExtendedResourceClaim> wanted = mapping.claimFor(pod, devicePlugin);
    Optional<ResourceClaim> existing = extendedResourceClaimOf(pod, snapshot.claims);
    Planned extended = null;
    List<Pod.ExtendedResourceRequest> mappings = List.of();
    if (existing.isPresent()) {
      steps.add(new Step("found", ref(existing.get()), "the pod's extended-resource claim"));
      extended = Planned.of(allocator, existing.get(), snapshot, state, me, steps);
      mappings =
          pod.status()
              .extendedResourceClaimStatus()
              .map(Pod.ExtendedResourceClaimStatus::requestMappings)
              .filter(m -> !m.isEmpty())
              .orElse(wanted.map(ExtendedResourceClaim::requestMappings).orElse(List.of()));
    } else if (wanted.isPresent()) {
      ResourceClaim claim = wanted.get().claim();
      steps.add(new Step("build", ref(claim), describeRequests(claim)));
      extended = Planned.of(allocator, claim, snapshot, state, me, steps);
      mappings = wanted.get().requestMappings();
    }
    if (extended != null && extended.failure.isPresent()) {
      return failed(pod, nodeName, extended.failure.get(), steps);
    }

    // 3. Write, in the scheduler's PreBind order.
    List<ResourceClaim> stored = new ArrayList<>();
    for (Planned p : plan) {
      stored.add(writes.planned(p, me, steps));
    }
    Optional<ResourceClaim> extendedStored = Optional.empty();
    if (extended != null) {
      if (extended.claim.metadata().name().isEmpty()) {
        extended = extended.withClaim(writes.create(extended.claim, steps));
      }
      ResourceClaim written = writes.planned(extended, me, steps);
      stored.add(written);
      extendedStored = Optional.of(written);
      pod = writes.podStatus(pod, written.metadata().name(), mappings, steps);
    }
    // 4. PreBind waits for binding conditions (KEP-5007) before the pod is bound.
    for (int i = 0; i < stored.size(); i++) {
      ResourceClaim claim = stored.get(i);
      Optional<String> failure = bindingFailure(claim);
      if (failure.isPresent()) {
        writes.deallocate(claim, failure.get(), steps);
        return failed(
            pod, nodeName, failure.get() + "; the claim was deallocated, schedule again", steps);
      }
      Optional<String> waiting = bindingPending(claim);
      if (waiting.isPresent()) {
        String reason = WAITING_FOR_BINDING + waiting.get();
        steps.add(new Step("wait", ref(claim), reason));
        return new PodDecision(pod, nodeName, false, reason, stored, extendedStored, steps);
      }
    }
    pod = writes.bind(pod, nodeName, steps);
    return new PodDecision(pod, nodeName, true, "", stored, extendedStored, steps);
  }

  private static PodDecision failed(Pod pod, String node, String reason, List<Step> steps) {
    steps.add(
        new Step(
            "unschedulable",
            "Pod " + pod.metadata().namespace() + "/" + pod.metadata().name(),
            reason));
    LOG.debug(
        "pod {}/{} not schedulable on {}: {}",
        pod.metadata().namespace(),
        pod.metadata().name(),
        node,
        reason);
    return new PodDecision(pod, node, false, reason, List.of(), Optional.empty(), steps);
  }
}
