package io.dra4j.doctor;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.SelectorCompileException;
import io.dra4j.doctor.Cluster.PublishedDevice;
import io.dra4j.doctor.DoctorReport.Demand;
import io.dra4j.doctor.DoctorReport.InvalidName;
import io.dra4j.doctor.DoctorReport.MappedName;
import io.dra4j.doctor.DoctorReport.Mapping;
import io.dra4j.doctor.DoctorReport.NodeVersion;
import io.dra4j.doctor.DoctorReport.Supply;
import io.dra4j.doctor.DoctorReport.Unreadable;
import io.dra4j.doctor.DoctorReport.UnusableName;
import io.dra4j.doctor.DoctorReport.Versions;
import io.dra4j.doctor.Finding.Severity;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.Node;
import io.dra4j.kube.Pod;
import io.dra4j.runtime.extendedresource.ExtendedResourceNames;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The migration checklist as a pure function of a {@link ClusterSnapshot}: sections 1 to 4
 * (versions, demand, supply, mapping) here, claims and taints in {@link ClaimChecks}, risky
 * settings in {@link SettingsChecks}. Each check adds its {@link Finding}s; the worst decides the
 * exit code.
 */
final class Diagnosis {
  private final Cluster cluster;
  private final Optional<String> scope;
  private final CelSelectors cel;
  private final List<Finding> findings = new ArrayList<>();

  private Diagnosis(Cluster cluster, Optional<String> scope, CelSelectors cel) {
    this.cluster = cluster;
    this.scope = scope;
    this.cel = cel;
  }

  /**
   * Judges the cluster, or one node of it.
   *
   * @param node with a node, node-specific sections and findings cover only that node; the mapping,
   *     the settings and the API server's version stay cluster-wide, as they decide for every node
   */
  static DoctorReport diagnose(ClusterSnapshot snapshot, Optional<String> node, CelSelectors cel) {
    Cluster cluster = new Cluster(snapshot);
    if (node.isPresent()
        && !cluster.nodes.containsKey(node.get())
        && cluster.unreadable.stream().noneMatch(u -> u.what().equals("nodes"))) {
      cluster.unreadable.add(
          new Unreadable("node " + node.get(), "no Node named \"" + node.get() + "\" exists"));
    }
    return new Diagnosis(cluster, node, cel).run();
  }

  private DoctorReport run() {
    Map<String, Demand> demand = demand();
    List<Supply> supply = supply(demand);
    Versions versions = versions(supply);
    Mapping mapping = mapping(demand);
    ClaimChecks claimChecks = new ClaimChecks(cluster, scope, findings);
    DoctorReport.Claims claims = claimChecks.claims();
    DoctorReport.Taints taints = claimChecks.taints();
    DoctorReport.Settings settings = SettingsChecks.settings(cluster, findings);

    List<Finding> sorted = new ArrayList<>(findings);
    sorted.sort(
        Comparator.comparing((Finding f) -> f.severity(), Comparator.reverseOrder())
            .thenComparing(Finding::check)
            .thenComparing(f -> f.node().orElse(""))
            .thenComparing(f -> f.resource().orElse(""))
            .thenComparing(f -> f.object().orElse("")));
    int exit;
    String verdict;
    Severity worst =
        sorted.stream().map(Finding::severity).max(Comparator.naturalOrder()).orElse(Severity.INFO);
    if (!cluster.unreadable.isEmpty()) {
      exit = DoctorReport.EXIT_UNREADABLE;
      verdict = "unreadable";
    } else {
      exit = worst.exitCode;
      verdict = worst == Severity.ERROR ? "errors" : worst == Severity.WARNING ? "warnings" : "ok";
    }
    return new DoctorReport(
        DoctorReport.SCHEMA_VERSION,
        cluster.snapshot.server(),
        scope,
        verdict,
        exit,
        versions,
        List.copyOf(demand.values()),
        supply,
        mapping,
        claims,
        taints,
        settings,
        List.copyOf(cluster.unreadable),
        List.copyOf(sorted));
  }

