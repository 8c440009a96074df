package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.CompiledSelector;
import io.dra4j.cel.SelectorCompileException;
import io.dra4j.cel.SelectorEvaluationException;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.CapacityRequirements;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceClaimConfiguration;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceConstraint;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.DeviceSubRequest;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.Node;
import io.dra4j.kube.RequestNames;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One allocation attempt: the scheduler's search for one claim on one node.
 *
 * <p>The search is the scheduler's: requests in claim order; for each request the devices in pool
 * order (driver, pool name), slice name order, device order; a device that fits is taken and the
 * search moves on; when a later request (or a constraint) cannot be satisfied it backtracks and
 * tries the next combination. The first complete solution wins. For a firstAvailable request the
 * subrequests are tried in order.
 */
final class Search {

  /** {@code AllocationResultsMaxSize}. */
  static final int MAX_RESULTS = 32;

  private final CelSelectors selectors;
  private final Supplier<String> shareIds;
  private final long budget;
  private final List<ResourceSlice> slices;
  private final Map<String, DeviceClass> classes = new HashMap<>();
  private final ResourceClaim claim;
  private final Node node;
  private final AllocatedState state;

  private Pool.Scan scan;
  private final List<Candidate> candidates = new ArrayList<>();
  private final List<Wanted.Group> groups = new ArrayList<>();
  private final List<Constraint> constraints = new ArrayList<>();

  // Search state: what this run has placed so far.
  private final Deque<Placed> placed = new ArrayDeque<>();
  private final Map<DeviceKey, Integer> exclusive = new HashMap<>();
  private final Map<DeviceKey, Integer> uses = new HashMap<>();
  private final Map<DeviceKey, Map<String, BigDecimal>> capacity = new HashMap<>();
  private final Map<Pool, Map<String, Map<String, BigDecimal>>> available = new HashMap<>();
  private final Map<Pool, Map<String, Map<String, BigDecimal>>> consumed = new HashMap<>();
  private final Map<Pool, Map<String, GroupIntersection>> allocatedGroups = new HashMap<>();
  private final Map<Pool, Map<String, GroupIntersection>> placedGroups = new HashMap<>();
  private long attempts;
  private boolean budgetExceeded;

  /** Set once the search failed: selector errors are then collected for the reason, not thrown. */
  private boolean diagnosing;

  /** One device placed for one request. */
  private record Placed(
      Wanted wanted,
      Candidate candidate,
      boolean shared,
      Map<String, Quantity> consumedCapacity,
      Map<String, BigDecimal> qualifiedCapacity,
      boolean countersTaken,
      Map<String, GroupIntersection> groupsBefore) {}

  /** Thrown while preparing: the claim cannot be allocated at all. */
  private static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;
    final String request;

