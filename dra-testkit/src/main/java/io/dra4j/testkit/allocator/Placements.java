package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.kube.ResourceSlice;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What one search has placed so far, on top of what other claims hold: exclusive use, the capacity
 * taken from shared devices, the counters drawn from the pools' counter sets, the compatibility
 * groups joined, and the claim's constraints. A device is placed only where all of them still fit,
 * and each placement can be undone, so that the search can backtrack.
 */
final class Placements {
  private final AllocatedState state;
  private final List<Constraint> constraints;

  private final Deque<Placed> placed = new ArrayDeque<>();
  private final Map<DeviceKey, Integer> exclusive = new HashMap<>();
  private final Map<DeviceKey, Integer> uses = new HashMap<>();
  private final Map<DeviceKey, Map<String, BigDecimal>> capacity = new HashMap<>();
  private final Map<Pool, Map<String, Map<String, BigDecimal>>> available = new HashMap<>();
  private final Map<Pool, Map<String, Map<String, BigDecimal>>> consumed = new HashMap<>();
  private final Map<Pool, Map<String, GroupIntersection>> allocatedGroups = new HashMap<>();
  private final Map<Pool, Map<String, GroupIntersection>> placedGroups = new HashMap<>();

  /** One device placed for one request. */
  record Placed(
      Wanted wanted,
      Candidate candidate,
      boolean shared,
      Map<String, Quantity> consumedCapacity,
      Map<String, BigDecimal> qualifiedCapacity,
      boolean countersTaken,
      Map<String, GroupIntersection> groupsBefore) {}

  Placements(AllocatedState state, List<Constraint> constraints) {
    this.state = state;
    this.constraints = constraints;
  }

  /** How many devices are placed. */
  int size() {
    return placed.size();
  }

  /** The devices placed, in the order they were placed. */
  List<Placed> inOrder() {
    List<Placed> order = new ArrayList<>(placed);
    Collections.reverse(order);
    return order;
  }

  /** Tries to take the device for the request; on success the state records it. */
  boolean place(Wanted w, Candidate c) {
    Device device = c.device;
    DeviceKey key = c.key;
    boolean multi = device.allowMultipleAllocations();
    if (inUse(w, c) || untoleratedTaint(w, device).isPresent()) {
      return false;
    }
    Capacities.Fit fit = capacityFit(w, c, true);
    if (!fit.fits()) {
      return false;
    }
    // A device already in use (a further share) drew its counters and joined its groups then.
    boolean takeCounters = !device.consumesCounters().isEmpty() && !inUseAnyhow(key);
    if (takeCounters && (!groupsFit(c, true).isEmpty() || !countersFit(c, true).isEmpty())) {
      return false;
    }
    String subRequest = w.subRequest;
    for (int i = 0; i < constraints.size(); i++) {
      if (!constraints.get(i).add(w.request, subRequest, c.driver(), device)) {
        for (int j = i - 1; j >= 0; j--) {
          constraints.get(j).remove();
        }
        return false;
      }
    }
    Map<String, GroupIntersection> groupsBefore = Map.of();
    if (takeCounters) {
      takeCounters(c, BigDecimal.ONE);
      groupsBefore = joinGroups(c);
    }
    uses.merge(key, 1, Integer::sum);
    Map<String, Quantity> consumedCapacity = Map.of();
    if (multi) {
      consumedCapacity = fit.consumed();
      Map<String, BigDecimal> onDevice = capacity.computeIfAbsent(key, k -> new HashMap<>());
      fit.qualified().forEach((name, amount) -> onDevice.merge(name, amount, BigDecimal::add));
    } else {
      exclusive.merge(key, 1, Integer::sum);
    }
    placed.push(
        new Placed(w, c, multi, consumedCapacity, fit.qualified(), takeCounters, groupsBefore));
    return true;
  }

