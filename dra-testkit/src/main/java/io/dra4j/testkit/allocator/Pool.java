package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.kube.Node;
import io.dra4j.kube.NodeSelectors;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One resource pool as the allocator sees it from one node: the slices of its newest generation
 * that are usable there, whether it is complete and valid, and its counter sets.
 */
final class Pool {
  final String driver;
  final String name;
  final long generation;
  final long sliceCount;
  final int slicesPresent;

  /** Why the pool cannot be used; empty when it can. */
  final String problem;

  /** Device slices usable on the node, in name order. */
  final List<ResourceSlice> deviceSlices;

  /** Device slices of the same generation not usable on the node: their devices draw counters. */
  final List<ResourceSlice> otherDeviceSlices;

  /** Counter set name to counter name to total. */
  final Map<String, Map<String, BigDecimal>> counterSets;

  private Pool(
      String driver,
      String name,
      long generation,
      long sliceCount,
      int slicesPresent,
      String problem,
      List<ResourceSlice> deviceSlices,
      List<ResourceSlice> otherDeviceSlices,
      Map<String, Map<String, BigDecimal>> counterSets) {
    this.driver = driver;
    this.name = name;
    this.generation = generation;
    this.sliceCount = sliceCount;
    this.slicesPresent = slicesPresent;
    this.problem = problem;
    this.deviceSlices = deviceSlices;
    this.otherDeviceSlices = otherDeviceSlices;
    this.counterSets = counterSets;
  }

  boolean usable() {
    return problem.isEmpty();
  }

  String id() {
    return driver + "/" + name;
  }

  /**
   * The pools usable from {@code node}, ordered by driver and pool name, plus notes on the rest.
   */
  static Scan gather(List<ResourceSlice> slices, Node node) {
    Map<List<String>, List<ResourceSlice>> relevant = new TreeMap<>(Pool::compareIds);
    for (ResourceSlice slice : slices) {
      ResourceSliceSpec spec = slice.spec();
      boolean use;
      if (!spec.sharedCounters().isEmpty()) {
        // Counter sets are needed by every device of the pool, wherever those devices are.
        use = true;
      } else if (spec.nodeName().filter(n -> !n.isEmpty()).isPresent()
          || spec.allNodes()
          || spec.nodeSelector().isPresent()) {
        use = NodeSelectors.matches(node, spec.nodeName(), spec.allNodes(), spec.nodeSelector());
      } else if (spec.perDeviceNodeSelection()) {
        use =
            spec.devices().stream()
                .anyMatch(
                    d -> NodeSelectors.matches(node, d.nodeName(), d.allNodes(), d.nodeSelector()));
      } else {
        // No node selection this allocator knows: a future extension; skip the slice.
        use = false;
      }
      if (!use) {
        continue;
      }
      List<ResourceSlice> kept =
          relevant.computeIfAbsent(
              List.of(spec.driver(), spec.pool().name()), k -> new ArrayList<>());
      long have = kept.isEmpty() ? Long.MIN_VALUE : kept.get(0).spec().pool().generation();
      if (spec.pool().generation() > have) {
        kept.clear();
      }
      if (spec.pool().generation() >= have) {
        kept.add(slice);
      }
    }

    List<Pool> pools = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (Map.Entry<List<String>, List<ResourceSlice>> e : relevant.entrySet()) {
      String driver = e.getKey().get(0);
      String poolName = e.getKey().get(1);
      List<ResourceSlice> kept = e.getValue();
      ResourceSliceSpec.ResourcePool first = kept.get(0).spec().pool();
      long generation = first.generation();
      List<ResourceSlice> all = new ArrayList<>();
      long newer = Long.MIN_VALUE;
      for (ResourceSlice s : slices) {
        if (!s.spec().driver().equals(driver) || !s.spec().pool().name().equals(poolName)) {
          continue;
        }
        if (s.spec().pool().generation() == generation) {
          all.add(s);
        } else if (s.spec().pool().generation() > generation) {
          newer = Math.max(newer, s.spec().pool().generation());
        }
      }
      String id = driver + "/" + poolName;
      if (newer != Long.MIN_VALUE) {
        // The driver is replacing this generation and the new one has nothing for this node yet.
        notes.add(
            "pool "
                + id
                + " ignored: generation "
                + generation
                + " is being replaced by generation "
                + newer
                + ", which has no slice usable on this node");
        continue;
      }
      long sliceCount = first.resourceSliceCount();
      if (all.size() != sliceCount) {
        String problem =
            "incomplete: "
                + all.size()
                + " of "
                + sliceCount
                + " slices of generation "
                + generation
                + " published";
        pools.add(
            new Pool(
                driver,
                poolName,
                generation,
                sliceCount,
                all.size(),
                problem,
                List.of(),
                List.of(),
                Map.of()));
        notes.add("pool " + id + " ignored: " + problem);
        continue;
      }
      pools.add(build(driver, poolName, generation, sliceCount, kept, all, notes));
    }
    return new Scan(List.copyOf(pools), List.copyOf(notes));
  }

