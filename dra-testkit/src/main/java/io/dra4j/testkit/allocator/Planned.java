package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Claims.ref;
import static io.dra4j.testkit.allocator.Claims.reserved;
import static io.dra4j.testkit.allocator.Claims.unsatisfiable;
import static io.dra4j.testkit.allocator.Claims.unusable;

import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import java.util.List;
import java.util.Optional;

/** What to do with one claim of the pod. */
final class Planned {
  /** {@code ResourceClaimReservedForMaxSize}. */
  static final int MAX_RESERVED_FOR = 256;

  final ResourceClaim claim;
  final Optional<AllocationResult> allocation;
  final boolean reserve;
  final Optional<String> failure;

  Planned(
      ResourceClaim claim,
      Optional<AllocationResult> allocation,
      boolean reserve,
      Optional<String> failure) {
    this.claim = claim;
    this.allocation = allocation;
    this.reserve = reserve;
    this.failure = failure;
  }

  Planned withClaim(ResourceClaim created) {
    return new Planned(created, allocation, reserve, failure);
  }

  /** Decides for one claim of the pod: allocate it, reserve it for the pod, or why neither. */
  static Planned of(
      Allocator allocator,
      ResourceClaim claim,
      Snapshot snapshot,
      AllocatedState state,
      ResourceClaimConsumerReference me,
      List<Step> steps) {
    Optional<String> unusable = unusable(claim, snapshot.node);
    if (unusable.isPresent()) {
      return new Planned(
          claim,
          Optional.empty(),
          false,
          Optional.of(
              unsatisfiable(claim, snapshot.node.metadata().name(), unusable.get()).describe()));
    }
    boolean reserve = !reserved(claim, me.uid());
    if (reserve && claim.status().reservedFor().size() >= MAX_RESERVED_FOR) {
      return new Planned(
          claim,
          Optional.empty(),
          false,
          Optional.of(ref(claim) + " is already reserved for " + MAX_RESERVED_FOR + " consumers"));
    }
    if (claim.status().allocation().isPresent()) {
      steps.add(
          new Step(
              "found",
              ref(claim),
              "already allocated" + (reserve ? "" : " and reserved for the pod")));
      return new Planned(claim, Optional.empty(), reserve, Optional.empty());
    }
    AllocationOutcome outcome =
        allocator.allocate(snapshot.slices, snapshot.classes, claim, snapshot.node, state);
    steps.add(new Step("allocate", ref(claim), outcome.describe()));
    if (!outcome.isAllocated()) {
      return new Planned(claim, Optional.empty(), false, Optional.of(outcome.describe()));
    }
    return new Planned(claim, Optional.of(outcome.orElseThrow()), true, Optional.empty());
  }
}
