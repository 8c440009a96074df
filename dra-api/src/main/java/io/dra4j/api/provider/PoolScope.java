package io.dra4j.api.provider;

import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.feature.FeatureGate;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the devices of a pool can be used: exactly one of the ResourceSlice node-selection forms.
 */
public final class PoolScope {

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

  private static final PoolScope NODE = new PoolScope(Kind.NODE, Optional.empty());
  private static final PoolScope ALL_NODES = new PoolScope(Kind.ALL_NODES, Optional.empty());
  private static final PoolScope PER_DEVICE = new PoolScope(Kind.PER_DEVICE, Optional.empty());

  private final Kind kind;
  private final Optional<NodeSelector> nodeSelector;

  private PoolScope(Kind kind, Optional<NodeSelector> nodeSelector) {
    this.kind = kind;
    this.nodeSelector = nodeSelector;
  }

  public static PoolScope node() {
    return NODE;
  }

  public static PoolScope allNodes() {
    return ALL_NODES;
  }

  public static PoolScope nodeSelector(NodeSelector selector) {
    return new PoolScope(Kind.NODE_SELECTOR, Optional.of(selector));
  }

  @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
  public static PoolScope perDevice() {
    return PER_DEVICE;
  }

  /** The form. */
  public Kind kind() {
    return kind;
  }

  /** Set for {@link Kind#NODE_SELECTOR}. */
  public Optional<NodeSelector> nodeSelector() {
    return nodeSelector;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PoolScope s && kind == s.kind && nodeSelector.equals(s.nodeSelector);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, nodeSelector);
  }

  @Override
  public String toString() {
    return "PoolScope[kind=" + kind + ", nodeSelector=" + nodeSelector + "]";
  }
}