  void unplace() {
    Placed p = placed.pop();
    for (int j = constraints.size() - 1; j >= 0; j--) {
      constraints.get(j).remove();
    }
    DeviceKey key = p.candidate().key;
    if (p.countersTaken()) {
      takeCounters(p.candidate(), BigDecimal.ONE.negate());
      placedGroups.get(p.candidate().pool).putAll(p.groupsBefore());
    }
    uses.merge(key, -1, Integer::sum);
    if (p.shared()) {
      Map<String, BigDecimal> onDevice = capacity.get(key);
      p.qualifiedCapacity()
          .forEach((name, amount) -> onDevice.merge(name, amount.negate(), BigDecimal::add));
    } else {
      exclusive.merge(key, -1, Integer::sum);
    }
  }

  /**
   * Whether another allocation keeps the request from the device. Admin access ignores other
   * claims, but a device this claim already took for another request stays taken.
   */
  boolean inUse(Wanted w, Candidate c) {
    boolean takenHere = exclusive.getOrDefault(c.key, 0) > 0;
    if (w.adminAccess) {
      return takenHere && !c.device.allowMultipleAllocations();
    }
    return takenHere || state.exclusivelyAllocated().contains(c.key);
  }

  /** Whether the device is already allocated somehow (then its counters are already consumed). */
  private boolean inUseAnyhow(DeviceKey key) {
    return state.inUse(key) || uses.getOrDefault(key, 0) > 0;
  }

  /** NoSchedule and NoExecute taints block the device unless tolerated; None does not. */
  static Optional<DeviceTaint> untoleratedTaint(Wanted w, Device device) {
    for (DeviceTaint taint : device.taints()) {
      if (taint.effect() != TaintEffect.NO_SCHEDULE && taint.effect() != TaintEffect.NO_EXECUTE) {
        continue;
      }
      boolean tolerated = false;
      for (DeviceToleration t : w.tolerations) {
        tolerated |= t.tolerates(taint);
      }
      if (!tolerated) {
        return Optional.of(taint);
      }
    }
    return Optional.empty();
  }

  Capacities.Fit capacityFit(Wanted w, Candidate c, boolean withPlaced) {
    boolean multi = c.device.allowMultipleAllocations();
    return Capacities.fit(
        c.driver(),
        c.device,
        w.capacityRequests,
        multi ? state.consumedCapacity(c.key) : Map.of(),
        multi && withPlaced ? capacity.getOrDefault(c.key, Map.of()) : Map.of());
  }

  /** Empty when the pool's counter sets still have what the device draws; else the shortage. */
  String countersFit(Candidate c, boolean withPlaced) {
    Map<String, Map<String, BigDecimal>> left = available(c.pool);
    Map<String, Map<String, BigDecimal>> taken =
        withPlaced ? consumed.getOrDefault(c.pool, Map.of()) : Map.of();
    for (DeviceCounterConsumption draw : c.device.consumesCounters()) {
      Map<String, BigDecimal> set = left.getOrDefault(draw.counterSet(), Map.of());
      Map<String, BigDecimal> setTaken = taken.getOrDefault(draw.counterSet(), Map.of());
      for (Map.Entry<String, Counter> e : draw.counters().entrySet()) {
        BigDecimal free =
            set.getOrDefault(e.getKey(), BigDecimal.ZERO)
                .subtract(setTaken.getOrDefault(e.getKey(), BigDecimal.ZERO));
        if (free.compareTo(e.getValue().value().value()) < 0) {
          return "counter \""
              + e.getKey()
              + "\" of counter set \""
              + draw.counterSet()
              + "\" has "
              + Capacities.format(free, e.getValue().value())
              + " left, the device needs "
              + e.getValue().value();
        }
      }
    }
    return "";
  }

  private void takeCounters(Candidate c, BigDecimal sign) {
    Map<String, Map<String, BigDecimal>> taken =
        consumed.computeIfAbsent(c.pool, p -> new HashMap<>());
    for (DeviceCounterConsumption draw : c.device.consumesCounters()) {
      Map<String, BigDecimal> set = taken.computeIfAbsent(draw.counterSet(), s -> new HashMap<>());
      draw.counters()
          .forEach(
              (name, counter) ->
                  set.merge(name, counter.value().value().multiply(sign), BigDecimal::add));
    }
  }

