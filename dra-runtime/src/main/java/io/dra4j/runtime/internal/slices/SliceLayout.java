package io.dra4j.runtime.internal.slices;

import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.SkipNodeOperation;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.validation.Limits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Splits a valid pool into the ordered ResourceSlice specs the publisher writes. Pure: the same
 * pool and options always give the same specs. The specs carry {@code pool.generation = 0} and the
 * final {@code pool.resourceSliceCount}; names and generations are the publisher's business.
 *
 * <h2>Algorithm</h2>
 *
 * <ol>
 *   <li><b>Counter sets first.</b> Since Kubernetes 1.35 a slice holds devices or counter sets, not
 *       both, and at most 8 sets. The pool's counter sets, in the provider's order, fill slices of
 *       8. They come before the device slices so that their indices do not depend on the number of
 *       devices, which changes more often (hot-plug, MIG reconfiguration).
 *   <li><b>Devices in 64-device blocks.</b> The devices, in the provider's order (the scheduler's
 *       preference: it walks slices by name, i.e. by index, and devices in order), are cut into
 *       fixed blocks of 64: block {@code b} holds devices {@code [64b, 64b + 64)}.
 *   <li><b>Pairs of blocks.</b> Blocks {@code 2p} and {@code 2p + 1} form one slice of up to 128
 *       devices when no device of either block uses taints, counters or list attributes ({@link
 *       Device#usesAdvancedFeatures()}); otherwise each block is a slice of its own (at most 64,
 *       the API limit for such slices). With {@link LayoutOptions#dynamicTaints()} blocks are never
 *       paired.
 *   <li>A pool with neither devices nor counter sets is one empty slice: "an empty pool" is
 *       different from "no pool" (it shows the driver is running and has nothing to offer).
 * </ol>
 *
 * <h2>Why the limit is decided per pair of fixed blocks</h2>
 *
 * A per-pool limit (64 for every slice as soon as one device is tainted) halves the slice size of
 * the whole pool when a single device turns unhealthy and moves every device to another slice. A
 * greedy per-slice limit packs best but moves slice boundaries: one device gaining a taint in the
 * first slice shifts every later device. Fixed 64-device blocks keep both good properties: plain
 * pools pack to 128 per slice (1,000 devices make 8 slices, like a dense layout), and a device
 * becoming "advanced" only splits its own pair; no device ever changes block. Drivers whose devices
 * are tainted at run time (health) set {@code dynamicTaints} and never pair, so a taint change is a
 * one-slice update without a generation bump (KEP-5055 recommends exactly that grouping).
 *
 * <h2>Stability (what a small change does to the output)</h2>
 *
 * <ul>
 *   <li>A device changes without changing {@code usesAdvancedFeatures()}: exactly one slice differs
 *       (the one holding it).
 *   <li>A device starts or stops using advanced features: with {@code dynamicTaints} exactly one
 *       slice differs; otherwise its pair splits into two slices or merges into one, every other
 *       slice keeps its devices, and the slices after it move by one index.
 *   <li>A device is appended: only the last slice changes, or one new slice appears at the end, or
 *       (when the new device is the first "advanced" one of a paired last slice that reaches past
 *       64 devices) the last slice splits in two.
 *   <li>A device is removed (or inserted) at position {@code i}: the slices from the one holding
 *       {@code i} to the end change, earlier slices do not. Keeping the provider's order dense is
 *       what the scheduler needs; a hole-preserving layout would need the previous layout as input.
 *   <li>Counter-set changes touch only the counter-set slices, unless their number of slices
 *       changes, which shifts the device slices' indices.
 * </ul>
 *
 * Any change in the number of slices changes {@code resourceSliceCount} and hence makes the
 * publisher rewrite every slice of the pool; the properties above are about content.
 */
public final class SliceLayout {
  private SliceLayout() {}

  static final int BLOCK = Limits.MAX_DEVICES_PER_SLICE_WITH_ADVANCED_FEATURES;

  /**
   * The desired slices of {@code pool}, in publishing order.
   *
   * @param driver the driver name ({@code spec.driver})
   * @param pool a pool that passed {@link io.dra4j.validation.PoolValidator}
   * @param options the node name for node-local pools, and the taint policy
   * @throws IllegalArgumentException if the pool is node-local and no node name is given
   */
  public static List<ResourceSliceSpec> layout(String driver, Pool pool, LayoutOptions options) {
    List<List<CounterSet>> counterSlices =
        chunks(pool.counterSets(), Limits.MAX_COUNTER_SETS_PER_SLICE);
    List<List<Device>> deviceSlices = deviceSlices(pool.devices(), options.dynamicTaints());
    int count = counterSlices.size() + deviceSlices.size();
    if (count == 0) {
      count = 1;
    }
    ResourceSliceSpec.ResourcePool resourcePool =
        new ResourceSliceSpec.ResourcePool(pool.name(), 0, count);
    Scope scope = scope(pool, options);
    List<ResourceSliceSpec> specs = new ArrayList<>(count);
    for (List<CounterSet> sets : counterSlices) {
      specs.add(spec(driver, resourcePool, scope, pool, List.of(), sets));
    }
    for (List<Device> devices : deviceSlices) {
      specs.add(spec(driver, resourcePool, scope, pool, devices, List.of()));
    }
    if (specs.isEmpty()) {
      specs.add(spec(driver, resourcePool, scope, pool, List.of(), List.of()));
    }
    return List.copyOf(specs);
  }

  /** Device lists per slice, following the block-pair rule of the class comment. */
  static List<List<Device>> deviceSlices(List<Device> devices, boolean dynamicTaints) {
    List<List<Device>> blocks = chunks(devices, BLOCK);
    List<List<Device>> slices = new ArrayList<>();
    for (int b = 0; b < blocks.size(); b += 2) {
      List<Device> first = blocks.get(b);
      if (b + 1 == blocks.size()) {
        slices.add(first);
        continue;
      }
      List<Device> second = blocks.get(b + 1);
      if (dynamicTaints || anyAdvanced(first) || anyAdvanced(second)) {
        slices.add(first);
        slices.add(second);
      } else {
        List<Device> pair = new ArrayList<>(first.size() + second.size());
        pair.addAll(first);
        pair.addAll(second);
        slices.add(List.copyOf(pair));
      }
    }
    return slices;
  }

  private static boolean anyAdvanced(List<Device> devices) {
    return devices.stream().anyMatch(Device::usesAdvancedFeatures);
  }

  private static <T> List<List<T>> chunks(List<T> items, int size) {
    List<List<T>> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i += size) {
      out.add(List.copyOf(items.subList(i, Math.min(items.size(), i + size))));
    }
    return out;
  }

  private record Scope(
      Optional<String> nodeName,
      Optional<NodeSelector> nodeSelector,
      boolean allNodes,
      boolean perDevice) {}

  private static Scope scope(Pool pool, LayoutOptions options) {
    return switch (pool.scope().kind()) {
      case NODE ->
          new Scope(
              Optional.of(
                  options
                      .nodeName()
                      .filter(n -> !n.isEmpty())
                      .orElseThrow(
                          () ->
                              new IllegalArgumentException(
                                  "pool \""
                                      + pool.name()
                                      + "\" is node-local (PoolScope.node()) but the layout"
                                      + " options name no node"))),
              Optional.empty(),
              false,
              false);
      case ALL_NODES -> new Scope(Optional.empty(), Optional.empty(), true, false);
      case NODE_SELECTOR -> new Scope(Optional.empty(), pool.scope().nodeSelector(), false, false);
      case PER_DEVICE -> new Scope(Optional.empty(), Optional.empty(), false, true);
    };
  }

  /**
   * One slice. The pool's {@code skipNodeOperations} go on every slice (the scheduler copies them
   * from the device's slice into the allocation); its {@code partitionTypeAttribute} only on slices
   * holding a device that consumes counters, the only slices the API server allows it on
   * (k8s.io/kubernetes v1.37.2 pkg/apis/resource/validation/validation.go:897-904,
   * validatePartitionTypeAttribute).
   */
  private static ResourceSliceSpec spec(
      String driver,
      ResourceSliceSpec.ResourcePool resourcePool,
      Scope scope,
      Pool pool,
      List<Device> devices,
      List<CounterSet> counterSets) {
    boolean consumers = devices.stream().anyMatch(d -> !d.consumesCounters().isEmpty());
    return new ResourceSliceSpec(
        driver,
        resourcePool,
        scope.nodeName(),
        scope.nodeSelector(),
        scope.allNodes(),
        scope.perDevice(),
        devices,
        counterSets,
        consumers ? pool.partitionTypeAttribute() : Optional.empty(),
        pool.skipNodeOperations().stream().map(SkipNodeOperation::apiName).toList(),
        Map.of());
  }
}