  private static Pool build(
      String driver,
      String poolName,
      long generation,
      long sliceCount,
      List<ResourceSlice> kept,
      List<ResourceSlice> all,
      List<String> notes) {
    Comparator<ResourceSlice> byName = Comparator.comparing(s -> s.metadata().name());
    List<ResourceSlice> deviceSlices = new ArrayList<>();
    Map<String, Map<String, BigDecimal>> counterSets = new LinkedHashMap<>();
    String problem = "";
    for (ResourceSlice s : kept) {
      if (s.spec().sharedCounters().isEmpty()) {
        deviceSlices.add(s);
      }
    }
    for (ResourceSlice s : all) {
      for (CounterSet set : s.spec().sharedCounters()) {
        if (counterSets.containsKey(set.name())) {
          problem = "invalid: duplicate counter set name \"" + set.name() + "\"";
        }
        Map<String, BigDecimal> counters = new TreeMap<>();
        for (Map.Entry<String, Counter> c : set.counters().entrySet()) {
          counters.put(c.getKey(), c.getValue().value().value());
        }
        counterSets.put(set.name(), counters);
      }
    }
    deviceSlices.sort(byName);
    Set<String> keptNames = new HashSet<>();
    kept.forEach(s -> keptNames.add(s.metadata().name()));
    List<ResourceSlice> others = new ArrayList<>();
    for (ResourceSlice s : all) {
      if (!keptNames.contains(s.metadata().name()) && !s.spec().devices().isEmpty()) {
        others.add(s);
      }
    }
    others.sort(byName);
    if (problem.isEmpty()) {
      Set<String> deviceNames = new HashSet<>();
      outer:
      for (ResourceSlice s : deviceSlices) {
        for (Device d : s.spec().devices()) {
          if (!deviceNames.add(d.name())) {
            problem = "invalid: duplicate device name \"" + d.name() + "\"";
            break outer;
          }
        }
      }
    }
    if (problem.isEmpty()) {
      problem = counterProblem(counterSets, deviceSlices);
    }
    if (problem.isEmpty()) {
      problem = counterProblem(counterSets, others);
    }
    String id = driver + "/" + poolName;
    if (!problem.isEmpty()) {
      notes.add("pool " + id + " ignored: " + problem);
      return new Pool(
          driver,
          poolName,
          generation,
          sliceCount,
          all.size(),
          problem,
          List.of(),
          List.of(),
          Map.of());
    }
    return new Pool(
        driver,
        poolName,
        generation,
        sliceCount,
        all.size(),
        "",
        List.copyOf(deviceSlices),
        List.copyOf(others),
        counterSets);
  }

  private static String counterProblem(
      Map<String, Map<String, BigDecimal>> counterSets, List<ResourceSlice> slices) {
    for (ResourceSlice s : slices) {
      for (Device d : s.spec().devices()) {
        for (DeviceCounterConsumption c : d.consumesCounters()) {
          Map<String, BigDecimal> set = counterSets.get(c.counterSet());
          if (set == null) {
            return "invalid: device \""
                + d.name()
                + "\" consumes counters of counter set \""
                + c.counterSet()
                + "\", which the pool does not publish";
          }
          for (String counter : c.counters().keySet()) {
            if (!set.containsKey(counter)) {
              return "invalid: device \""
                  + d.name()
                  + "\" consumes counter \""
                  + counter
                  + "\", which counter set \""
                  + c.counterSet()
                  + "\" does not have";
            }
          }
        }
      }
    }
    return "";
  }

  private static int compareIds(List<String> a, List<String> b) {
    int c = a.get(0).compareTo(b.get(0));
    return c != 0 ? c : a.get(1).compareTo(b.get(1));
  }

  /**
   * The result of {@link #gather}.
   *
   * @param pools every pool with at least one slice usable on the node, usable or not
   * @param notes why pools are ignored
   */
  record Scan(List<Pool> pools, List<String> notes) {}
}
