package io.dra4j.testkit.allocator;

import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.Node;
import io.dra4j.kube.NodeSelectors;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What the scheduler reads from claims and pods: lookups, usability, reservations, names. */
final class Claims {
  private Claims() {}

  /** Why an existing claim cannot be used on the node, if it cannot. */
  static Optional<String> unusable(ResourceClaim claim, Node node) {
    if (claim.metadata().deletionTimestamp().isPresent()) {
      return Optional.of("the claim is being deleted");
    }
    Optional<AllocationResult> allocation = claim.status().allocation();
    if (allocation.isPresent()
        && allocation.get().nodeSelector().isPresent()
        && !NodeSelectors.matches(node, allocation.get().nodeSelector().get())) {
      return Optional.of(
          "the claim is allocated already, on devices not usable on node \""
              + node.metadata().name()
              + "\"");
    }
    return Optional.empty();
  }

  static AllocationOutcome.Unsatisfiable unsatisfiable(
      ResourceClaim claim, String node, String reason) {
    return new AllocationOutcome.Unsatisfiable(
        claim.metadata().namespace() + "/" + Search.claimName(claim), node, "", reason);
  }

  static Optional<String> claimName(Pod pod, Pod.PodResourceClaim prc) {
    if (prc.resourceClaimName().isPresent()) {
      return prc.resourceClaimName();
    }
    for (Pod.ClaimStatus s : pod.status().resourceClaimStatuses()) {
      if (s.name().equals(prc.name())) {
        return Optional.of(s.resourceClaimName().orElse(""));
      }
    }
    return Optional.empty();
  }

  /** The scheduler's claim for the pod: the annotation and the pod as controlling owner. */
  static Optional<ResourceClaim> extendedResourceClaimOf(Pod pod, List<ResourceClaim> claims) {
    for (ResourceClaim c : claims) {
      if (!c.metadata().namespace().equals(pod.metadata().namespace())
          || !"true"
              .equals(c.metadata().annotations().get(ExtendedResourceMapping.CLAIM_ANNOTATION))) {
        continue;
      }
      for (OwnerReference o : c.metadata().ownerReferences()) {
        if (o.controller()
            && o.name().equals(pod.metadata().name())
            && o.uid().equals(pod.metadata().uid())) {
          return Optional.of(c);
        }
      }
    }
    return Optional.empty();
  }

  static Optional<ResourceClaim> find(List<ResourceClaim> claims, String namespace, String name) {
    return claims.stream()
        .filter(c -> c.metadata().namespace().equals(namespace) && c.metadata().name().equals(name))
        .findFirst();
  }

  static boolean reserved(ResourceClaim claim, String uid) {
    return claim.status().reservedFor().stream().anyMatch(r -> r.uid().equals(uid));
  }

  static boolean sameObject(ResourceClaim a, ResourceClaim b) {
    return a.metadata().namespace().equals(b.metadata().namespace())
        && a.metadata().name().equals(b.metadata().name());
  }

  static ObjectMeta withFinalizers(ResourceClaim claim, List<String> finalizers) {
    ObjectMeta m = claim.metadata();
    return new ObjectMeta(
        m.name(),
        m.generateName(),
        m.namespace(),
        m.uid(),
        m.resourceVersion(),
        m.generation(),
        m.creationTimestamp(),
        m.deletionTimestamp(),
        m.labels(),
        m.annotations(),
        m.ownerReferences(),
        finalizers,
        m.unknownFields());
  }

  static String ref(ResourceClaim claim) {
    return "ResourceClaim " + claim.metadata().namespace() + "/" + Search.claimName(claim);
  }

  static String describeRequests(ResourceClaim claim) {
    List<String> parts = new ArrayList<>();
    for (DeviceRequest r : claim.spec().devices().requests()) {
      r.exactly()
          .ifPresent(
              e ->
                  parts.add(
                      r.name() + " (" + e.effectiveCount() + " x " + e.deviceClassName() + ")"));
    }
    return parts.size()
        + (parts.size() == 1 ? " request: " : " requests: ")
        + String.join(", ", parts);
  }
}
