package io.dra4j.kube;

import io.dra4j.api.device.NodeSelector;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a ResourceSlice, a device or an allocation is usable on a node: node name, all nodes, or
 * a core/v1 node selector. One rule for the test kit's allocator and the migration doctor.
 */
public final class NodeSelectors {
  private NodeSelectors() {}

  /** The scheduler's rule: a node name wins over allNodes, which wins over a selector. */
  public static boolean matches(
      Node node, Optional<String> nodeName, boolean allNodes, Optional<NodeSelector> selector) {
    if (nodeName.isPresent() && !nodeName.get().isEmpty()) {
      return nodeName.get().equals(node.metadata().name());
    }
    if (allNodes) {
      return true;
    }
    return selector.isPresent() && matches(node, selector.get());
  }

  /** The terms are ORed; the requirements of a term are ANDed; an empty term matches nothing. */
  public static boolean matches(Node node, NodeSelector selector) {
    for (NodeSelector.Term term : selector.nodeSelectorTerms()) {
      if (term.matchExpressions().isEmpty() && term.matchFields().isEmpty()) {
        continue;
      }
      boolean all = true;
      for (NodeSelector.Requirement r : term.matchExpressions()) {
        all &= requirement(r, node.metadata().labels());
      }
      for (NodeSelector.Requirement r : term.matchFields()) {
        // Kubernetes supports exactly one field here.
        all &=
            "metadata.name".equals(r.key())
                && requirement(r, Map.of("metadata.name", node.metadata().name()));
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  private static boolean requirement(NodeSelector.Requirement r, Map<String, String> labels) {
    String value = labels.get(r.key());
    switch (r.operator()) {
      case "In":
        return value != null && r.values().contains(value);
      case "NotIn":
        return value == null || !r.values().contains(value);
      case "Exists":
        return value != null;
      case "DoesNotExist":
        return value == null;
      case "Gt":
      case "Lt":
        if (value == null || r.values().size() != 1) {
          return false;
        }
        try {
          long have = Long.parseLong(value);
          long want = Long.parseLong(r.values().get(0));
          return "Gt".equals(r.operator()) ? have > want : have < want;
        } catch (NumberFormatException e) {
          return false;
        }
      default:
        // Unknown operators select nothing, like an invalid selector in Kubernetes.
        return false;
    }
  }
}
