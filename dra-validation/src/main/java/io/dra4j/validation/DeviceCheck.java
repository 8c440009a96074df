package io.dra4j.validation;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.NodeAllocatableResource;
import io.dra4j.api.device.PciBusId;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.cel.Semver;
import io.dra4j.kube.KubeNames;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** The rules of one device. */
final class DeviceCheck {
  private static final Pattern PCIE_ROOT = Pattern.compile("pci[0-9a-f]{4}:[0-9a-f]{2}");
  private static final int MAX_NUMA_NODE = 1023;

  private final Report r;
  private final String driver;
  private final PoolScope.Kind scope;
  private final Map<String, CounterSet> counterSets;
  private final Device d;
  private final Optional<String> dev;

  DeviceCheck(
      Report r,
      String driver,
      PoolScope.Kind scope,
      Map<String, CounterSet> counterSets,
      Device d) {
    this.r = r;
    this.driver = driver;
    this.scope = scope;
    this.counterSets = counterSets;
    this.d = d;
    this.dev = Optional.of(d.name());
  }

  void run() {
    for (String p : KubeNames.dnsLabel(d.name())) {
      r.error(dev, "name", "device name " + p);
    }
    int entries = d.attributes().size() + d.capacity().size();
    if (entries > Limits.MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE) {
      r.error(
          dev,
          "attributes",
          "has "
              + d.attributes().size()
              + " attributes and "
              + d.capacity().size()
              + " capacities, "
              + entries
              + " together, the limit is "
              + Limits.MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE);
    }
    int values = d.attributes().values().stream().mapToInt(a -> a.valueCount()).sum();
    if (values > Limits.MAX_ATTRIBUTE_VALUES_PER_DEVICE) {
      r.error(
          dev,
          "attributes",
          "has "
              + values
              + " attribute values (list items counted one by one), the limit is "
              + Limits.MAX_ATTRIBUTE_VALUES_PER_DEVICE);
    }
    d.attributes().forEach(this::attribute);
    d.capacity()
        .forEach(
            (name, capacity) -> {
              String path = "capacity" + PoolValidator.key(name);
              if (qualifiedKey(path, name)) {
                r.error(
                    dev,
                    path,
                    "the kubernetes.io domains are reserved and define no standard capacities");
              }
              capacity
                  .requestPolicy()
                  .ifPresent(
                      policy -> {
                        if (!d.allowMultipleAllocations()) {
                          r.error(
                              dev,
                              path + ".requestPolicy",
                              "a request policy is only allowed when the device sets"
                                  + " allowMultipleAllocations");
                        }
                        new RequestPolicyCheck(r, dev, path + ".requestPolicy", capacity.value())
                            .run(policy);
                      });
            });
    taints();
    consumesCounters();
    nodeSelection();
    bindingConditions();
    nodeAllocatableResources();
    for (String field : d.unknownFields().keySet()) {
      r.warn(
          dev,
          field,
          "is not a resource.k8s.io/v1 Device field dra4j knows; it is sent as is and an API"
              + " server that does not know it either drops or rejects it");
    }
  }

  /** Checks an attribute or capacity name; says whether its domain is Kubernetes'. */
  private boolean qualifiedKey(String path, String name) {
    Report.KeyName k = r.keyName(name);
    for (String p : k.problems()) {
      r.error(dev, path, "invalid key: " + p);
    }
    if (k.upperCaseDomain()) {
      r.warn(dev, path, "the domain \"" + k.domain() + "\" has upper-case letters; use lower case");
    }
    return k.kubernetesDomain();
  }

  private void attribute(String name, DeviceAttribute value) {
    String path = "attributes" + PoolValidator.key(name);
    boolean kubernetesDomain = qualifiedKey(path, name);
    if (!name.contains("/") && d.attributes().containsKey(driver + "/" + name)) {
      r.warn(
          dev,
          path,
          "\""
              + name
              + "\" and \""
              + driver
              + "/"
              + name
              + "\" are the same attribute (unqualified names are in the driver's domain);"
              + " publish only one");
    }
    if (value instanceof DeviceAttribute.StringValue s) {
      stringValue(path, "string value", s.value());
    } else if (value instanceof DeviceAttribute.VersionValue v) {
      versionValue(path, "version value", v.value());
    } else if (value instanceof DeviceAttribute.StringValues s) {
      nonEmpty(path, "strings", s.value());
      for (int i = 0; i < s.value().size(); i++) {
        stringValue(path + ".strings[" + i + "]", "string value", s.value().get(i));
      }
    } else if (value instanceof DeviceAttribute.VersionValues v) {
      nonEmpty(path, "versions", v.value());
      for (int i = 0; i < v.value().size(); i++) {
        versionValue(path + ".versions[" + i + "]", "version value", v.value().get(i));
      }
    } else if (value instanceof DeviceAttribute.IntValues v) {
      nonEmpty(path, "ints", v.value());
    } else if (value instanceof DeviceAttribute.BoolValues v) {
      nonEmpty(path, "bools", v.value());
    } else if (value instanceof DeviceAttribute.UnknownValue u) {
      r.warn(
          dev,
          path,
          "holds a value of a kind dra4j does not know ("
              + String.join(", ", u.fields().keySet())
              + "); it is sent as is and an API server that does not know it either rejects it");
    }
    if (kubernetesDomain) {
      standardAttribute(path, name, value);
    }
  }

