package io.dra4j.validation;

import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.api.provider.SkipNodeOperation;
import io.dra4j.kube.KubeNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks desired pools against every ResourceSlice rule of the API server (Kubernetes 1.35+, the
 * strictest release) before anything is sent, and collects all violations of a pool instead of
 * stopping at the first: a vendor fixing a driver wants the full list, and the API server would
 * otherwise reject one slice at a time.
 *
 * <p>Decisions beyond the API server's own rules, each chosen to catch a mistake early:
 *
 * <ul>
 *   <li>Upper-case letters in the driver name (or an attribute domain) are a <b>warning</b>. The
 *       API server validates driver names case-insensitively and only warns since 1.35, so an error
 *       would reject a driver Kubernetes accepts; but the kubelet matches the registered plugin
 *       name and allocation results by exact string, and DeviceClass selectors compare {@code
 *       device.driver} exactly, so mixed case is almost always a mistake.
 *   <li>Attributes and capacities in a {@code kubernetes.io} domain are errors unless they are one
 *       of the standardized attributes, with the standardized type and format: other names there
 *       are reserved, and a wrongly formatted standard attribute silently breaks {@code
 *       matchAttribute} across drivers. {@code resource.kubernetes.io/pcieRoot} is also accepted as
 *       a list of roots (as CPU drivers publish it for CPUs that span roots).
 *   <li>An unqualified attribute and the same name qualified with the driver's domain denote one
 *       attribute; having both is a warning (the API server picks the qualified one).
 *   <li>Capacity request policy values are checked with exact decimal arithmetic. Fractional {@code
 *       validRange} values need Kubernetes 1.37 (DRAFractionalCapacityRange): they are a warning
 *       when exact in milli-units and an error otherwise.
 *   <li>Per-slice limits on the number of devices and counter sets are not pool limits: the
 *       publisher's layout ({@code io.dra4j.runtime.internal.slices.SliceLayout}) splits any number
 *       of devices and counter sets into slices within the limits, so they are not checked here.
 * </ul>
 *
 * <p>The result of each pool is independent of other pools, so one bad pool does not stop the
 * publisher from publishing the others.
 */
public final class PoolValidator {
  private PoolValidator() {}

  private static final Set<String> NODE_SELECTOR_OPERATORS =
      Set.of("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt");

  /**
   * Why {@code name} cannot be an attribute or capacity key ({@code name} or {@code domain/name},
   * the name a C identifier of at most 32 characters, the domain like a driver name); empty when it
   * can. For tools that write selectors on a driver's attributes.
   */
  public static List<String> attributeNameProblems(String name) {
    return Names.qualifiedName(name);
  }

  /** Validates every pool of an inventory; pool names must also be unique across it. */
  public static InventoryValidation validate(String driver, Inventory inventory) {
    return validate(driver, inventory.pools());
  }

  /** Validates each pool on its own, plus uniqueness of the pool names. */
  public static InventoryValidation validate(String driver, List<Pool> pools) {
    Map<String, Integer> uses = new HashMap<>();
    for (Pool p : pools) {
      uses.merge(p.name(), 1, Integer::sum);
    }
    List<PoolValidation> results = new ArrayList<>();
    for (Pool p : pools) {
      Report report = check(driver, p);
      int n = uses.get(p.name());
      if (n > 1) {
        report.error(
            Optional.empty(),
            "name",
            "the pool name is used by " + n + " pools of this driver; pool names must be unique");
      }
      results.add(report.result());
    }
    return new InventoryValidation(results);
  }

  /** Validates one pool of the given driver. */
  public static PoolValidation validate(String driver, Pool pool) {
    return check(driver, pool).result();
  }

