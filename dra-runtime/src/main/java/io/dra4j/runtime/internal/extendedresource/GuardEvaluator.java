package io.dra4j.runtime.internal.extendedresource;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.cel.CelDevice;
import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.CompiledSelector;
import io.dra4j.cel.SelectorCompileException;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.Node;
import io.dra4j.runtime.extendedresource.ExtendedResourceNames;
import io.dra4j.runtime.extendedresource.GuardReport.Conflict;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.extendedresource.GuardReport.Duplicate;
import io.dra4j.runtime.extendedresource.GuardReport.NameStatus;
import io.dra4j.runtime.extendedresource.GuardReport.Phase;
import io.dra4j.runtime.extendedresource.GuardReport.UnusableName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The guard's decisions as pure functions of the DeviceClasses, the Node and this driver's pools.
 *
 * <p>How a name reaches devices (KEP-5004): every class has the implicit name {@code
 * deviceclass.resource.kubernetes.io/<class>} (requestable only when the class name is a valid name
 * part) and optionally an explicit {@code extendedResourceName}; when several classes carry the
 * same explicit name the scheduler uses the newest (equal creation times: the lexicographically
 * first name). A class selects a device when all its selectors accept it; a class without selectors
 * selects every device of every driver.
 *
 * <p>Selectors the guard cannot evaluate (a CEL expression that does not compile here, which
 * Kubernetes accepted, or a selector of an unknown kind) count as accepting: the guard then errs
 * towards holding devices back rather than letting the node over-admit. A selector that fails for a
 * device at run time counts as rejecting it, as it can never allocate the device.
 *
 * <p>The extended-resource guard and the migration doctor both decide through this class, so the
 * doctor predicts what the guard will do.
 */
public final class GuardEvaluator {
  private GuardEvaluator() {}

  /**
   * Which class the scheduler uses for each requestable name.
   *
   * @param effective each requestable name (explicit, or implicit where the class name allows it)
   *     to the class the scheduler uses
   * @param duplicates explicit names carried by several classes, to those classes in the
   *     scheduler's order (the winner first)
   * @param unusableImplicit classes whose implicit name cannot be requested
   */
  public record Mapping(
      Map<String, DeviceClass> effective,
      Map<String, List<DeviceClass>> duplicates,
      List<DeviceClass> unusableImplicit) {}

  /** The full result for the report. */
  public record Evaluation(
      List<NameStatus> names,
      List<Conflict> conflicts,
      List<Duplicate> duplicates,
      List<UnusableName> unusable,
      List<String> problems) {}

  /** A class's selectors, compiled. */
  private record Compiled(List<CompiledSelector> selectors, List<String> problems) {}

  public static Mapping mapping(List<DeviceClass> classes) {
    Map<String, DeviceClass> effective = new TreeMap<>();
    Map<String, List<DeviceClass>> byExplicit = new TreeMap<>();
    List<DeviceClass> unusable = new ArrayList<>();
    for (DeviceClass c : sortedByName(classes)) {
      String name = c.metadata().name();
      if (ExtendedResourceNames.implicit(name).isEmpty()) {
        effective.put(ExtendedResourceNames.implicitName(name), c);
      } else {
        unusable.add(c);
      }
      // An invalid explicit name cannot be requested (the API server rejects such classes).
      c.spec()
          .extendedResourceName()
          .filter(n -> ExtendedResourceNames.explicit(n).isEmpty())
          .ifPresent(n -> byExplicit.computeIfAbsent(n, k -> new ArrayList<>()).add(c));
    }
    Map<String, List<DeviceClass>> duplicates = new TreeMap<>();
    byExplicit.forEach(
        (n, list) -> {
          List<DeviceClass> ordered = new ArrayList<>(list);
          ordered.sort(ExtendedResourceNames.SCHEDULER_ORDER);
          effective.put(n, ordered.get(0));
          if (ordered.size() > 1) {
            duplicates.put(n, List.copyOf(ordered));
          }
        });
    return new Mapping(effective, duplicates, unusable);
  }

