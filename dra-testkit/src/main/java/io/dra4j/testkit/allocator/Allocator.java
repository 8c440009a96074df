package io.dra4j.testkit.allocator;

import io.dra4j.cel.CelSelectors;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Allocates devices to a ResourceClaim the way kube-scheduler does, without a cluster: pure,
 * deterministic (apart from share IDs) and thread-safe.
 *
 * <p>What it implements, following resource-api-v1.md §1–§4 and the scheduler's structured
 * allocator:
 *
 * <ul>
 *   <li>Pools: only slices usable on the node (node name, all nodes, node selector on the node's
 *       name and labels, per-device node selection); only the newest generation; only complete
 *       pools (as many slices as {@code resourceSliceCount}); pools with duplicate device names or
 *       dangling counter references are ignored. Order: driver, pool name, slice name, device.
 *   <li>Selection: the class's and the request's CEL selectors, evaluated lazily in device order
 *       after the in-use check (a selector that fails to evaluate for a device the search reaches
 *       makes the whole claim unsatisfiable with that error, as the scheduler's allocator returns
 *       it; devices never reached do not matter), ExactCount (default count 1) and All,
 *       firstAvailable subrequests in order (results name {@code request/subrequest}), admin access
 *       (ignores other claims), taints ({@code NoSchedule} and {@code NoExecute} block unless
 *       tolerated; {@code None} does not), devices in use by other claims skipped unless they allow
 *       multiple allocations.
 *   <li>Consumable capacity: a share ID per allocation of a multi-allocatable device, consumed
 *       capacity rounded by the device's request policy, remaining capacity checked.
 *   <li>Partitionable devices: a device drawing counters fits only while its pool's counter sets
 *       cover it together with every other allocated device of the pool, and while its
 *       compatibility groups (KEP-5963) have one in common with every device on the same counter
 *       set (devices without groups only go with devices without groups). The groups of devices
 *       other claims hold are read from the slices, as the scheduler does. The gate is taken as on:
 *       a scheduler with {@code DRADeviceCompatibilityGroups} off ignores slices with groups and so
 *       the pool, which this allocator does not imitate.
 *   <li>Constraints: matchAttribute (scalar, or non-empty intersection of list values) and
 *       distinctAttribute; the search backtracks to find a combination, first found wins.
 *   <li>Result: results in request order, tolerations and binding (failure) conditions copied,
 *       class configs then claim configs, and the node selector for node-local devices.
 * </ul>
 *
 * <p>A claim is allocated on its own; to allocate several claims of one pod, feed each allocation
 * into the {@link AllocatedState} of the next ({@link ClusterAllocator} does that).
 */
public final class Allocator {

  /** Placement attempts after which a search gives up (an unsatisfiable constraint can explode). */
  public static final long DEFAULT_SEARCH_BUDGET = 1_000_000;

  /** The CEL compiler and its cache, shared with every other user in the JVM. */
  private final CelSelectors selectors = CelSelectors.shared();

  private final Supplier<String> shareIds;
  private final long budget;

  /** An allocator with the shared CEL cache and random share IDs. */
  public Allocator() {
    this(() -> UUID.randomUUID().toString(), DEFAULT_SEARCH_BUDGET);
  }

  /**
   * An allocator with its own share-ID source (tests use a predictable one) and search budget.
   *
   * @param shareIds called once per allocation of a device that allows multiple allocations; must
   *     return lower-case RFC 4122 UUIDs
   * @param searchBudget placement attempts after which a search gives up, at least 1
   */
  public Allocator(Supplier<String> shareIds, long searchBudget) {
    this.shareIds = Objects.requireNonNull(shareIds, "shareIds");
    if (searchBudget < 1) {
      throw new IllegalArgumentException("searchBudget must be at least 1: " + searchBudget);
    }
    this.budget = searchBudget;
  }

  /**
   * Allocates the claim on the node, skipping the devices other claims hold exclusively.
   *
   * @param slices every ResourceSlice the allocator may consider (all nodes; it filters)
   * @param classes every DeviceClass
   * @param claim the claim; its status is ignored
   * @param nodeName the node (node selectors then only see its name, no labels)
   * @param inUse devices allocated exclusively to other claims
   */
  public AllocationOutcome allocate(
      List<ResourceSlice> slices,
      List<DeviceClass> classes,
      ResourceClaim claim,
      String nodeName,
      Set<DeviceKey> inUse) {
    return allocate(slices, classes, claim, node(nodeName), AllocatedState.of(inUse));
  }

  /**
   * Allocates the claim on the node given what other claims hold.
   *
   * @param node the node, with the labels that slice node selectors may test
   * @param state what other claims hold, e.g. {@link AllocatedState#fromClaims}
   */
  public AllocationOutcome allocate(
      List<ResourceSlice> slices,
      List<DeviceClass> classes,
      ResourceClaim claim,
      Node node,
      AllocatedState state) {
    Objects.requireNonNull(slices, "slices");
    Objects.requireNonNull(classes, "classes");
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(state, "state");
    return new Search(selectors, shareIds, budget, slices, classes, claim, node, state).run();
  }

  /** A Node object with only a name, for callers that have no Node. */
  public static Node node(String name) {
    Objects.requireNonNull(name, "node name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("node name must not be empty");
    }
    return Node.of(ObjectMeta.named("", name), null);
  }
}