  private static Report check(String driver, Pool pool) {
    Report r = new Report(driver, pool);
    Optional<String> none = Optional.empty();

    for (String p : Names.driverName(driver)) {
      r.error(none, "driver", "driver name \"" + driver + "\" " + p);
    }
    if (Names.hasUpperCase(driver)) {
      r.warn(
          none,
          "driver",
          "driver name \""
              + driver
              + "\" has upper-case letters: the API server accepts it, but the kubelet, allocation"
              + " results and DeviceClass selectors compare driver names exactly; use lower case");
    }
    for (String p : Names.poolName(pool.name())) {
      r.error(none, "name", "pool name " + p);
    }
    if (pool.scope().kind() == PoolScope.Kind.NODE_SELECTOR) {
      checkNodeSelector(r, none, "scope.nodeSelector", pool.scope().nodeSelector().orElseThrow());
    }

    Map<String, CounterSet> counterSets = new LinkedHashMap<>();
    for (int i = 0; i < pool.counterSets().size(); i++) {
      checkCounterSet(r, i, pool.counterSets().get(i), counterSets);
    }

    Map<String, Integer> firstIndex = new HashMap<>();
    for (int i = 0; i < pool.devices().size(); i++) {
      Device d = pool.devices().get(i);
      Integer first = firstIndex.putIfAbsent(d.name(), i);
      if (first != null) {
        r.error(
            Optional.of(d.name()),
            "name",
            "duplicate device name: devices["
                + first
                + "] and devices["
                + i
                + "] have it; device names must be unique in the pool");
      }
      new DeviceCheck(r, driver, pool.scope().kind(), counterSets, d).run();
    }
    checkSkipNodeOperations(r, pool.skipNodeOperations());
    pool.partitionTypeAttribute()
        .ifPresent(name -> checkPartitionTypeAttribute(r, driver, pool, name));
    return r;
  }

  /**
   * The API server's own rule (k8s.io/kubernetes v1.37.2
   * pkg/apis/resource/validation/validation.go:888 and :940-951, validateSkipNodeOperations): a
   * device whose prepare is skipped must have its unprepare skipped too. Unique and known values
   * (the declarative rules, v1/zz_generated.validations.go:3747-3753) the enum set guarantees.
   */
  private static void checkSkipNodeOperations(Report r, Set<SkipNodeOperation> ops) {
    if (ops.contains(SkipNodeOperation.NODE_PREPARE_RESOURCES)
        && !ops.contains(SkipNodeOperation.NODE_UNPREPARE_RESOURCES)
        && !ops.contains(SkipNodeOperation.ALL)) {
      r.error(
          Optional.empty(),
          "skipNodeOperations",
          "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"
              + " (or * is)");
    }
  }

  /**
   * The API server's rules for {@code partitionTypeAttribute} (validation.go:884-886 and :897-933,
   * validatePartitionTypeAttribute; :960-970, lookupQualifiedAttribute; the fully-qualified-name
   * format, :1645-1654 and v1/zz_generated.validations.go:3689-3725): the layout puts it only on
   * slices with devices that consume counters, so the pool needs such devices, and each of them
   * must carry the named attribute as a string, under its full name or, in the driver's own domain,
   * its bare name.
   */
  private static void checkPartitionTypeAttribute(Report r, String driver, Pool pool, String name) {
    Optional<String> none = Optional.empty();
    List<String> problems = Names.fullyQualifiedName(name);
    if (!problems.isEmpty()) {
      for (String p : problems) {
        r.error(none, "partitionTypeAttribute", "\"" + name + "\" " + p);
      }
      return;
    }
    if (pool.devices().stream().allMatch(d -> d.consumesCounters().isEmpty())) {
      r.error(
          none,
          "partitionTypeAttribute",
          "may only be set on a pool with devices that consume counters (the API server allows it"
              + " only on slices declaring such devices)");
      return;
    }
    String bare = name.startsWith(driver + "/") ? name.substring(driver.length() + 1) : "";
    for (Device d : pool.devices()) {
      if (d.consumesCounters().isEmpty()) {
        continue;
      }
      DeviceAttribute a = d.attributes().get(name);
      if (a == null && !bare.isEmpty()) {
        a = d.attributes().get(bare);
      }
      String path = "attributes" + key(name);
      if (a == null) {
        r.error(
            Optional.of(d.name()),
            path,
            "is required: the device consumes counters and the pool's partitionTypeAttribute"
                + " names this attribute");
      } else if (!(a instanceof DeviceAttribute.StringValue)) {
        r.error(
            Optional.of(d.name()),
            path,
            "must be a string value because the pool's partitionTypeAttribute names this"
                + " attribute");
      }
    }
  }

