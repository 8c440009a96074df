package io.dra4j.testkit.allocator;

import io.dra4j.api.device.NodeSelector;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceClaimConfiguration;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.Node;
import io.dra4j.kube.ResourceClaim;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A complete placement written as the allocation result kube-scheduler stores: the devices in the
 * order they were placed, the configs that apply, and the node selector.
 */
final class Solution {
  private final List<Placements.Placed> order;
  private final List<Wanted.Group> groups;
  private final Map<String, DeviceClass> classes;
  private final ResourceClaim claim;
  private final Node node;
  private final Supplier<String> shareIds;

  Solution(
      List<Placements.Placed> order,
      List<Wanted.Group> groups,
      Map<String, DeviceClass> classes,
      ResourceClaim claim,
      Node node,
      Supplier<String> shareIds) {
    this.order = order;
    this.groups = groups;
    this.classes = classes;
    this.claim = claim;
    this.node = node;
    this.shareIds = shareIds;
  }

  AllocationResult result() {
    List<DeviceRequestAllocationResult> results = new ArrayList<>();
    for (Placements.Placed p : order) {
      Candidate c = p.candidate();
      Wanted w = p.wanted();
      results.add(
          new DeviceRequestAllocationResult(
              w.resultName(),
              c.driver(),
              c.pool.name,
              c.device.name(),
              w.adminAccess ? Optional.of(true) : Optional.empty(),
              w.tolerations,
              c.device.bindingConditions(),
              c.device.bindingFailureConditions(),
              // Generated for the solution only, so the search's dead ends use up no IDs.
              p.shared() ? Optional.of(shareIds.get()) : Optional.empty(),
              p.consumedCapacity(),
              c.slice.spec().skipNodeOperations(),
              null));
    }
    return new AllocationResult(
        DeviceAllocationResult.of(results, configs()), nodeSelector(), Optional.empty(), null);
  }

  /**
   * Class configs first: each class once, in the order its first request appears, applying to every
   * request (or chosen subrequest) that uses the class. Then claim configs in their order, when
   * they apply to no request in particular or to a request or chosen subrequest. A config whose
   * request list covers as many names as the claim has requests applies to all, which the empty
   * list says.
   */
  private List<DeviceAllocationConfiguration> configs() {
    Map<String, List<String>> requestsByClass = new LinkedHashMap<>();
    Set<String> chosenNames = new LinkedHashSet<>();
    for (Wanted.Group g : groups) {
      Wanted w = g.alternatives.get(g.selected);
      chosenNames.add(g.name);
      chosenNames.add(w.resultName());
      requestsByClass.computeIfAbsent(w.className(), k -> new ArrayList<>()).add(w.resultName());
    }
    int requestCount = groups.size();
    List<DeviceAllocationConfiguration> out = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : requestsByClass.entrySet()) {
      DeviceClass deviceClass = classes.get(e.getKey());
      for (DeviceClass.Configuration config : deviceClass.spec().config()) {
        List<String> requests = e.getValue().size() == requestCount ? List.of() : e.getValue();
        out.add(
            new DeviceAllocationConfiguration(
                DeviceAllocationConfiguration.FROM_CLASS, requests, config.opaque(), null));
      }
    }
    for (DeviceClaimConfiguration config : claim.spec().devices().config()) {
      List<String> requests = config.requests();
      boolean applies = requests.isEmpty() || requests.stream().anyMatch(chosenNames::contains);
      if (!applies) {
        continue;
      }
      out.add(
          new DeviceAllocationConfiguration(
              DeviceAllocationConfiguration.FROM_CLAIM,
              requests.size() == requestCount ? List.of() : requests,
              config.opaque(),
              null));
    }
    return out;
  }

  /**
   * Node-local devices (node name, or bindsToNode) pin the allocation to the node with {@code
   * matchFields metadata.name In [node]}; node selectors of the slices are merged into one term;
   * devices usable on all nodes add nothing.
   */
  private Optional<NodeSelector> nodeSelector() {
    List<NodeSelector.Requirement> fields = new ArrayList<>();
    List<NodeSelector.Requirement> expressions = new ArrayList<>();
    for (Placements.Placed p : order) {
      Candidate c = p.candidate();
      Optional<String> nodeName;
      Optional<NodeSelector> selector;
      if (c.slice.spec().perDeviceNodeSelection()) {
        nodeName = c.device.nodeName();
        selector = c.device.nodeSelector();
      } else {
        nodeName = c.slice.spec().nodeName();
        selector = c.slice.spec().nodeSelector();
      }
      if (nodeName.filter(n -> !n.isEmpty()).isPresent() || c.device.bindsToNode()) {
        return Optional.of(NodeSelector.forNodeName(node.metadata().name()));
      }
      if (selector.isPresent() && selector.get().nodeSelectorTerms().size() == 1) {
        NodeSelector.Term term = selector.get().nodeSelectorTerms().get(0);
        addNew(term.matchFields(), fields);
        addNew(term.matchExpressions(), expressions);
      }
    }
    if (fields.isEmpty() && expressions.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(NodeSelector.of(List.of(NodeSelector.Term.of(expressions, fields))));
  }

  private static void addNew(
      List<NodeSelector.Requirement> from, List<NodeSelector.Requirement> to) {
    for (NodeSelector.Requirement r : from) {
      boolean present =
          to.stream()
              .anyMatch(
                  t ->
                      t.key().equals(r.key())
                          && t.operator().equals(r.operator())
                          && Set.copyOf(t.values()).equals(Set.copyOf(r.values())));
      if (!present) {
        to.add(r);
      }
    }
  }
}
