package io.dra4j.testkit.allocator;

import java.util.List;

/**
 * {@link ClusterAllocator#allocateClaim} found no devices for the claim: the message names the
 * claim, the node, the request and what could not be met (a selector, a constraint, taints,
 * capacity, devices taken by other claims). Nothing was written.
 */
public final class UnsatisfiableClaimException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient AllocationOutcome.Unsatisfiable outcome;
  private final transient List<Step> steps;

  UnsatisfiableClaimException(AllocationOutcome.Unsatisfiable outcome, List<Step> steps) {
    super(outcome.describe());
    this.outcome = outcome;
    this.steps = List.copyOf(steps);
  }

  /** Why, by request. */
  public AllocationOutcome.Unsatisfiable outcome() {
    return outcome;
  }

  /** What the allocator did before it gave up. */
  public List<Step> steps() {
    return steps;
  }
}
