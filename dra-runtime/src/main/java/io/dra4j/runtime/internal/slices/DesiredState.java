package io.dra4j.runtime.internal.slices;

import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.validation.PoolValidation;
import io.dra4j.validation.PoolValidator;
import io.dra4j.validation.Violation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The desired state a {@link SlicePublisher} applied: each pool validated and laid out into slices.
 *
 * <p><b>Validation first.</b> Every publish is validated with {@link PoolValidator} before any API
 * call. An invalid pool is reported once per distinct desired state ({@link
 * PublishListener#onInvalidPool}) and not published, and <b>its existing slices are left
 * untouched</b>: they describe the last valid state of real devices that may be allocated right
 * now; deleting them because of a driver bug would take a node's devices away from the scheduler,
 * while the old slices are at worst stale, until the driver publishes a valid state or removes the
 * pool. The other pools are published as usual.
 *
 * <p>Owned by the publisher's worker thread, except {@link #lastValidation}.
 */
final class DesiredState {

  /**
   * One pool of the applied desired state.
   *
   * @param specs the layout (generation 0); empty for an invalid pool
   */
  record DesiredPool(Pool pool, PoolValidation validation, List<ResourceSliceSpec> specs) {
    boolean valid() {
      return validation.isValid();
    }
  }

  private final String driver;
  private final Optional<String> nodeName;
  private final LayoutOptions layoutOptions;
  private final PublishOutlet outlet;

  private Map<String, DesiredPool> desired = new LinkedHashMap<>();
  private boolean applied;
  private Map<String, List<Pool>> reportedInvalid = new HashMap<>();
  private final Map<String, Pool> reportedWarnings = new HashMap<>();
  private volatile List<PoolValidation> lastValidation = List.of();

  DesiredState(SlicePublisher.Builder b, PublishOutlet outlet) {
    this.driver = b.driver;
    this.nodeName = b.nodeName;
    this.layoutOptions = new LayoutOptions(b.nodeName, b.dynamicTaints);
    this.outlet = outlet;
  }

  /**
   * Makes {@code pools} the desired state: validates them, reports what is new of invalid pools and
   * warnings, and lays out the valid ones (reusing the layout of a pool that did not change).
   *
   * @return the desired state before
   */
  Map<String, DesiredPool> apply(List<Pool> pools) {
    List<PoolValidation> results = new ArrayList<>();
    Map<String, DesiredPool> next = new LinkedHashMap<>();
    Map<String, List<Pool>> reported = new HashMap<>();
    for (PoolValidation v : validate(pools)) {
      results.add(v);
      Pool p = v.pool();
      if (!v.isValid()) {
        // Once per distinct desired state: the same broken pool published again is not news.
        if (!reportedInvalid.getOrDefault(p.name(), List.of()).contains(p)) {
          outlet.invalidPool(v);
        }
        reported.computeIfAbsent(p.name(), k -> new ArrayList<>()).add(p);
        next.put(p.name(), new DesiredPool(p, v, List.of()));
        continue;
      }
      if (!v.warnings().isEmpty() && !p.equals(reportedWarnings.get(p.name()))) {
        reportedWarnings.put(p.name(), p);
        outlet.publishedWithWarnings(p, v);
      }
      DesiredPool before = desired.get(p.name());
      List<ResourceSliceSpec> specs =
          before != null && before.validation() == v
              ? before.specs()
              : SliceLayout.layout(driver, p, layoutOptions);
      next.put(p.name(), new DesiredPool(p, v, specs));
    }
    lastValidation = List.copyOf(results);
    reportedInvalid = reported;
    reportedWarnings.keySet().retainAll(next.keySet());

    Map<String, DesiredPool> previous = desired;
    desired = next;
    applied = true;
    return previous;
  }

  /**
   * Validates the pools, reusing the result (and so the layout) of every pool that equals the one
   * already applied: validating is most of a publish's CPU, and comparing is much cheaper.
   */
  private List<PoolValidation> validate(List<Pool> pools) {
    Set<String> names = new HashSet<>();
    if (!pools.stream().allMatch(p -> names.add(p.name()))) {
      // Duplicate names are a rule across pools: validate them together.
      return PoolValidator.validate(driver, pools).pools().stream()
          .map(this::withPublisherRules)
          .toList();
    }
    List<PoolValidation> out = new ArrayList<>(pools.size());
    for (Pool p : pools) {
      DesiredPool before = desired.get(p.name());
      if (before != null && before.pool().equals(p)) {
        out.add(before.validation());
      } else {
        out.add(withPublisherRules(PoolValidator.validate(driver, p)));
      }
    }
    return out;
  }

  private PoolValidation withPublisherRules(PoolValidation v) {
    if (v.pool().scope().kind() == PoolScope.Kind.NODE && nodeName.isEmpty()) {
      List<Violation> errors = new ArrayList<>(v.errors());
      errors.add(
          new Violation(
              v.poolName(),
              Optional.empty(),
              "scope",
              "the pool is node-local (PoolScope.node()), but the publisher has no node: give the"
                  + " pool another scope (all nodes, a node selector, per device), or publish it"
                  + " from the node (its driver, or a publisher owned by its Node)"));
      return new PoolValidation(v.driver(), v.pool(), errors, v.warnings());
    }
    return v;
  }

  /** Whether a desired state was applied yet. */
  boolean applied() {
    return applied;
  }

  /** The pools of the desired state, in publishing order. */
  Map<String, DesiredPool> pools() {
    return desired;
  }

  /** The desired pool, or null when {@code pool} is not (or no longer) desired. */
  DesiredPool get(String pool) {
    return desired.get(pool);
  }

  /**
   * Whether {@code pool} is written at all: a desired valid pool, or one to delete; an invalid pool
   * is left as it is.
   */
  boolean writes(String pool) {
    DesiredPool d = desired.get(pool);
    return d == null || d.valid();
  }

  /** Whether a pool has no {@code spec.nodeName} (all nodes, a node selector, per device). */
  boolean anyBeyondNode() {
    return desired.values().stream().anyMatch(d -> d.pool().scope().kind() != PoolScope.Kind.NODE);
  }

  /** What validation said about each pool of the last applied state, in publishing order. */
  List<PoolValidation> lastValidation() {
    return lastValidation;
  }
}