  private boolean inScope(String node) {
    return scope.map(node::equals).orElse(true);
  }

  private List<Node> scopedNodes() {
    return cluster.nodes.values().stream().filter(n -> inScope(n.metadata().name())).toList();
  }

  // ---------------------------------------------------------------------------------------------
  // 1. Versions

  private Versions versions(List<Supply> supply) {
    Optional<String> api = cluster.snapshot.serverVersion();
    if (api.isPresent()) {
      Optional<KubeVersion> v = KubeVersion.parse(api.get());
      if (v.isPresent() && v.get().below(KubeVersion.V1_37)) {
        findings.add(
            Finding.of(Severity.WARNING, "versions.api-server")
                .message(
                    "the API server is "
                        + api.get()
                        + ", older than 1.37: DRAExtendedResource is "
                        + (v.get().below(KubeVersion.V1_36)
                            ? "alpha and off by default there, so extendedResourceName is dropped"
                            : "beta there")
                        + "; the doctor judges by the 1.37 rules"));
      }
    }
    List<NodeVersion> nodes = new ArrayList<>();
    for (Node n : scopedNodes()) {
      String name = n.metadata().name();
      List<String> dra =
          supply.stream()
              .filter(s -> s.node().equals(name))
              .filter(s -> s.servedBy().equals("dra") || s.servedBy().equals("both"))
              .map(Supply::resource)
              .toList();
      Optional<String> kubelet = Cluster.kubeletVersion(n);
      nodes.add(new NodeVersion(name, kubelet, dra));
      if (dra.isEmpty()) {
        continue;
      }
      Optional<KubeVersion> v = kubelet.flatMap(KubeVersion::parse);
      if (v.isEmpty()) {
        findings.add(
            Finding.of(Severity.INFO, "versions.kubelet-unknown")
                .node(name)
                .message(
                    "node "
                        + name
                        + " reports no kubelet version (status.nodeInfo.kubeletVersion): check by"
                        + " hand that its kubelet is 1.37 before it serves "
                        + String.join(", ", dra)
                        + " through DRA"));
      } else if (v.get().below(KubeVersion.V1_37)) {
        boolean off = v.get().below(KubeVersion.V1_36);
        findings.add(
            Finding.of(off ? Severity.ERROR : Severity.WARNING, "versions.kubelet")
                .node(name)
                .message(
                    "node "
                        + name
                        + " runs kubelet "
                        + kubelet.get()
                        + " and serves "
                        + String.join(", ", dra)
                        + " through DRA: "
                        + (off
                            ? "DRAExtendedResource is alpha and off by default before 1.36, so the"
                                + " kubelet does not hand the scheduler's claim to the containers;"
                                + " upgrade the kubelet to 1.37 before migrating this node"
                            : "DRAExtendedResource is beta in 1.36 (on unless switched off);"
                                + " upgrade the kubelet to 1.37, where it is GA")));
      }
    }
    return new Versions(api, nodes);
  }

  // ---------------------------------------------------------------------------------------------
  // 2. Demand