  /**
   * Where a name stands on a node, from the node's status: allocatable above 0 is the device
   * plugin's (the scheduler's own rule, {@link Phase}); then capacity above 0 is a plugin the
   * kubelet still remembers; else DRA.
   */
  public static Phase phase(Optional<Quantity> capacity, Optional<Quantity> allocatable) {
    if (nonZero(allocatable)) {
      return Phase.DEVICE_PLUGIN;
    }
    return nonZero(capacity) ? Phase.PLUGIN_STOPPED : Phase.DRA;
  }

  private static boolean nonZero(Optional<Quantity> value) {
    return value.isPresent() && value.get().signum() != 0;
  }

  /** A name the node's status lists, its class and the devices of this driver the class selects. */
  private record Listed(
      String name,
      DeviceClass deviceClass,
      Optional<Quantity> capacity,
      Optional<Quantity> allocatable,
      List<DeviceRef> devices) {
    Phase phase() {
      return GuardEvaluator.phase(capacity, allocatable);
    }

    Conflict conflict(String nodeName) {
      return new Conflict(
          name, List.of(deviceClass.metadata().name()), nodeName, capacity, allocatable, devices);
    }
  }

  /**
   * Every name the node's status lists (capacity or allocatable, at any value: the kubelet keeps a
   * removed plugin's name at 0) whose class selects at least one of the devices in {@code pools}.
   */
  private static List<Listed> listed(
      String driver,
      Mapping mapping,
      Optional<Node> node,
      List<Pool> pools,
      CelSelectors selectors) {
    if (node.isEmpty()) {
      return List.of();
    }
    Node.Status status = node.get().status();
    TreeSet<String> names = new TreeSet<>(status.capacity().keySet());
    names.addAll(status.allocatable().keySet());
    List<Listed> out = new ArrayList<>();
    for (String name : names) {
      DeviceClass c = mapping.effective().get(name);
      if (c == null) {
        continue;
      }
      List<DeviceRef> devices = selected(driver, compile(c, selectors), pools, false);
      if (!devices.isEmpty()) {
        out.add(
            new Listed(
                name,
                c,
                Optional.ofNullable(status.capacity().get(name)),
                Optional.ofNullable(status.allocatable().get(name)),
                devices));
      }
    }
    return out;
  }

  /**
   * The names this node still makes allocatable (phase {@link Phase#DEVICE_PLUGIN}: the scheduler
   * sends their pods to the device plugin) whose class selects at least one of the devices in
   * {@code pools}.
   */
  public static List<Conflict> conflicts(
      String driver,
      String nodeName,
      Mapping mapping,
      Optional<Node> node,
      List<Pool> pools,
      CelSelectors selectors) {
    return listed(driver, mapping, node, pools, selectors).stream()
        .filter(l -> l.phase() == Phase.DEVICE_PLUGIN)
        .map(l -> l.conflict(nodeName))
        .toList();
  }

