package io.dra4j.testkit.allocator;

import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.NodeSelectors;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.kube.ResourceSlice;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
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

  /** {@code ResourceClaimReservedForMaxSize}. */
  static final int MAX_RESERVED_FOR = 256;

  private static final int CONFLICT_RETRIES = 5;
  private static final Logger LOG = LoggerFactory.getLogger(ClusterAllocator.class);

  private final KubeClient client;
  private final Allocator allocator;
  private final Clock clock;

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
    this.clock = Objects.requireNonNull(clock, "clock");
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
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      ResourceClaim claim = client.get(ResourceClaim.TYPE, namespace, name);
      Snapshot snapshot = read(nodeName);
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
        ResourceClaim stored = write(claim, toWrite, add, steps);
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
    Snapshot snapshot = read(nodeName);
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
      Planned p = plan(found.get(), snapshot, state, me, steps);
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
      extended = plan(existing.get(), snapshot, state, me, steps);
      mappings =
          pod.status()
              .extendedResourceClaimStatus()
              .map(Pod.ExtendedResourceClaimStatus::requestMappings)
              .filter(m -> !m.isEmpty())
              .orElse(wanted.map(ExtendedResourceClaim::requestMappings).orElse(List.of()));
    } else if (wanted.isPresent()) {
      ResourceClaim claim = wanted.get().claim();
      steps.add(new Step("build", ref(claim), describeRequests(claim)));
      extended = plan(claim, snapshot, state, me, steps);
      mappings = wanted.get().requestMappings();
    }
    if (extended != null && extended.failure.isPresent()) {
      return failed(pod, nodeName, extended.failure.get(), steps);
    }

    // 3. Write, in the scheduler's PreBind order.
    List<ResourceClaim> stored = new ArrayList<>();
    for (Planned p : plan) {
      stored.add(apply(p, me, steps));
    }
    Optional<ResourceClaim> extendedStored = Optional.empty();
    if (extended != null) {
      ResourceClaim claim = extended.claim;
      if (claim.metadata().name().isEmpty()) {
        claim = client.create(ResourceClaim.TYPE, claim);
        steps.add(new Step("create", ref(claim), describeRequests(claim)));
        extended = extended.withClaim(claim);
      }
      ResourceClaim written = apply(extended, me, steps);
      stored.add(written);
      extendedStored = Optional.of(written);
      pod = writePodStatus(pod, written.metadata().name(), mappings, steps);
    }
    // 4. PreBind waits for binding conditions (KEP-5007) before the pod is bound.
    for (int i = 0; i < stored.size(); i++) {
      ResourceClaim claim = stored.get(i);
      Optional<String> failure = bindingFailure(claim);
      if (failure.isPresent()) {
        ResourceClaim cleared =
            client.updateStatus(
                ResourceClaim.TYPE,
                // As the scheduler deallocates: allocation, reservations and device status go.
                claim.withStatus(
                    new ResourceClaimStatus(
                        Optional.empty(), List.of(), List.of(), claim.status().unknownFields())));
        steps.add(new Step("updateStatus", ref(cleared), "deallocated: " + failure.get()));
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
    pod = bind(pod, nodeName, steps);
    return new PodDecision(pod, nodeName, true, "", stored, extendedStored, steps);
  }

  // -----------------------------------------------------------------------------------------------

  /** What to do with one claim of the pod. */
  private static final class Planned {
    final ResourceClaim claim;
    final Optional<AllocationResult> allocation;
    final boolean reserve;
    final Optional<String> failure;

    Planned(
        ResourceClaim claim,
        Optional<AllocationResult> allocation,
        boolean reserve,
        Optional<String> failure) {
      this.claim = claim;
      this.allocation = allocation;
      this.reserve = reserve;
      this.failure = failure;
    }

    Planned withClaim(ResourceClaim created) {
      return new Planned(created, allocation, reserve, failure);
    }
  }

  private Planned plan(
      ResourceClaim claim,
      Snapshot snapshot,
      AllocatedState state,
      ResourceClaimConsumerReference me,
      List<Step> steps) {
    Optional<String> unusable = unusable(claim, snapshot.node);
    if (unusable.isPresent()) {
      return new Planned(
          claim,
          Optional.empty(),
          false,
          Optional.of(
              unsatisfiable(claim, snapshot.node.metadata().name(), unusable.get()).describe()));
    }
    boolean reserve = !reserved(claim, me.uid());
    if (reserve && claim.status().reservedFor().size() >= MAX_RESERVED_FOR) {
      return new Planned(
          claim,
          Optional.empty(),
          false,
          Optional.of(ref(claim) + " is already reserved for " + MAX_RESERVED_FOR + " consumers"));
    }
    if (claim.status().allocation().isPresent()) {
      steps.add(
          new Step(
              "found",
              ref(claim),
              "already allocated" + (reserve ? "" : " and reserved for the pod")));
      return new Planned(claim, Optional.empty(), reserve, Optional.empty());
    }
    AllocationOutcome outcome =
        allocator.allocate(snapshot.slices, snapshot.classes, claim, snapshot.node, state);
    steps.add(new Step("allocate", ref(claim), outcome.describe()));
    if (!outcome.isAllocated()) {
      return new Planned(claim, Optional.empty(), false, Optional.of(outcome.describe()));
    }
    return new Planned(claim, Optional.of(outcome.orElseThrow()), true, Optional.empty());
  }

  /** Writes one planned claim, re-reading it after a conflict and applying the same decision. */
  private ResourceClaim apply(Planned p, ResourceClaimConsumerReference me, List<Step> steps)
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
        return write(claim, p.allocation, add, steps);
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
  private ResourceClaim write(
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

  private Pod writePodStatus(
      Pod pod, String claimName, List<Pod.ExtendedResourceRequest> mappings, List<Step> steps)
      throws KubeException {
    Pod.ExtendedResourceClaimStatus status =
        Pod.ExtendedResourceClaimStatus.of(claimName, mappings);
    KubeException lastConflict = null;
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      if (attempt > 0) {
        pod = client.get(Pod.TYPE, pod.metadata().namespace(), pod.metadata().name());
      }
      if (pod.status().extendedResourceClaimStatus().filter(status::equals).isPresent()) {
        return pod;
      }
      try {
        Pod stored =
            client.updateStatus(
                Pod.TYPE, pod.withStatus(pod.status().withExtendedResourceClaimStatus(status)));
        steps.add(
            new Step(
                "updateStatus",
                "Pod " + pod.metadata().namespace() + "/" + pod.metadata().name(),
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
      } catch (KubeException e) {
        if (!e.isConflict()) {
          throw e;
        }
        lastConflict = e;
      }
    }
    throw lastConflict;
  }

  /**
   * Sets {@code spec.nodeName} with an update (kube-scheduler uses the binding subresource, which
   * has the same effect; the test kit's fake server serves plain updates).
   */
  private Pod bind(Pod pod, String nodeName, List<Step> steps) throws KubeException {
    KubeException lastConflict = null;
    for (int attempt = 0; attempt < CONFLICT_RETRIES; attempt++) {
      if (attempt > 0) {
        pod = client.get(Pod.TYPE, pod.metadata().namespace(), pod.metadata().name());
      }
      if (pod.spec().nodeName().equals(nodeName)) {
        return pod;
      }
      try {
        Pod stored = client.update(Pod.TYPE, pod.withSpec(pod.spec().withNodeName(nodeName)));
        steps.add(
            new Step(
                "bind",
                "Pod " + pod.metadata().namespace() + "/" + pod.metadata().name(),
                "spec.nodeName = " + nodeName));
        return stored;
      } catch (KubeException e) {
        if (!e.isConflict()) {
          throw e;
        }
        lastConflict = e;
      }
    }
    throw lastConflict;
  }

  // -----------------------------------------------------------------------------------------------

  /** Everything the scheduler looks at, read once per decision. */
  private static final class Snapshot {
    final List<ResourceSlice> slices;
    final List<DeviceClass> classes;
    final List<ResourceClaim> claims;
    final Node node;

    Snapshot(
        List<ResourceSlice> slices,
        List<DeviceClass> classes,
        List<ResourceClaim> claims,
        Node node) {
      this.slices = slices;
      this.classes = classes;
      this.claims = claims;
      this.node = node;
    }
  }

  private Snapshot read(String nodeName) throws KubeException {
    List<ResourceSlice> slices = client.list(ResourceSlice.TYPE, "", ListOptions.ALL).items();
    List<DeviceClass> classes = client.list(DeviceClass.TYPE, "", ListOptions.ALL).items();
    List<ResourceClaim> claims = client.list(ResourceClaim.TYPE, "", ListOptions.ALL).items();
    Node node;
    try {
      node = client.get(Node.TYPE, "", nodeName);
    } catch (KubeException e) {
      if (!e.isNotFound()) {
        throw e;
      }
      // No Node object (the usual case with the fake server): the name is all there is.
      node = Allocator.node(nodeName);
    }
    return new Snapshot(slices, classes, claims, node);
  }

  /** Why an existing claim cannot be used on the node, if it cannot. */
  private static Optional<String> unusable(ResourceClaim claim, Node node) {
    if (claim.metadata().deletionTimestamp().isPresent()) {
      return Optional.of("the claim is being deleted");
    }
    Optional<AllocationResult> allocation = claim.status().allocation();
    if (allocation.isPresent()
        && allocation.get().nodeSelector().isPresent()
        && !NodeSelectors.matches(node, allocation.get().nodeSelector().get())) {
      return Optional.of(
          "the claim is allocated already, on devices not usable on node \""
              + node.metadata().name()
              + "\"");
    }
    return Optional.empty();
  }

  private static AllocationOutcome.Unsatisfiable unsatisfiable(
      ResourceClaim claim, String node, String reason) {
    return new AllocationOutcome.Unsatisfiable(
        claim.metadata().namespace() + "/" + Search.claimName(claim), node, "", reason);
  }

  private static Optional<String> claimName(Pod pod, Pod.PodResourceClaim prc) {
    if (prc.resourceClaimName().isPresent()) {
      return prc.resourceClaimName();
    }
    for (Pod.ClaimStatus s : pod.status().resourceClaimStatuses()) {
      if (s.name().equals(prc.name())) {
        return Optional.of(s.resourceClaimName().orElse(""));
      }
    }
    return Optional.empty();
  }

  /** The scheduler's claim for the pod: the annotation and the pod as controlling owner. */
  private static Optional<ResourceClaim> extendedResourceClaimOf(
      Pod pod, List<ResourceClaim> claims) {
    for (ResourceClaim c : claims) {
      if (!c.metadata().namespace().equals(pod.metadata().namespace())
          || !"true"
              .equals(c.metadata().annotations().get(ExtendedResourceMapping.CLAIM_ANNOTATION))) {
        continue;
      }
      for (OwnerReference o : c.metadata().ownerReferences()) {
        if (o.controller()
            && o.name().equals(pod.metadata().name())
            && o.uid().equals(pod.metadata().uid())) {
          return Optional.of(c);
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<ResourceClaim> find(
      List<ResourceClaim> claims, String namespace, String name) {
    return claims.stream()
        .filter(c -> c.metadata().namespace().equals(namespace) && c.metadata().name().equals(name))
        .findFirst();
  }

  /** A binding failure condition that is {@code True}, if any. */
  private static Optional<String> bindingFailure(ResourceClaim claim) {
    for (DeviceRequestAllocationResult r : results(claim)) {
      for (String c : r.bindingFailureConditions()) {
        if (conditionTrue(claim, r, c)) {
          return Optional.of(
              "binding failure condition "
                  + c
                  + " of device "
                  + r.pool()
                  + "/"
                  + r.device()
                  + " is True");
        }
      }
    }
    return Optional.empty();
  }

  /** The binding conditions that are not {@code True} yet, if any. */
  private static Optional<String> bindingPending(ResourceClaim claim) {
    List<String> pending = new ArrayList<>();
    for (DeviceRequestAllocationResult r : results(claim)) {
      for (String c : r.bindingConditions()) {
        if (!conditionTrue(claim, r, c)) {
          pending.add(c + " of " + r.pool() + "/" + r.device());
        }
      }
    }
    return pending.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", pending));
  }

  private static List<DeviceRequestAllocationResult> results(ResourceClaim claim) {
    return claim.status().allocation().map(a -> a.devices().results()).orElse(List.of());
  }

  private static boolean conditionTrue(
      ResourceClaim claim, DeviceRequestAllocationResult r, String type) {
    // The first entry of the device, whatever its share ID: how the v1.37.2 scheduler looks it up.
    return claim.status().devices().stream()
        .filter(
            d ->
                d.driver().equals(r.driver())
                    && d.pool().equals(r.pool())
                    && d.device().equals(r.device()))
        .findFirst()
        .map(d -> d.conditions().stream())
        .orElse(java.util.stream.Stream.empty())
        .anyMatch(c -> c.type().equals(type) && c.status().equals("True"));
  }

  private static boolean reserved(ResourceClaim claim, String uid) {
    return claim.status().reservedFor().stream().anyMatch(r -> r.uid().equals(uid));
  }

  private static boolean sameObject(ResourceClaim a, ResourceClaim b) {
    return a.metadata().namespace().equals(b.metadata().namespace())
        && a.metadata().name().equals(b.metadata().name());
  }

  private static ObjectMeta withFinalizers(ResourceClaim claim, List<String> finalizers) {
    ObjectMeta m = claim.metadata();
    return new ObjectMeta(
        m.name(),
        m.generateName(),
        m.namespace(),
        m.uid(),
        m.resourceVersion(),
        m.generation(),
        m.creationTimestamp(),
        m.deletionTimestamp(),
        m.labels(),
        m.annotations(),
        m.ownerReferences(),
        finalizers,
        m.unknownFields());
  }

  private static String ref(ResourceClaim claim) {
    return "ResourceClaim " + claim.metadata().namespace() + "/" + Search.claimName(claim);
  }

  private static String describeRequests(ResourceClaim claim) {
    List<String> parts = new ArrayList<>();
    for (DeviceRequest r : claim.spec().devices().requests()) {
      r.exactly()
          .ifPresent(
              e ->
                  parts.add(
                      r.name() + " (" + e.effectiveCount() + " x " + e.deviceClassName() + ")"));
    }
    return parts.size()
        + (parts.size() == 1 ? " request: " : " requests: ")
        + String.join(", ", parts);
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