  /**
   * Empty when the device's compatibility groups fit with every device on the counter sets it draws
   * from (allocated to other claims, and with {@code withPlaced} placed by this search); else why
   * not.
   */
  String groupsFit(Candidate c, boolean withPlaced) {
    Map<String, GroupIntersection> on =
        withPlaced ? groupsPlaced(c.pool) : groupsOfAllocated(c.pool);
    for (DeviceCounterConsumption draw : c.device.consumesCounters()) {
      GroupIntersection g = on.getOrDefault(draw.counterSet(), GroupIntersection.EMPTY);
      if (!g.admits(draw.compatibilityGroups())) {
        return "counter set \""
            + draw.counterSet()
            + "\" is in use by "
            + g.describe()
            + ", the device is "
            + (draw.compatibilityGroups().isEmpty()
                ? "in none"
                : "in " + draw.compatibilityGroups());
      }
    }
    return "";
  }

  /** Adds the device's groups to its counter sets; returns the values before, to undo it. */
  private Map<String, GroupIntersection> joinGroups(Candidate c) {
    Map<String, GroupIntersection> on = groupsPlaced(c.pool);
    Map<String, GroupIntersection> before = new HashMap<>();
    for (DeviceCounterConsumption draw : c.device.consumesCounters()) {
      GroupIntersection g = on.getOrDefault(draw.counterSet(), GroupIntersection.EMPTY);
      before.putIfAbsent(draw.counterSet(), g);
      on.put(draw.counterSet(), g.plus(draw.compatibilityGroups()));
    }
    return before;
  }

  private Map<String, GroupIntersection> groupsPlaced(Pool pool) {
    return placedGroups.computeIfAbsent(pool, p -> new HashMap<>(groupsOfAllocated(p)));
  }

  /** Per counter set, the groups of the pool's devices that other claims hold. */
  private Map<String, GroupIntersection> groupsOfAllocated(Pool pool) {
    return allocatedGroups.computeIfAbsent(
        pool,
        p -> {
          Map<String, GroupIntersection> on = new HashMap<>();
          forEachAllocatedDraw(
              p,
              draw ->
                  on.merge(
                      draw.counterSet(),
                      GroupIntersection.EMPTY.plus(draw.compatibilityGroups()),
                      (old, unused) -> old.plus(draw.compatibilityGroups())));
          return on;
        });
  }

  /** The pool's counters minus what devices allocated by other claims draw. */
  private Map<String, Map<String, BigDecimal>> available(Pool pool) {
    return available.computeIfAbsent(
        pool,
        p -> {
          Map<String, Map<String, BigDecimal>> left = new HashMap<>();
          p.counterSets.forEach((set, counters) -> left.put(set, new HashMap<>(counters)));
          forEachAllocatedDraw(
              p,
              draw -> {
                Map<String, BigDecimal> set = left.get(draw.counterSet());
                if (set == null) {
                  return;
                }
                draw.counters()
                    .forEach(
                        (name, counter) ->
                            set.computeIfPresent(
                                name, (n, v) -> v.subtract(counter.value().value())));
              });
          return left;
        });
  }

  /**
   * Each counter draw of the pool's devices that other claims hold, read from the slices as the
   * scheduler does (it keeps no copy in the claims).
   */
  private void forEachAllocatedDraw(Pool pool, Consumer<DeviceCounterConsumption> action) {
    for (List<ResourceSlice> group : List.of(pool.deviceSlices, pool.otherDeviceSlices)) {
      for (ResourceSlice s : group) {
        for (Device d : s.spec().devices()) {
          if (state.inUse(new DeviceKey(pool.driver, pool.name, d.name()))) {
            d.consumesCounters().forEach(action);
          }
        }
      }
    }
  }
}