  private void nonEmpty(String path, String form, List<?> list) {
    if (list.isEmpty()) {
      r.error(dev, path, form + " must not be empty; omit the attribute instead");
    }
  }

  private void stringValue(String path, String what, String value) {
    int bytes = Names.utf8Length(value);
    if (bytes > Limits.MAX_ATTRIBUTE_VALUE_BYTES) {
      r.error(
          dev,
          path,
          what + " is " + bytes + " bytes, the limit is " + Limits.MAX_ATTRIBUTE_VALUE_BYTES);
    }
  }

  private void versionValue(String path, String what, String value) {
    if (!Semver.isValid(value)) {
      r.error(
          dev,
          path,
          what
              + " \""
              + value
              + "\" is not a semantic version 2.0.0 (MAJOR.MINOR.PATCH without leading zeros,"
              + " optional -prerelease and +build)");
    }
    stringValue(path, what, value);
  }

  private void standardAttribute(String path, String name, DeviceAttribute value) {
    switch (name) {
      case StandardAttributes.PCI_BUS_ID -> {
        if (!(value instanceof DeviceAttribute.StringValue s) || !PciBusId.isCanonical(s.value())) {
          r.error(
              dev,
              path,
              "must be a string PCI address in lower-case extended BDF form dddd:bb:dd.f, e.g."
                  + " 0000:3b:00.0");
        }
      }
      case StandardAttributes.PCIE_ROOT -> {
        boolean ok;
        if (value instanceof DeviceAttribute.StringValue s) {
          ok = PCIE_ROOT.matcher(s.value()).matches();
        } else if (value instanceof DeviceAttribute.StringValues s) {
          ok = s.value().stream().allMatch(v -> PCIE_ROOT.matcher(v).matches());
        } else {
          ok = false;
        }
        if (!ok) {
          r.error(
              dev,
              path,
              "must be a string (or list of strings) naming a PCIe root as pci<domain>:<bus> in"
                  + " lower-case hex, e.g. pci0000:00");
        }
      }
      case StandardAttributes.NUMA_NODE -> {
        List<Long> nodes;
        if (value instanceof DeviceAttribute.IntValue v) {
          nodes = List.of(v.value());
        } else if (value instanceof DeviceAttribute.IntValues v) {
          nodes = v.value();
        } else {
          r.error(dev, path, "must be an int or a list of ints (NUMA node numbers)");
          return;
        }
        for (long n : nodes) {
          if (n < 0 || n > MAX_NUMA_NODE) {
            r.error(
                dev,
                path,
                "NUMA node "
                    + n
                    + " is not between 0 and "
                    + MAX_NUMA_NODE
                    + "; omit the attribute for devices without NUMA affinity");
          }
        }
      }
      default ->
          r.error(
              dev,
              path,
              "the kubernetes.io domains are reserved for standardized attributes; known ones"
                  + " are "
                  + StandardAttributes.PCI_BUS_ID
                  + ", "
                  + StandardAttributes.PCIE_ROOT
                  + " and "
                  + StandardAttributes.NUMA_NODE);
    }
  }

  private void taints() {
    int n = d.taints().size();
    if (n > Limits.MAX_TAINTS_PER_DEVICE) {
      r.error(
          dev,
          "taints",
          "has " + n + " taints, the limit is " + Limits.MAX_TAINTS_PER_DEVICE + " (4 in 1.34)");
    }
    for (int i = 0; i < n; i++) {
      var taint = d.taints().get(i);
      String path = "taints[" + i + "]";
      for (String p : KubeNames.qualifiedName(taint.key())) {
        r.error(dev, path + ".key", "taint key \"" + taint.key() + "\" " + p);
      }
      if (KubeNames.isKubernetesDomain(KubeNames.domainOf(taint.key()))) {
        r.warn(
            dev,
            path + ".key",
            "the kubernetes.io domains are reserved; use a domain of the driver for taint keys");
      }
      for (String p : KubeNames.labelValue(taint.value())) {
        r.error(dev, path + ".value", "taint value " + p);
      }
      taint
          .timeAdded()
          .ifPresent(
              t -> {
                try {
                  OffsetDateTime.parse(t);
                } catch (DateTimeParseException e) {
                  r.error(
                      dev,
                      path + ".timeAdded",
                      "\"" + t + "\" is not an RFC 3339 time such as 2026-01-02T15:04:05Z");
                }
              });
    }
  }

