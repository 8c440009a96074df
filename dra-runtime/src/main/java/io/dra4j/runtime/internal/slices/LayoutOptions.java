package io.dra4j.runtime.internal.slices;

import java.util.Objects;
import java.util.Optional;

/**
 * What {@link SliceLayout} needs besides the pool.
 *
 * @param nodeName the node a node-local pool ({@code PoolScope.node()}) is published for; required
 *     for such pools, ignored otherwise
 * @param dynamicTaints whether any device may gain or lose taints at run time (health-to-taint):
 *     then every slice is kept at the 64-device limit, so that a taint appearing or clearing
 *     changes exactly one slice instead of splitting or merging slices
 */
public record LayoutOptions(Optional<String> nodeName, boolean dynamicTaints) {
  public LayoutOptions {
    Objects.requireNonNull(nodeName, "nodeName");
  }

  /** Options for pools of a driver running on the node {@code nodeName}. */
  public static LayoutOptions node(String nodeName) {
    return new LayoutOptions(Optional.of(nodeName), false);
  }

  /** Options for a driver without a node (network-attached devices, cluster-wide pools). */
  public static LayoutOptions clusterWide() {
    return new LayoutOptions(Optional.empty(), false);
  }

  /** The same options with {@code dynamicTaints} set. */
  public LayoutOptions withDynamicTaints(boolean value) {
    return new LayoutOptions(nodeName, value);
  }
}
