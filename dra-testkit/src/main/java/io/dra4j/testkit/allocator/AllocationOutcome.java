package io.dra4j.testkit.allocator;

import io.dra4j.kube.AllocationResult;
import java.util.Objects;

/**
 * What {@link Allocator#allocate} decided for one claim: either the allocation (the claim's future
 * {@code status.allocation}) or why the claim cannot be allocated on the node.
 */
public sealed interface AllocationOutcome
    permits AllocationOutcome.Allocated, AllocationOutcome.Unsatisfiable {

  /** Whether devices were found. */
  boolean isAllocated();

  /**
   * The allocation.
   *
   * @throws IllegalStateException with the reason when the claim could not be allocated
   */
  AllocationResult orElseThrow();

  /** A one-line description for logs and the demo. */
  String describe();

  /**
   * Devices were found.
   *
   * @param allocation {@code status.allocation} as the scheduler writes it, without {@code
   *     allocationTimestamp} (the scheduler adds that when it writes the status; {@link
   *     ClusterAllocator} does the same)
   */
  record Allocated(AllocationResult allocation) implements AllocationOutcome {
    public Allocated {
      Objects.requireNonNull(allocation, "allocation");
    }

    @Override
    public boolean isAllocated() {
      return true;
    }

    @Override
    public AllocationResult orElseThrow() {
      return allocation;
    }

    @Override
    public String describe() {
      StringBuilder sb = new StringBuilder("allocated");
      allocation
          .devices()
          .results()
          .forEach(
              r -> {
                sb.append(sb.length() == "allocated".length() ? ": " : ", ");
                sb.append(r.request())
                    .append(" -> ")
                    .append(r.driver())
                    .append('/')
                    .append(r.pool())
                    .append('/')
                    .append(r.device());
                r.shareID().ifPresent(id -> sb.append(" (share ").append(id).append(')'));
              });
      return sb.toString();
    }
  }

  /**
   * No devices could be found.
   *
   * @param claim {@code namespace/name} of the claim (the name may be empty for a claim not yet
   *     created)
   * @param node the node that was tried
   * @param request the request that cannot be satisfied; empty when the claim fails as a whole (for
   *     example no combination satisfies its constraints)
   * @param reason what failed, naming devices, selectors, taints, counters or pools as applicable
   */
  record Unsatisfiable(String claim, String node, String request, String reason)
      implements AllocationOutcome {
    public Unsatisfiable {
      Objects.requireNonNull(claim, "claim");
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public boolean isAllocated() {
      return false;
    }

    @Override
    public AllocationResult orElseThrow() {
      throw new IllegalStateException(describe());
    }

    @Override
    public String describe() {
      String where = "claim " + claim + " on node " + node + ": ";
      return request.isEmpty() ? where + reason : where + "request \"" + request + "\": " + reason;
    }
  }
}
