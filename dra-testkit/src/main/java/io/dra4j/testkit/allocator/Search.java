package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.CompiledSelector;
import io.dra4j.cel.SelectorCompileException;
import io.dra4j.kube.CapacityRequirements;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceConstraint;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.DeviceSubRequest;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.Node;
import io.dra4j.kube.RequestNames;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One allocation attempt: the scheduler's search for one claim on one node.
 *
 * <p>The search is the scheduler's: requests in claim order; for each request the devices in pool
 * order (driver, pool name), slice name order, device order; a device that fits is taken and the
 * search moves on; when a later request (or a constraint) cannot be satisfied it backtracks and
 * tries the next combination. The first complete solution wins. For a firstAvailable request the
 * subrequests are tried in order.
 *
 * <p>Which devices a request may select is {@link Selection}'s, what is placed so far and whether a
 * device still fits is {@link Placements}'s; a solution becomes an allocation result in {@link
 * Solution}, a failure gets its reason from {@link WhyNot}.
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

  private final Selection selection;
  private final Placements placements;
  private long attempts;
  private boolean budgetExceeded;

  /** Thrown while preparing: the claim cannot be allocated at all. */
  private static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;
    final String request;

    Refusal(String request, String reason) {
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
    this.selection = new Selection(candidates, node);
    this.placements = new Placements(state, constraints);
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
        return new AllocationOutcome.Allocated(
            new Solution(placements.inOrder(), groups, classes, claim, node, shareIds).result());
      }
    } catch (Refusal r) {
      return unsatisfiable(r.request, r.getMessage());
    } catch (Selection.SelectorFailed f) {
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
    return new WhyNot(
            groups,
            constraints,
            candidates,
            scan,
            node,
            state,
            selection,
            placements,
            this::unsatisfiable)
        .diagnose();
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
        if (selection.selectable(w, i) == Wanted.Selectable.SELECTABLE
            && placements.capacityFit(w, c, false).fits()) {
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
      if (placements.size() + w.numDevices() > MAX_RESULTS) {
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
      if (!placements.place(w, w.allDevices.get((int) n))) {
        return false;
      }
      if (devices(groupIndex, w, n + 1, 0)) {
        return true;
      }
      placements.unplace();
      return false;
    }
    for (int i = start; i < candidates.size(); i++) {
      if (++attempts > budget) {
        budgetExceeded = true;
        return false;
      }
      // As the scheduler: a device in use is passed over before its selectors are evaluated.
      if (placements.inUse(w, candidates.get(i))
          || selection.selectable(w, i) != Wanted.Selectable.SELECTABLE) {
        continue;
      }
      if (!placements.place(w, candidates.get(i))) {
        continue;
      }
      // Later devices of the same request start after this one: combinations, not permutations.
      if (devices(groupIndex, w, n + 1, i + 1)) {
        return true;
      }
      placements.unplace();
      if (budgetExceeded) {
        return false;
      }
    }
    return false;
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
