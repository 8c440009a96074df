package io.dra4j.testkit.allocator;

import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link ClusterAllocator#schedulePod} decided and did.
 *
 * @param pod the pod as stored afterwards (bound to the node when scheduled)
 * @param node the node tried
 * @param scheduled whether every claim is allocated and reserved for the pod and the pod is bound
 * @param reason why not, when not scheduled; empty otherwise
 * @param claims the pod's claims as stored afterwards, in {@code spec.resourceClaims} order, then
 *     the extended-resource claim
 * @param extendedResourceClaim the claim for DRA-backed extended resources, when the pod has one
 * @param steps what was decided and done, in order
 */
public record PodDecision(
    Pod pod,
    String node,
    boolean scheduled,
    String reason,
    List<ResourceClaim> claims,
    Optional<ResourceClaim> extendedResourceClaim,
    List<Step> steps) {
  public PodDecision {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(reason, "reason");
    claims = List.copyOf(claims);
    Objects.requireNonNull(extendedResourceClaim, "extendedResourceClaim");
    steps = List.copyOf(steps);
  }
}
