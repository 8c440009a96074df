package io.dra4j.doctor;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.cel.CelSelectors;
import io.dra4j.doctor.Cluster.PublishedDevice;
import io.dra4j.doctor.DoctorReport.Demand;
import io.dra4j.doctor.DoctorReport.Supply;
import io.dra4j.doctor.Finding.Severity;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.Node;
import io.dra4j.kube.Pod;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Sections 2 and 3: the extended resources pods request, and who serves each on every node (a
 * device plugin, DRA through the class that maps the name, both, or nothing).
 */
final class SupplyChecks {
  private final Cluster cluster;
  private final Optional<String> scope;
  private final CelSelectors cel;
  private final List<Finding> findings;

  SupplyChecks(Cluster cluster, Optional<String> scope, CelSelectors cel, List<Finding> findings) {
    this.cluster = cluster;
    this.scope = scope;
    this.cel = cel;
    this.findings = findings;
  }

  // ---------------------------------------------------------------------------------------------
  // 2. Demand

  Map<String, Demand> demand() {
    Map<String, Map<String, Integer>> byNs = new TreeMap<>();
    Map<String, Integer> pending = new TreeMap<>();
    for (Pod p : cluster.livePods) {
      String node = p.spec().nodeName();
      if (!Cluster.inScope(scope, node)) {
        continue;
      }
      for (String name : Cluster.requestedNames(p)) {
        byNs.computeIfAbsent(name, k -> new TreeMap<>())
            .merge(p.metadata().namespace(), 1, Integer::sum);
        if (node.isEmpty()) {
          pending.merge(name, 1, Integer::sum);
        }
      }
    }
    Map<String, Demand> out = new LinkedHashMap<>();
    byNs.forEach(
        (name, ns) ->
            out.put(
                name,
                new Demand(
                    name,
                    ns.values().stream().mapToInt(Integer::intValue).sum(),
                    pending.getOrDefault(name, 0),
                    ns)));
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // 3. Supply

  List<Supply> supply(Map<String, Demand> demand) {
    // Names that matter anywhere: those pods ask for (cluster-wide, a node may be about to get
    // them) and those mapped explicitly; implicit names only where pods ask for them.
    TreeSet<String> names = new TreeSet<>();
    for (Pod p : cluster.livePods) {
      names.addAll(Cluster.requestedNames(p));
    }
    cluster.mapping.effective().keySet().stream()
        .filter(n -> !Cluster.isImplicit(n))
        .forEach(names::add);
    List<Supply> out = new ArrayList<>();
    Set<String> servedSomewhere = new TreeSet<>();
    for (Node node : cluster.nodes.values()) {
      String nodeName = node.metadata().name();
      TreeSet<String> here = new TreeSet<>(names);
      node.status().capacity().keySet().stream()
          .filter(Cluster::isExtendedResourceName)
          .forEach(here::add);
      List<PublishedDevice> devices = cluster.devicesOn(node);
      for (String name : here) {
        Supply s = supplyOf(node, name, devices);
        if (!s.servedBy().equals("none")) {
          servedSomewhere.add(name);
        }
        if (!Cluster.inScope(scope, nodeName)) {
          continue;
        }
        if (s.servedBy().equals("none")
            && s.phase().equals(SupplyPhase.DRA.json)
            && s.podsOnNode() == 0
            && scope.isEmpty()) {
          continue; // a node that has nothing to do with this name
        }
        out.add(s);
        judgeSupply(s);
      }
    }
    if (scope.isEmpty()) {
      demand.values().stream()
          .filter(d -> d.pendingPods() > 0 && !servedSomewhere.contains(d.resource()))
          .forEach(
              d ->
                  findings.add(
                      Finding.of(Severity.WARNING, "demand.unserved")
                          .resource(d.resource())
                          .message(
                              d.pendingPods()
                                  + " pending pod(s) request "
                                  + d.resource()
                                  + ", but no node serves it, neither through a device plugin nor"
                                  + " through DRA: "
                                  + (cluster.mapping.effective().containsKey(d.resource())
                                      ? "DeviceClass "
                                          + cluster.className(d.resource())
                                          + " maps it, but selects no published device"
                                      : "no DeviceClass maps it")
                                  + "; they stay pending")));
    }
    return out;
  }

  private Supply supplyOf(Node node, String name, List<PublishedDevice> devicesHere) {
    Optional<Quantity> cap = Optional.ofNullable(node.status().capacity().get(name));
    Optional<Quantity> alloc = Optional.ofNullable(node.status().allocatable().get(name));
    Optional<DeviceClass> c = Optional.ofNullable(cluster.mapping.effective().get(name));
    List<PublishedDevice> selected = c.map(dc -> selected(dc, devicesHere)).orElse(List.of());
    int untainted = (int) selected.stream().filter(PublishedDevice::untainted).count();
    // Who serves the name is read as the scheduler reads it (the guard's phase): the device plugin
    // while allocatable is above 0, whatever capacity says.
    SupplyPhase phase = SupplyPhase.of(GuardEvaluator.phase(cap, alloc), untainted);
    String servedBy =
        switch (phase) {
          case CONFLICT -> "both";
          case DEVICE_PLUGIN -> "device-plugin";
          default -> selected.isEmpty() ? "none" : "dra";
        };
    String nodeName = node.metadata().name();
    int pods =
        (int)
            cluster.livePods.stream()
                .filter(p -> p.spec().nodeName().equals(nodeName))
                .filter(p -> Cluster.requestedNames(p).contains(name))
                .count();
    return new Supply(
        nodeName,
        name,
        servedBy,
        phase.json,
        cap.map(Quantity::toString),
        alloc.map(Quantity::toString),
        c.map(dc -> dc.metadata().name()),
        selected.stream().map(PublishedDevice::driver).distinct().sorted().toList(),
        selected.size(),
        untainted,
        pods);
  }

  /** The devices the class selects, evaluated per driver with the guard's rule. */
  private List<PublishedDevice> selected(DeviceClass c, List<PublishedDevice> devices) {
    Map<String, Map<String, List<Device>>> byDriver = new TreeMap<>();
    for (PublishedDevice d : devices) {
      byDriver
          .computeIfAbsent(d.driver(), k -> new TreeMap<>())
          .computeIfAbsent(d.pool(), k -> new ArrayList<>())
          .add(d.device());
    }
    List<PublishedDevice> out = new ArrayList<>();
    byDriver.forEach(
        (driver, pools) -> {
          List<Pool> asPools = new ArrayList<>();
          pools.forEach((pool, list) -> asPools.add(Pool.of(pool, list)));
          for (DeviceRef ref : GuardEvaluator.selected(driver, c, asPools, cel)) {
            out.add(
                cluster.devicesByKey.get(PublishedDevice.key(driver, ref.pool(), ref.device())));
          }
        });
    return out;
  }

  private void judgeSupply(Supply s) {
    String nodeName = s.node();
    String name = s.resource();
    String status =
        "capacity "
            + s.capacity().orElse("absent")
            + ", allocatable "
            + s.allocatable().orElse("absent");
    String dra =
        s.deviceClass()
            .map(
                dc ->
                    "DeviceClass "
                        + dc
                        + " maps it to "
                        + s.draDevices()
                        + " DRA device(s) of "
                        + String.join(", ", s.drivers())
                        + " here")
            .orElse("");
    switch (SupplyPhase.fromJson(s.phase())) {
      case CONFLICT:
        findings.add(
            Finding.of(Severity.ERROR, "supply.conflict")
                .node(nodeName)
                .resource(name)
                .message(
                    "node "
                        + nodeName
                        + " serves "
                        + name
                        + " both ways: a device plugin makes it allocatable ("
                        + status
                        + "), so the scheduler sends pods asking for it to the device plugin, and "
                        + dra
                        + ", "
                        + s.untaintedDraDevices()
                        + " of them untainted; one name must never come from both on one node:"
                        + " remove the device plugin from this node (allocatable must fall to 0),"
                        + " or keep the DRA driver off it (its guard's wait policy publishes"
                        + " nothing while allocatable is above 0)"));
        break;
      case PLUGIN_STOPPED:
        findings.add(
            Finding.of(Severity.INFO, "supply.plugin-stopped")
                .node(nodeName)
                .resource(name)
                .message(
                    "node "
                        + nodeName
                        + " still counts "
                        + name
                        + " of a device plugin ("
                        + status
                        + "): the plugin stopped less than 5 minutes ago (the kubelet keeps its"
                        + " capacity for that long, then 0), or it runs with all its devices"
                        + " unhealthy; "
                        + (s.deviceClass().isEmpty()
                            ? "no DeviceClass maps the name, so nothing serves it here"
                            : "the scheduler already sends pods asking for it to DRA here"
                                + (s.draDevices() > 0
                                    ? " (" + dra + ")"
                                    : ", but DeviceClass "
                                        + s.deviceClass().get()
                                        + " selects no device published for this node yet"))
                        + "; should the plugin's devices be allocatable again, the node serves the"
                        + " name both ways (a guard with the wait policy then withdraws its"
                        + " devices)"));
        break;
      default:
        break;
    }
    if (s.servedBy().equals("none") && s.podsOnNode() > 0) {
      String why =
          s.deviceClass().isEmpty()
              ? "no DeviceClass maps it"
              : "DeviceClass "
                  + s.deviceClass().get()
                  + " maps it, but selects no device published for this node";
      findings.add(
          Finding.of(Severity.WARNING, "supply.unserved")
              .node(nodeName)
              .resource(name)
              .message(
                  s.podsOnNode()
                      + " pod(s) on node "
                      + nodeName
                      + " request "
                      + name
                      + ", but neither a device plugin (allocatable 0 or absent) nor DRA serves it"
                      + " here ("
                      + why
                      + "): new pods asking for it cannot land on this node; finish the"
                      + " migration step (start the DRA driver, or bring the device plugin"
                      + " back)"));
    }
    if (s.servedBy().equals("dra") && s.untaintedDraDevices() == 0) {
      findings.add(
          Finding.of(Severity.WARNING, "supply.all-devices-tainted")
              .node(nodeName)
              .resource(name)
              .message(
                  "all "
                      + s.draDevices()
                      + " device(s) that serve "
                      + name
                      + " on node "
                      + nodeName
                      + " are tainted NoSchedule or NoExecute, and the claim the scheduler"
                      + " creates for an extended resource tolerates no taint: pods asking for"
                      + " it cannot land here until the taints are lifted"));
    }
  }
}