  /**
   * The names with their phases, conflicts, duplicates, unusable names and problems of the classes
   * that matter here.
   *
   * @param publishesInConflict whether the guard publishes the devices of a name in conflict (the
   *     {@code warn} policy)
   */
  public static Evaluation evaluate(
      String driver,
      String nodeName,
      List<DeviceClass> classes,
      Mapping mapping,
      Optional<Node> node,
      List<Pool> pools,
      CelSelectors selectors,
      boolean publishesInConflict) {
    List<Listed> listed = listed(driver, mapping, node, pools, selectors);
    List<NameStatus> names = new ArrayList<>();
    List<Conflict> conflicts = new ArrayList<>();
    for (Listed l : listed) {
      Phase phase = l.phase();
      names.add(
          new NameStatus(
              l.name(),
              l.deviceClass().metadata().name(),
              l.capacity(),
              l.allocatable(),
              phase,
              publishesInConflict || phase != Phase.DEVICE_PLUGIN));
      if (phase == Phase.DEVICE_PLUGIN) {
        conflicts.add(l.conflict(nodeName));
      }
    }
    Map<String, Boolean> matters = new TreeMap<>();
    List<String> problems = new ArrayList<>();
    for (DeviceClass c : sortedByName(classes)) {
      Compiled compiled = compile(c, selectors);
      for (String p : compiled.problems()) {
        problems.add("DeviceClass " + c.metadata().name() + ": " + p);
      }
      c.spec()
          .extendedResourceName()
          .ifPresent(
              n -> {
                List<String> bad = ExtendedResourceNames.explicit(n);
                if (!bad.isEmpty()) {
                  problems.add(
                      "DeviceClass "
                          + c.metadata().name()
                          + ": spec.extendedResourceName \""
                          + n
                          + "\" is ignored, it "
                          + String.join("; ", bad));
                }
              });
    }
    List<Duplicate> duplicates = new ArrayList<>();
    mapping
        .duplicates()
        .forEach(
            (name, ordered) -> {
              boolean ours =
                  ordered.stream().anyMatch(c -> selectsAny(driver, c, pools, selectors, matters));
              if (ours) {
                duplicates.add(
                    new Duplicate(
                        name,
                        ordered.get(0).metadata().name(),
                        ordered.subList(1, ordered.size()).stream()
                            .map(c -> c.metadata().name())
                            .toList()));
              }
            });
    List<UnusableName> unusable = new ArrayList<>();
    for (DeviceClass c : mapping.unusableImplicit()) {
      if (selectsAny(driver, c, pools, selectors, matters)) {
        String name = c.metadata().name();
        unusable.add(
            new UnusableName(
                name,
                ExtendedResourceNames.implicitName(name),
                String.join("; ", ExtendedResourceNames.implicit(name))));
      }
    }
    return new Evaluation(names, conflicts, duplicates, unusable, problems);
  }

  private static boolean selectsAny(
      String driver,
      DeviceClass c,
      List<Pool> pools,
      CelSelectors selectors,
      Map<String, Boolean> memo) {
    return memo.computeIfAbsent(
        c.metadata().name(), k -> !selected(driver, compile(c, selectors), pools, true).isEmpty());
  }

  /** This driver's devices in {@code pools} that every selector accepts. */
  public static List<DeviceRef> selected(
      String driver, DeviceClass c, List<Pool> pools, CelSelectors selectors) {
    return selected(driver, compile(c, selectors), pools, false);
  }

  private static List<DeviceRef> selected(
      String driver, Compiled compiled, List<Pool> pools, boolean firstOnly) {
    List<DeviceRef> out = new ArrayList<>();
    for (Pool p : pools) {
      for (Device d : p.devices()) {
        if (accepts(driver, compiled, d)) {
          out.add(new DeviceRef(p.name(), d.name()));
          if (firstOnly) {
            return out;
          }
        }
      }
    }
    return out;
  }

  private static boolean accepts(String driver, Compiled compiled, Device d) {
    if (compiled.selectors().isEmpty()) {
      return true;
    }
    CelDevice view = CelDevice.of(driver, d);
    for (CompiledSelector s : compiled.selectors()) {
      if (!s.matchesTreatingErrorsAsNoMatch(view)) {
        return false;
      }
    }
    return true;
  }

  private static Compiled compile(DeviceClass c, CelSelectors selectors) {
    List<CompiledSelector> out = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<DeviceSelector> list = c.spec().selectors();
    for (int i = 0; i < list.size(); i++) {
      Optional<DeviceSelector.Cel> cel = list.get(i).cel();
      if (cel.isEmpty()) {
        problems.add(
            "spec.selectors["
                + i
                + "] is not a CEL selector; the guard cannot evaluate it and assumes it accepts"
                + " every device");
        continue;
      }
      try {
        out.add(selectors.compile(cel.get().expression()));
      } catch (SelectorCompileException e) {
        problems.add(
            "spec.selectors["
                + i
                + "].cel does not compile here ("
                + e.getMessage()
                + "); the guard assumes it accepts every device");
      }
    }
    return new Compiled(out, problems);
  }

  private static List<DeviceClass> sortedByName(List<DeviceClass> classes) {
    List<DeviceClass> sorted = new ArrayList<>(classes);
    sorted.sort(Comparator.comparing(c -> c.metadata().name()));
    return sorted;
  }
}
