package io.dra4j.testkit.allocator;

import io.dra4j.kube.ResourceClaim;
import java.util.List;
import java.util.Objects;

/**
 * What {@link ClusterAllocator#allocateClaim} decided and did.
 *
 * @param claim the claim as stored after the writes (as read when nothing was written)
 * @param outcome the allocation (also for a claim that was allocated before), or why not
 * @param steps what was done, in order
 */
public record ClaimDecision(ResourceClaim claim, AllocationOutcome outcome, List<Step> steps) {
  public ClaimDecision {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(outcome, "outcome");
    steps = List.copyOf(steps);
  }

  /** Whether the claim is allocated now. */
  public boolean allocated() {
    return outcome.isAllocated();
  }
}
