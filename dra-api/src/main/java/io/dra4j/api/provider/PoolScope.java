package io.dra4j.api.provider;

import io.dra4j.api.device.NodeSelector;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the devices of a pool can be used: exactly one of the ResourceSlice node-selection forms.
 *
 * @param kind the form
 * @param nodeSelector set for {@link Kind#NODE_SELECTOR}
 */
public record PoolScope(Kind kind, Optional<NodeSelector> nodeSelector) {

  /** The node-selection forms of a ResourceSlice. */
  public enum Kind {
    /** {@code spec.nodeName} = this node: the usual node-local pool. */
    NODE,
    /** {@code spec.allNodes}: usable from every node (network-attached devices). */
    ALL_NODES,
    /** {@code spec.nodeSelector} with one term. */
    NODE_SELECTOR,
    /** {@code spec.perDeviceNodeSelection}: each device says where it can be used. */
    PER_DEVICE
  }

  public PoolScope {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(nodeSelector, "nodeSelector");
    if ((kind == Kind.NODE_SELECTOR) != nodeSelector.isPresent()) {
      throw new IllegalArgumentException(
          "a node selector is required for NODE_SELECTOR, and only for it");
    }
  }

  public static PoolScope node() {
    return new PoolScope(Kind.NODE, Optional.empty());
  }

  public static PoolScope allNodes() {
    return new PoolScope(Kind.ALL_NODES, Optional.empty());
  }

  public static PoolScope nodeSelector(NodeSelector selector) {
    return new PoolScope(Kind.NODE_SELECTOR, Optional.of(selector));
  }

  public static PoolScope perDevice() {
    return new PoolScope(Kind.PER_DEVICE, Optional.empty());
  }
}