    Refusal(String request, String reason) {
      super(reason, null, false, false);
      this.request = request;
    }
  }

  /**
   * A selector failed to evaluate for a device the search reached: kube-scheduler's allocator
   * returns that error for the whole claim (no other device is tried), and so does this one.
   */
  private static final class SelectorFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String request;

    SelectorFailed(String request, String reason) {
      super(reason, null, false, false);
      this.request = request;
    }
  }

  Search(
      CelSelectors selectors,
      Supplier<String> shareIds,
      long budget,
      List<ResourceSlice> slices,
      List<DeviceClass> deviceClasses,
      ResourceClaim claim,
      Node node,
      AllocatedState state) {
    this.selectors = selectors;
    this.shareIds = shareIds;
    this.budget = budget;
    this.slices = slices;
    for (DeviceClass c : deviceClasses) {
      classes.putIfAbsent(c.metadata().name(), c);
    }
    this.claim = claim;
    this.node = node;
    this.state = state;
  }

  AllocationOutcome run() {
    scan = Pool.gather(slices, node);
    for (Pool pool : scan.pools()) {
      if (!pool.usable()) {
        continue;
      }
      for (ResourceSlice slice : pool.deviceSlices) {
        for (Device device : slice.spec().devices()) {
          candidates.add(new Candidate(pool, slice, device));
        }
      }
    }
    try {
      prepare();
      if (request(0)) {
        return new AllocationOutcome.Allocated(result());
      }
    } catch (Refusal r) {
      return unsatisfiable(r.request, r.getMessage());
    } catch (SelectorFailed f) {
      return unsatisfiable(f.request, f.getMessage());
    }
    if (budgetExceeded) {
      return unsatisfiable(
          "",
          "gave up after "
              + budget
              + " placement attempts without finding a combination of devices that satisfies"
              + " every request and constraint");
    }
    return diagnose();
  }

  // ---------------------------------------------------------------------------------------------
  // Preparation

  private void prepare() throws Refusal {
    long minDevices = 0;
    for (DeviceRequest r : claim.spec().devices().requests()) {
      Wanted.Group group;
      if (r.exactly().isPresent()) {
        ExactDeviceRequest e = r.exactly().get();
        group = new Wanted.Group(r.name(), false);
        group.alternatives.add(
            wanted(
                r.name(),
                "",
                e.deviceClassName(),
                e.selectors(),
                e.allocationMode(),
                e.count(),
                e.adminAccess().orElse(false),
                e.tolerations(),
                e.capacity()));
      } else if (!r.firstAvailable().isEmpty()) {
        group = new Wanted.Group(r.name(), true);
        for (DeviceSubRequest s : r.firstAvailable()) {
          group.alternatives.add(
              wanted(
                  r.name(),
                  s.name(),
                  s.deviceClassName(),
                  s.selectors(),
                  s.allocationMode(),
                  s.count(),
                  false,
                  s.tolerations(),
                  s.capacity()));
        }
      } else {
        throw new Refusal(
            r.name(), "neither exactly nor firstAvailable is set (unsupported request type?)");
      }
      groups.add(group);
      minDevices += group.minDevices();
    }
    if (minDevices > MAX_RESULTS) {
      throw new Refusal(
          "",
          "the requests need at least "
              + minDevices
              + " devices, more than the "
              + MAX_RESULTS
              + " results an allocation can hold");
    }
    int i = 0;
    for (DeviceConstraint c : claim.spec().devices().constraints()) {
      int index = i++;
      constraints.add(
          Constraint.of(c)
              .orElseThrow(
                  () ->
                      new Refusal(
                          "",
                          "constraint #"
                              + index
                              + " sets neither matchAttribute nor distinctAttribute"
                              + " (unsupported constraint type?)")));
    }
  }

  private Wanted wanted(
      String request,
      String sub,
      String className,
      List<DeviceSelector> requestSelectors,
      String mode,
      long count,
      boolean adminAccess,
      List<DeviceToleration> tolerations,
      Optional<CapacityRequirements> capacityRequests)
      throws Refusal {
    String name = RequestNames.of(request, Optional.of(sub).filter(s -> !s.isEmpty()));
    DeviceClass deviceClass = classes.get(className);
    if (deviceClass == null) {
      throw new Refusal(name, "device class \"" + className + "\" does not exist");
    }
    List<CompiledSelector> classSel =
        compile(name, "device class \"" + className + "\"", deviceClass.spec().selectors());
    List<CompiledSelector> reqSel = compile(name, "the request", requestSelectors);
    boolean all;
    if (mode.isEmpty() || mode.equals("ExactCount")) {
      all = false;
      if (count < 0) {
        throw new Refusal(name, "count " + count + " is negative");
      }
    } else if (mode.equals("All")) {
      all = true;
    } else {
      throw new Refusal(
          name, "allocationMode \"" + mode + "\" is not supported (ExactCount or All)");
    }
    Wanted w =
        new Wanted(
            request,
            sub,
            deviceClass,
            classSel,
            reqSel,
            all,
            count == 0 ? 1 : count,
            adminAccess,
            tolerations,
            capacityRequests.map(CapacityRequirements::requests).orElse(Map.of()));
    w.selectable = new Wanted.Selectable[candidates.size()];
    if (all) {
      for (Pool pool : scan.pools()) {
        if (!pool.usable()) {
          throw new Refusal(
              name, "asks for all matching devices, but pool " + pool.id() + " is " + pool.problem);
        }
      }
      List<Candidate> devices = new ArrayList<>();
      for (int i = 0; i < candidates.size(); i++) {
        Candidate c = candidates.get(i);
        if (selectable(w, i) == Wanted.Selectable.SELECTABLE && capacityFit(w, c, false).fits()) {
          devices.add(c);
        }
      }
      w.allDevices = List.copyOf(devices);
    }
    return w;
  }

  private List<CompiledSelector> compile(String request, String owner, List<DeviceSelector> list)
      throws Refusal {
    List<CompiledSelector> compiled = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      DeviceSelector s = list.get(i);
      if (s.cel().isEmpty()) {
        throw new Refusal(
            request,
            owner + ": selector #" + i + " has no CEL expression (unsupported selector type?)");
      }
      try {
        compiled.add(selectors.compile(s.cel().get().expression()));
      } catch (SelectorCompileException e) {
        throw new Refusal(request, owner + ": selector #" + i + ": " + e.getMessage());
      }
    }
    return compiled;
  }

  // ---------------------------------------------------------------------------------------------
  // The search

  private boolean request(int groupIndex) {
    if (groupIndex == groups.size()) {
      return true;
    }
    Wanted.Group group = groups.get(groupIndex);
    for (int i = 0; i < group.alternatives.size(); i++) {
      Wanted w = group.alternatives.get(i);
      if (w.all && w.allDevices.isEmpty()) {
        continue;
      }
      if (placed.size() + w.numDevices() > MAX_RESULTS) {
        continue;
      }
      if (devices(groupIndex, w, 0, 0)) {
        group.selected = i;
        return true;
      }
      if (budgetExceeded) {
        return false;
      }
    }
    return false;
  }

  private boolean devices(int groupIndex, Wanted w, long n, int start) {
    if (n == w.numDevices()) {
      return request(groupIndex + 1);
    }
    if (w.all) {
      // All devices are needed; the order does not matter, so only one order is tried.
      if (!place(w, w.allDevices.get((int) n))) {
        return false;
      }
      if (devices(groupIndex, w, n + 1, 0)) {
        return true;
      }
      unplace();
      return false;
    }
    for (int i = start; i < candidates.size(); i++) {
      if (++attempts > budget) {
        budgetExceeded = true;
        return false;
      }
      // As the scheduler: a device in use is passed over before its selectors are evaluated.
      if (inUse(w, candidates.get(i)) || selectable(w, i) != Wanted.Selectable.SELECTABLE) {
        continue;
      }
      if (!place(w, candidates.get(i))) {
        continue;
      }
      // Later devices of the same request start after this one: combinations, not permutations.
      if (devices(groupIndex, w, n + 1, i + 1)) {
        return true;
      }
      unplace();
      if (budgetExceeded) {
        return false;
      }
    }
    return false;
  }

  /** Selectors and per-device node selection: independent of what is allocated, so cached. */
  private Wanted.Selectable selectable(Wanted w, int index) {
    Wanted.Selectable cached = w.selectable[index];
    if (cached != null) {
      return cached;
    }
    Candidate c = candidates.get(index);
    Wanted.Selectable s;
    if (!evaluate(w, c, w.classSelectors, "device class \"" + w.className() + "\"")) {
      s = Wanted.Selectable.CLASS_SELECTORS;
    } else if (!evaluate(w, c, w.requestSelectors, "the request")) {
      s = Wanted.Selectable.REQUEST_SELECTORS;
    } else if (!c.onNode(node)) {
      s = Wanted.Selectable.NOT_ON_NODE;
    } else {
      s = Wanted.Selectable.SELECTABLE;
    }
    w.selectable[index] = s;
    return s;
  }

  /** The selectors as a user wrote them: {@code a && b}. */
  private static String expressions(List<CompiledSelector> selectors) {
    return selectors.stream().map(CompiledSelector::expression).collect(Collectors.joining(" && "));
  }

  /**
   * Whether the device passes the selectors. An evaluation error ends the search for the whole
   * claim ({@link SelectorFailed}); while diagnosing a failed search it is only remembered, so that
   * the reason can name it.
   */
  private boolean evaluate(Wanted w, Candidate c, List<CompiledSelector> list, String owner) {
    for (int i = 0; i < list.size(); i++) {
      try {
        if (!list.get(i).matches(c.cel())) {
          return false;
        }
      } catch (SelectorEvaluationException e) {
        String reason = owner + ": selector #" + i + ": " + e.getMessage();
        w.celErrors.add(reason);
        if (!diagnosing) {
          throw new SelectorFailed(w.resultName(), reason);
        }
        return false;
      }
    }
    return true;
  }

  /** Tries to take the device for the request; on success the state records it. */
  private boolean place(Wanted w, Candidate c) {
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

  private void unplace() {
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
  private boolean inUse(Wanted w, Candidate c) {
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
  private static Optional<DeviceTaint> untoleratedTaint(Wanted w, Device device) {
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

  private Capacities.Fit capacityFit(Wanted w, Candidate c, boolean withPlaced) {
    boolean multi = c.device.allowMultipleAllocations();
    return Capacities.fit(
        c.driver(),
        c.device,
        w.capacityRequests,
        multi ? state.consumedCapacity(c.key) : Map.of(),
        multi && withPlaced ? capacity.getOrDefault(c.key, Map.of()) : Map.of());
  }

  /** Empty when the pool's counter sets still have what the device draws; else the shortage. */
  private String countersFit(Candidate c, boolean withPlaced) {
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
  private String groupsFit(Candidate c, boolean withPlaced) {
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

  /**
   * Per counter set, the groups of the pool's devices that other claims hold, read from the slices
   * as the scheduler does (it keeps no copy in the claims).
   */
  private Map<String, GroupIntersection> groupsOfAllocated(Pool pool) {
    return allocatedGroups.computeIfAbsent(
        pool,
        p -> {
          Map<String, GroupIntersection> on = new HashMap<>();
          for (List<ResourceSlice> group : List.of(p.deviceSlices, p.otherDeviceSlices)) {
            for (ResourceSlice s : group) {
              for (Device d : s.spec().devices()) {
                if (!state.inUse(new DeviceKey(p.driver, p.name, d.name()))) {
                  continue;
                }
                for (DeviceCounterConsumption draw : d.consumesCounters()) {
                  on.merge(
                      draw.counterSet(),
                      GroupIntersection.EMPTY.plus(draw.compatibilityGroups()),
                      (old, unused) -> old.plus(draw.compatibilityGroups()));
                }
              }
            }
          }
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
          for (List<ResourceSlice> group : List.of(p.deviceSlices, p.otherDeviceSlices)) {
            for (ResourceSlice s : group) {
              for (Device d : s.spec().devices()) {
                if (!state.inUse(new DeviceKey(p.driver, p.name, d.name()))) {
                  continue;
                }
                for (DeviceCounterConsumption draw : d.consumesCounters()) {
                  Map<String, BigDecimal> set = left.get(draw.counterSet());
                  if (set == null) {
                    continue;
                  }
                  draw.counters()
                      .forEach(
                          (name, counter) ->
                              set.computeIfPresent(
                                  name, (n, v) -> v.subtract(counter.value().value())));
                }
              }
            }
          }
          return left;
        });
  }

  // ---------------------------------------------------------------------------------------------
  // The result

  private AllocationResult result() {
    List<Placed> order = new ArrayList<>(placed);
    java.util.Collections.reverse(order);
    List<DeviceRequestAllocationResult> results = new ArrayList<>();
    for (Placed p : order) {
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
        DeviceAllocationResult.of(results, configs()), nodeSelector(order), Optional.empty(), null);
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
  private Optional<NodeSelector> nodeSelector(List<Placed> order) {
    List<NodeSelector.Requirement> fields = new ArrayList<>();
    List<NodeSelector.Requirement> expressions = new ArrayList<>();
    for (Placed p : order) {
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

  // ---------------------------------------------------------------------------------------------
  // Why not

  private AllocationOutcome diagnose() {
    diagnosing = true;
    for (Wanted.Group g : groups) {
      List<String> whyNot = new ArrayList<>();
      boolean someFit = false;
      for (Wanted w : g.alternatives) {
        String problem = problem(w);
        if (problem.isEmpty()) {
          someFit = true;
          break;
        }
        whyNot.add(g.firstAvailable ? "subrequest " + w.subRequest + ": " + problem : problem);
      }
      if (!someFit) {
        String reason =
            g.firstAvailable
                ? "none of its "
                    + g.alternatives.size()
                    + " subrequests can be satisfied: "
                    + String.join("; ", whyNot)
                : whyNot.get(0);
        return unsatisfiable(g.name, reason + poolNotes());
      }
    }
    StringBuilder reason =
        new StringBuilder(
            "every request can be satisfied on its own, but no combination of devices satisfies"
                + " all of them together");
    if (!constraints.isEmpty()) {
      reason.append(" with the constraints (");
      for (int i = 0; i < constraints.size(); i++) {
        reason.append(i == 0 ? "" : ", ").append(constraints.get(i).describe());
      }
      reason.append(')');
    }
    return unsatisfiable("", reason + poolNotes());
  }

  /** Why the request cannot get its devices even on its own; empty when it could. */
  private String problem(Wanted w) {
    String kind =
        w.all
            ? "all matching devices of class \"" + w.className() + "\""
            : w.count
                + (w.count == 1 ? " device" : " devices")
                + " of class \""
                + w.className()
                + "\"";
    if (candidates.isEmpty()) {
      return "needs "
          + kind
          + ", but no device is published for node \""
          + node.metadata().name()
          + "\"";
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    Map<String, String> examples = new TreeMap<>();
    int fit = 0;
    int matching = 0;
    for (int i = 0; i < candidates.size(); i++) {
      Candidate c = candidates.get(i);
      Wanted.Selectable s = selectable(w, i);
      String why;
      String example = "";
      if (s == Wanted.Selectable.CLASS_SELECTORS) {
        why =
            "not selected by device class \""
                + w.className()
                + "\" ("
                + expressions(w.classSelectors)
                + ")";
      } else if (s == Wanted.Selectable.REQUEST_SELECTORS) {
        why = "not selected by the request's selectors (" + expressions(w.requestSelectors) + ")";
      } else if (s == Wanted.Selectable.NOT_ON_NODE) {
        why = "not usable on this node";
      } else {
        Capacities.Fit capacityFit = capacityFit(w, c, false);
        if (w.all && !capacityFit.fits()) {
          // "All" means all devices that can take the request's capacity.
          counts.merge("without the requested capacity", 1, Integer::sum);
          continue;
        }
        matching++;
        Optional<DeviceTaint> taint = untoleratedTaint(w, c.device);
        boolean draws = !c.device.consumesCounters().isEmpty() && !state.inUse(c.key);
        String groupsProblem = draws ? groupsFit(c, false) : "";
        String counters = draws ? countersFit(c, false) : "";
        if (!w.adminAccess && state.exclusivelyAllocated().contains(c.key)) {
          why = "in use by another claim";
        } else if (taint.isPresent()) {
          why = "tainted and not tolerated";
          DeviceTaint t = taint.get();
          example =
              c.key
                  + " has taint "
                  + t.key()
                  + (t.value().isEmpty() ? "" : "=" + t.value())
                  + ":"
                  + t.effect().apiName();
        } else if (!capacityFit.fits()) {
          why = "without enough capacity";
          example = c.key + " " + capacityFit.reason();
        } else if (!groupsProblem.isEmpty()) {
          why = "with incompatible compatibility groups";
          example = c.key + ": " + groupsProblem;
        } else if (!counters.isEmpty()) {
          why = "without enough shared counters";
          example = c.key + ": " + counters;
        } else {
          fit++;
          continue;
        }
      }
      counts.merge(why, 1, Integer::sum);
      if (!example.isEmpty()) {
        examples.putIfAbsent(why, example);
      }
    }
    long needed = w.all ? Math.max(matching, 1) : w.count;
    if (fit >= needed && !(w.all && matching == 0)) {
      return "";
    }
    StringBuilder sb = new StringBuilder("needs ").append(kind).append(", but ");
    if (w.all && matching == 0) {
      sb.append("none of the ");
    } else {
      sb.append(fit == 0 ? "none" : "only " + fit).append(" of the ");
    }
    sb.append(candidates.size())
        .append(candidates.size() == 1 ? " device" : " devices")
        .append(" usable on node \"")
        .append(node.metadata().name())
        .append("\" ")
        .append(w.all && matching == 0 ? "match" : "fit" + (fit == 1 ? "s" : ""));
    String sep = ": ";
    for (Map.Entry<String, Integer> e : counts.entrySet()) {
      sb.append(sep).append(e.getValue()).append(' ').append(e.getKey());
      sep = ", ";
    }
    for (String example : examples.values()) {
      sb.append("; ").append(example);
    }
    for (String error : w.celErrors) {
      sb.append("; ").append(error);
    }
    return sb.toString();
  }

  private String poolNotes() {
    return scan.notes().isEmpty() ? "" : " (" + String.join("; ", scan.notes()) + ")";
  }

  private AllocationOutcome.Unsatisfiable unsatisfiable(String request, String reason) {
    String ns = claim.metadata().namespace();
    String name = claimName(claim);
    return new AllocationOutcome.Unsatisfiable(
        ns.isEmpty() ? name : ns + "/" + name, node.metadata().name(), request, reason);
  }

  /** The claim's name, or {@code <generateName>*} for a claim not created yet. */
  static String claimName(ResourceClaim claim) {
    return claim.metadata().name().isEmpty()
        ? claim.metadata().generateName() + "*"
        : claim.metadata().name();
  }
}