  private void consumesCounters() {
    int n = d.consumesCounters().size();
    if (n > Limits.MAX_COUNTER_CONSUMPTIONS_PER_DEVICE) {
      r.error(
          dev,
          "consumesCounters",
          "has "
              + n
              + " entries, the limit is "
              + Limits.MAX_COUNTER_CONSUMPTIONS_PER_DEVICE
              + " (one per counter set)");
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < n; i++) {
      DeviceCounterConsumption c = d.consumesCounters().get(i);
      String path = "consumesCounters[" + i + "]";
      Integer first = seen.putIfAbsent(c.counterSet(), i);
      if (first != null) {
        r.error(
            dev,
            path + ".counterSet",
            "counter set \""
                + c.counterSet()
                + "\" is already consumed by consumesCounters["
                + first
                + "]; use one entry per counter set");
      }
      CounterSet set = counterSets.get(c.counterSet());
      if (set == null) {
        r.error(
            dev,
            path + ".counterSet",
            "counter set \"" + c.counterSet() + "\" is not one of the pool's counter sets");
      }
      if (c.counters().isEmpty()) {
        r.error(dev, path + ".counters", "must name at least one counter");
      }
      if (c.counters().size() > Limits.MAX_COUNTERS_PER_CONSUMPTION) {
        r.error(
            dev,
            path + ".counters",
            "has "
                + c.counters().size()
                + " counters, the limit is "
                + Limits.MAX_COUNTERS_PER_CONSUMPTION);
      }
      for (Map.Entry<String, Counter> e : c.counters().entrySet()) {
        if (set != null && !set.counters().containsKey(e.getKey())) {
          r.error(
              dev,
              path + ".counters" + PoolValidator.key(e.getKey()),
              "counter \""
                  + e.getKey()
                  + "\" is not in counter set \""
                  + c.counterSet()
                  + "\" (it has "
                  + String.join(", ", set.counters().keySet())
                  + ")");
        }
      }
      compatibilityGroups(path + ".compatibilityGroups", c.compatibilityGroups());
    }
  }

  /** KEP-5963: at most 2 distinct DNS labels per consumption (declarative API validation). */
  private void compatibilityGroups(String path, List<String> groups) {
    if (groups.size() > Limits.MAX_COMPATIBILITY_GROUPS) {
      r.error(
          dev,
          path,
          "has " + groups.size() + " groups, the limit is " + Limits.MAX_COMPATIBILITY_GROUPS);
    }
    for (int i = 0; i < groups.size(); i++) {
      String g = groups.get(i);
      for (String p : KubeNames.dnsLabel(g)) {
        r.error(dev, path + "[" + i + "]", "group \"" + g + "\" " + p);
      }
      if (groups.indexOf(g) < i) {
        r.error(dev, path + "[" + i + "]", "duplicate group \"" + g + "\"");
      }
    }
  }

  private void nodeSelection() {
    List<String> set = new ArrayList<>();
    d.nodeName().ifPresent(n -> set.add("nodeName"));
    d.nodeSelector().ifPresent(n -> set.add("nodeSelector"));
    if (d.allNodes()) {
      set.add("allNodes");
    }
    if (scope != PoolScope.Kind.PER_DEVICE) {
      if (!set.isEmpty()) {
        r.error(
            dev,
            set.get(0),
            String.join(", ", set)
                + " may only be set on devices of a pool with per-device node selection"
                + " (PoolScope.perDevice())");
      }
      return;
    }
    if (set.size() != 1) {
      r.error(
          dev,
          "",
          "in a pool with per-device node selection every device needs exactly one of nodeName,"
              + " nodeSelector or allNodes"
              + (set.isEmpty() ? ", it has none" : ", it has " + String.join(", ", set)));
    }
    d.nodeName()
        .ifPresent(
            n -> {
              for (String p : KubeNames.dnsSubdomain(n)) {
                r.error(dev, "nodeName", "node name \"" + n + "\" " + p);
              }
            });
    d.nodeSelector().ifPresent(s -> PoolValidator.checkNodeSelector(r, dev, "nodeSelector", s));
  }

