package io.dra4j.testkit.allocator;

import java.util.Objects;

/**
 * One thing {@link ClusterAllocator} decided or did, in order, for printing.
 *
 * @param action e.g. {@code allocate}, {@code create}, {@code updateStatus}, {@code bind}
 * @param target the object, e.g. {@code ResourceClaim default/gpu}
 * @param detail what happened
 */
public record Step(String action, String target, String detail) {
  public Step {
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(detail, "detail");
  }

  /** {@code action target: detail}. */
  @Override
  public String toString() {
    return action + " " + target + (detail.isEmpty() ? "" : ": " + detail);
  }
}