  private static void checkCounterSet(
      Report r, int index, CounterSet set, Map<String, CounterSet> seen) {
    Optional<String> none = Optional.empty();
    String path = "counterSets[" + index + "]";
    for (String p : KubeNames.dnsLabel(set.name())) {
      r.error(none, path + ".name", "counter set name \"" + set.name() + "\" " + p);
    }
    if (seen.putIfAbsent(set.name(), set) != null) {
      r.error(
          none,
          path + ".name",
          "duplicate counter set name \""
              + set.name()
              + "\"; counter set names must be unique in the pool");
    }
    if (set.counters().isEmpty()) {
      r.error(none, path + ".counters", "a counter set needs at least one counter");
    }
    if (set.counters().size() > Limits.MAX_COUNTERS_PER_COUNTER_SET) {
      r.error(
          none,
          path + ".counters",
          "has "
              + set.counters().size()
              + " counters, the limit is "
              + Limits.MAX_COUNTERS_PER_COUNTER_SET);
    }
    for (String counter : set.counters().keySet()) {
      for (String p : KubeNames.dnsLabel(counter)) {
        r.error(none, path + ".counters" + key(counter), "counter name " + p);
      }
    }
  }

  static void checkNodeSelector(
      Report r, Optional<String> device, String path, NodeSelector selector) {
    int terms = selector.nodeSelectorTerms().size();
    if (terms != 1) {
      r.error(
          device,
          path + ".nodeSelectorTerms",
          "must have exactly one node selector term, it has " + terms);
    }
    for (int t = 0; t < terms; t++) {
      NodeSelector.Term term = selector.nodeSelectorTerms().get(t);
      String termPath = path + ".nodeSelectorTerms[" + t + "]";
      if (term.matchExpressions().isEmpty() && term.matchFields().isEmpty()) {
        r.warn(device, termPath, "an empty node selector term matches no node");
      }
      for (int i = 0; i < term.matchExpressions().size(); i++) {
        checkRequirement(
            r, device, termPath + ".matchExpressions[" + i + "]", term.matchExpressions().get(i));
      }
      for (int i = 0; i < term.matchFields().size(); i++) {
        checkFieldRequirement(
            r, device, termPath + ".matchFields[" + i + "]", term.matchFields().get(i));
      }
    }
  }

  private static void checkRequirement(
      Report r, Optional<String> device, String path, NodeSelector.Requirement req) {
    for (String p : KubeNames.qualifiedName(req.key() == null ? "" : req.key())) {
      r.error(device, path + ".key", "label key \"" + req.key() + "\" " + p);
    }
    String op = req.operator() == null ? "" : req.operator();
    int n = req.values().size();
    switch (op) {
      case "In", "NotIn" -> {
        if (n == 0) {
          r.error(device, path + ".values", "must not be empty for operator " + op);
        }
        for (int i = 0; i < n; i++) {
          for (String p : KubeNames.labelValue(req.values().get(i))) {
            r.error(device, path + ".values[" + i + "]", "label value " + p);
          }
        }
      }
      case "Exists", "DoesNotExist" -> {
        if (n > 0) {
          r.error(device, path + ".values", "must be empty for operator " + op);
        }
      }
      case "Gt", "Lt" -> {
        if (n != 1) {
          r.error(device, path + ".values", "must have exactly one value for operator " + op);
        } else if (!req.values().get(0).matches("-?[0-9]+")) {
          r.error(device, path + ".values[0]", "must be an integer for operator " + op);
        }
      }
      default ->
          r.error(
              device,
              path + ".operator",
              "\"" + op + "\" is not one of " + String.join(", ", sorted(NODE_SELECTOR_OPERATORS)));
    }
  }

  private static void checkFieldRequirement(
      Report r, Optional<String> device, String path, NodeSelector.Requirement req) {
    if (!"metadata.name".equals(req.key())) {
      r.error(
          device, path + ".key", "\"" + req.key() + "\" is not supported, only metadata.name is");
    }
    if (!"In".equals(req.operator()) && !"NotIn".equals(req.operator())) {
      r.error(device, path + ".operator", "must be In or NotIn for a field selector");
    }
    if (req.values().size() != 1) {
      r.error(device, path + ".values", "must have exactly one value for a field selector");
    }
    for (int i = 0; i < req.values().size(); i++) {
      for (String p : KubeNames.dnsSubdomain(req.values().get(i))) {
        r.error(device, path + ".values[" + i + "]", "node name " + p);
      }
    }
  }

  static String key(String k) {
    return "[\"" + k + "\"]";
  }

  private static List<String> sorted(Set<String> set) {
    return set.stream().sorted().toList();
  }
}