  private void bindingConditions() {
    List<String> ok = d.bindingConditions();
    List<String> failure = d.bindingFailureConditions();
    conditionList("bindingConditions", ok);
    conditionList("bindingFailureConditions", failure);
    for (int i = 0; i < failure.size(); i++) {
      if (ok.contains(failure.get(i))) {
        r.error(
            dev,
            "bindingFailureConditions[" + i + "]",
            "\"" + failure.get(i) + "\" is also a binding condition; the lists must not overlap");
      }
    }
    if (ok.isEmpty() != failure.isEmpty()) {
      r.error(
          dev,
          ok.isEmpty() ? "bindingConditions" : "bindingFailureConditions",
          "bindingConditions and bindingFailureConditions must be set together");
    }
    boolean onOneNode =
        scope == PoolScope.Kind.NODE
            || (scope == PoolScope.Kind.PER_DEVICE && d.nodeName().isPresent());
    if (!ok.isEmpty() && !onOneNode && !d.bindsToNode()) {
      r.warn(
          dev,
          "bindingConditions",
          "the device is not on one node and does not set bindsToNode: its allocations are not"
              + " pinned to a node, so no node's driver reports its binding conditions; set"
              + " bindsToNode");
    }
  }

  private void conditionList(String field, List<String> conditions) {
    if (conditions.size() > Limits.MAX_BINDING_CONDITIONS) {
      r.error(
          dev,
          field,
          "has " + conditions.size() + " entries, the limit is " + Limits.MAX_BINDING_CONDITIONS);
    }
    for (int i = 0; i < conditions.size(); i++) {
      String c = conditions.get(i);
      for (String p : KubeNames.qualifiedName(c)) {
        r.error(dev, field + "[" + i + "]", "condition type \"" + c + "\" " + p);
      }
      if (conditions.indexOf(c) < i) {
        r.error(dev, field + "[" + i + "]", "duplicate condition type \"" + c + "\"");
      }
    }
  }

  private void nodeAllocatableResources() {
    d.nodeAllocatableResources()
        .forEach(
            (resource, value) -> {
              String path = "nodeAllocatableResources" + PoolValidator.key(resource);
              if (!isNodeAllocatable(resource)) {
                r.error(
                    dev,
                    path,
                    "\""
                        + resource
                        + "\" is not a node allocatable resource (cpu, memory, ephemeral-storage"
                        + " or hugepages-<size>)");
              }
              if (value.mapping().isEmpty() && value.overhead().isEmpty()) {
                r.error(dev, path, "at least one of mapping and overhead must be set");
              }
              value.mapping().ifPresent(m -> mapping(path + ".mapping", m));
              value
                  .overhead()
                  .ifPresent(
                      o -> {
                        if (o.perPod().isEmpty() && o.perContainer().isEmpty()) {
                          r.error(
                              dev,
                              path + ".overhead",
                              "at least one of perPod and perContainer must be set");
                        }
                        o.perPod().ifPresent(q -> nonNegative(path + ".overhead.perPod", q));
                        o.perContainer()
                            .ifPresent(q -> nonNegative(path + ".overhead.perContainer", q));
                      });
            });
  }

  private void mapping(String path, NodeAllocatableResource.Mapping m) {
    boolean byCapacity = m.capacityKey().isPresent() || m.capacityMultiplier().isPresent();
    boolean byDevice = m.deviceMultiplier().isPresent();
    if (byCapacity == byDevice) {
      r.error(
          dev,
          path,
          "set either capacityKey with capacityMultiplier, or deviceMultiplier"
              + (byCapacity ? ", not both" : ""));
    }
    m.capacityKey()
        .ifPresent(
            k -> {
              if (k.isEmpty()) {
                r.error(dev, path + ".capacityKey", "must not be empty");
              } else if (!d.capacity().containsKey(k)) {
                r.error(
                    dev,
                    path + ".capacityKey",
                    "\"" + k + "\" is not one of the device's capacities");
              }
              if (m.capacityMultiplier().isEmpty()) {
                r.error(dev, path + ".capacityMultiplier", "is required when capacityKey is set");
              }
            });
    if (m.capacityMultiplier().isPresent() && m.capacityKey().isEmpty()) {
      r.error(dev, path + ".capacityKey", "is required when capacityMultiplier is set");
    }
    m.capacityMultiplier().ifPresent(q -> positive(path + ".capacityMultiplier", q));
    m.deviceMultiplier().ifPresent(q -> positive(path + ".deviceMultiplier", q));
  }

  private void positive(String path, Quantity q) {
    if (q.signum() <= 0) {
      r.error(dev, path, q + " must be greater than zero");
    }
  }

  private void nonNegative(String path, Quantity q) {
    if (q.signum() < 0) {
      r.error(dev, path, q + " must not be negative");
    }
  }

  private static boolean isNodeAllocatable(String resource) {
    if (resource.equals("cpu")
        || resource.equals("memory")
        || resource.equals("ephemeral-storage")) {
      return true;
    }
    if (!resource.startsWith("hugepages-")) {
      return false;
    }
    try {
      return Quantity.parse(resource.substring("hugepages-".length())).signum() > 0;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