  private Map<String, Demand> demand() {
    Map<String, Map<String, Integer>> byNs = new TreeMap<>();
    Map<String, Integer> pending = new TreeMap<>();
    for (Pod p : cluster.livePods) {
      String node = p.spec().nodeName();
      if (scope.isPresent() && !node.equals(scope.get())) {
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

  private List<Supply> supply(Map<String, Demand> demand) {
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
        if (!inScope(nodeName)) {
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
                                          + className(d.resource())
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

  // ---------------------------------------------------------------------------------------------
  // 4. Mapping

  private Mapping mapping(Map<String, Demand> demand) {
    GuardEvaluator.Mapping m = cluster.mapping;
    List<MappedName> names = new ArrayList<>();
    m.effective()
        .forEach(
            (name, c) -> {
              boolean implicit = Cluster.isImplicit(name);
              if (implicit
                  && c.spec().extendedResourceName().isPresent()
                  && !demand.containsKey(name)) {
                return; // listed under its explicit name
              }
              List<String> ignored =
                  m.duplicates().getOrDefault(name, List.of()).stream()
                      .skip(1)
                      .map(dc -> dc.metadata().name())
                      .toList();
              names.add(
                  new MappedName(
                      name, implicit ? "implicit" : "explicit", c.metadata().name(), ignored));
            });
    m.duplicates()
        .forEach(
            (name, ordered) -> {
              String winner = ordered.get(0).metadata().name();
              List<String> losers =
                  ordered.stream().skip(1).map(dc -> dc.metadata().name()).toList();
              findings.add(
                  Finding.of(Severity.WARNING, "mapping.duplicate")
                      .resource(name)
                      .object("DeviceClass " + winner)
                      .message(
                          "DeviceClasses "
                              + ordered.stream()
                                  .map(dc -> dc.metadata().name())
                                  .reduce((a, b) -> a + ", " + b)
                                  .orElse("")
                              + " all set extendedResourceName "
                              + name
                              + "; the scheduler uses "
                              + winner
                              + " (the newest; equal creation times go to the first name) and"
                              + " ignores "
                              + String.join(", ", losers)
                              + " (a newer class silently takes a name over). Mind how you undo"
                              + " this: the scheduler keeps its names from DeviceClass events, so"
                              + " deleting any of these classes, or changing its"
                              + " extendedResourceName, removes "
                              + name
                              + " from the running scheduler even while "
                              + winner
                              + " still carries it, and pods asking for it stay Pending"
                              + " (\"Insufficient "
                              + name
                              + "\") until a class carrying it is updated (a label will do) or"
                              + " the scheduler restarts; a class that lost the name when the"
                              + " scheduler saw it has no deviceclass.resource.kubernetes.io/ name"
                              + " there either. Delete or rename the ones you do not mean, then"
                              + " update "
                              + winner));
            });
    judgeSchedulerMapping();
    List<UnusableName> unusable = new ArrayList<>();
    for (DeviceClass c : m.unusableImplicit()) {
      String cn = c.metadata().name();
      String reason = String.join("; ", ExtendedResourceNames.implicit(cn));
      unusable.add(new UnusableName(cn, ExtendedResourceNames.implicitName(cn), reason));
      findings.add(
          Finding.of(Severity.INFO, "mapping.implicit-name-unusable")
              .object("DeviceClass " + cn)
              .message(
                  "no pod can request DeviceClass "
                      + cn
                      + " as "
                      + ExtendedResourceNames.implicitName(cn)
                      + " ("
                      + reason
                      + ")"
                      + (c.spec().extendedResourceName().isPresent()
                          ? "; its extendedResourceName "
                              + c.spec().extendedResourceName().get()
                              + " still works"
                          : "; set spec.extendedResourceName if pods should ask for it by name")));
    }
    List<InvalidName> invalid = new ArrayList<>();
    for (DeviceClass c : cluster.classes.values()) {
      String cn = c.metadata().name();
      c.spec()
          .extendedResourceName()
          .ifPresent(
              n -> {
                List<String> bad = ExtendedResourceNames.explicit(n);
                if (!bad.isEmpty()) {
                  String reason = String.join("; ", bad);
                  invalid.add(new InvalidName(cn, n, reason));
                  findings.add(
                      Finding.of(Severity.WARNING, "mapping.invalid-name")
                          .resource(n)
                          .object("DeviceClass " + cn)
                          .message(
                              "DeviceClass "
                                  + cn
                                  + ": spec.extendedResourceName \""
                                  + n
                                  + "\" is ignored by the scheduler, it "
                                  + reason));
                }
              });
      judgeSelectors(c);
    }
    judgeClassAge(demand);
    return new Mapping(names, unusable, invalid);
  }

  /**
   * Pending pods that the scheduler refused with {@code Insufficient <name>} on more nodes than
   * make the name allocatable, for a name a DeviceClass maps: the scheduler had no class for the
   * name.
   *
   * <p>kube-scheduler leaves a name to DRA when the node's allocatable for it is 0 and its own
   * cache maps the name to a class ({@code noderesources/fit.go:273-291}); otherwise
   * NodeResourcesFit reports {@code Insufficient <name>} for a node that does not make it
   * allocatable (765-795), one count per node in the pod's condition ({@code
   * framework/types.go:1469-1520} FitError). That cache ({@code
   * k8s.io/dynamic-resource-allocation@v0.37.2
   * deviceclass/extendedresourcecache/extendedresourcecache.go}) changes one DeviceClass event at a
   * time: a deleted class removes its explicit name whichever class holds it (229-241), an update
   * removes its old name the same way (189-195), and nothing puts the name back until a class
   * carrying it is added or updated.
   */
  private void judgeSchedulerMapping() {
    Map<String, List<String>> refused = new TreeMap<>();
    for (Pod p : cluster.livePods) {
      if (!p.spec().nodeName().isEmpty()) {
        continue;
      }
      String why = unschedulableMessage(p);
      // The preemption part repeats the node count with its own reasons.
      int preemption = why.indexOf(" preemption:");
      String filters = preemption < 0 ? why : why.substring(0, preemption);
      for (String name : Cluster.requestedNames(p)) {
        if (!cluster.mapping.effective().containsKey(name)) {
          continue;
        }
        Matcher m =
            Pattern.compile("(\\d+) Insufficient " + Pattern.quote(name) + "[,.]").matcher(filters);
        long allocatable =
            cluster.nodes.values().stream()
                .filter(n -> Cluster.positive(n.status().allocatable().get(name)))
                .count();
        if (m.find() && Long.parseLong(m.group(1)) > allocatable) {
          refused.computeIfAbsent(name, k -> new ArrayList<>()).add(Cluster.podKey(p));
        }
      }
    }
    refused.forEach(
        (name, pods) -> {
          String cn = className(name);
          String update =
              "(a label will do: kubectl label deviceclass %s dra4j.io/touched=$(date +%%s)"
                  + " --overwrite)";
          // An implicit name of a class that lost its explicit name to another.
          Optional<Map.Entry<String, List<DeviceClass>>> lost =
              cluster.mapping.duplicates().entrySet().stream()
                  .filter(e -> Cluster.isImplicit(name))
                  .filter(
                      e ->
                          e.getValue().stream()
                              .skip(1)
                              .anyMatch(c -> c.metadata().name().equals(cn)))
                  .findFirst();
          String advice =
              lost.map(
                      e -> {
                        String winner = e.getValue().get(0).metadata().name();
                        return "DeviceClass "
                            + cn
                            + " also carries extendedResourceName "
                            + e.getKey()
                            + ", which "
                            + winner
                            + " holds, and a class that loses its extendedResourceName when the"
                            + " scheduler sees it gets no implicit name there either. Ask for "
                            + e.getKey()
                            + " instead, or remove extendedResourceName from "
                            + cn
                            + " and then update DeviceClass "
                            + winner
                            + " "
                            + update.formatted(winner);
                      })
                  .orElse(
                      "The scheduler keeps its names from DeviceClass events: deleting a class"
                          + " that carried the name too (or changing its extendedResourceName)"
                          + " removes it even while another class carries it. Update DeviceClass "
                          + cn
                          + " "
                          + update.formatted(cn)
                          + " or restart the scheduler; the pods are retried then");
          findings.add(
              Finding.of(Severity.WARNING, "mapping.scheduler-unmapped")
                  .resource(name)
                  .object("DeviceClass " + cn)
                  .message(
                      pods.size()
                          + " pending pod(s) asking for "
                          + name
                          + " ("
                          + String.join(", ", pods.subList(0, Math.min(5, pods.size())))
                          + (pods.size() > 5 ? " …" : "")
                          + ") were refused with \"Insufficient "
                          + name
                          + "\" by nodes that do not make it allocatable: when the scheduler"
                          + " last tried, it mapped "
                          + name
                          + " to no DeviceClass, though DeviceClass "
                          + cn
                          + " maps it as the classes stand now. "
                          + advice));
        });
  }

  /** The message of a pod's {@code PodScheduled=False} condition, or empty. */
  private static String unschedulableMessage(Pod p) {
    if (p.status().unknownFields().get("conditions") instanceof List<?> conditions) {
      for (Object o : conditions) {
        if (o instanceof Map<?, ?> c
            && "PodScheduled".equals(c.get("type"))
            && "False".equals(c.get("status"))
            && c.get("message") instanceof String message) {
          return message;
        }
      }
    }
    return "";
  }

  private void judgeSelectors(DeviceClass c) {
    List<DeviceSelector> selectors = c.spec().selectors();
    for (int i = 0; i < selectors.size(); i++) {
      Optional<DeviceSelector.Cel> expr = selectors.get(i).cel();
      String problem;
      if (expr.isEmpty()) {
        problem = "is not a CEL selector";
      } else {
        try {
          cel.compile(expr.get().expression());
          continue;
        } catch (SelectorCompileException e) {
          problem = "does not compile (" + e.getMessage() + ")";
        }
      }
      findings.add(
          Finding.of(Severity.WARNING, "mapping.selector-not-evaluated")
              .object("DeviceClass " + c.metadata().name())
              .message(
                  "DeviceClass "
                      + c.metadata().name()
                      + ": spec.selectors["
                      + i
                      + "] "
                      + problem
                      + "; the doctor counts it as accepting every device, so its supply figures"
                      + " may be too high"));
    }
  }

  /** Pods that asked for a name before the class that maps it existed. */
  private void judgeClassAge(Map<String, Demand> demand) {
    for (String name : demand.keySet()) {
      DeviceClass c = cluster.mapping.effective().get(name);
      if (c == null) {
        continue;
      }
      Optional<Instant> created = time(c.metadata().creationTimestamp());
      if (created.isEmpty()) {
        continue;
      }
      List<Pod> older = new ArrayList<>();
      for (Pod p : cluster.livePods) {
        if (scope.isPresent() && !scope.get().equals(p.spec().nodeName())) {
          continue;
        }
        Optional<Instant> t = time(p.metadata().creationTimestamp());
        // A pod with the scheduler's claim in its status was scheduled through the class.
        if (p.status().extendedResourceClaimStatus().isEmpty()
            && t.isPresent()
            && t.get().isBefore(created.get())
            && Cluster.requestedNames(p).contains(name)) {
          older.add(p);
        }
      }
      if (older.isEmpty()) {
        continue;
      }
      long pending = older.stream().filter(p -> p.spec().nodeName().isEmpty()).count();
      findings.add(
          Finding.of(Severity.WARNING, "mapping.class-after-pods")
              .resource(name)
              .object("DeviceClass " + c.metadata().name())
              .message(
                  "DeviceClass "
                      + c.metadata().name()
                      + " (created "
                      + c.metadata().creationTimestamp()
                      + ") maps "
                      + name
                      + ", but "
                      + older.size()
                      + " pod(s) that request it are older ("
                      + older.stream().limit(5).map(Cluster::podKey).toList()
                      + (older.size() > 5 ? " …" : "")
                      + "): "
                      + (pending > 0
                          ? pending
                              + " still pending were judged without the mapping and wait for the"
                              + " scheduler to retry them; "
                          : "")
                      + "running ones got "
                      + name
                      + " from a device plugin, not from this class; recreate them where they"
                      + " should use DRA"));
    }
  }

  private String className(String name) {
    return cluster.mapping.effective().get(name).metadata().name();
  }

  static Optional<Instant> time(String rfc3339) {
    if (rfc3339.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(OffsetDateTime.parse(rfc3339).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
