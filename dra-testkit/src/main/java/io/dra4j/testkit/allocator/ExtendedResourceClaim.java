package io.dra4j.testkit.allocator;

import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import java.util.List;
import java.util.Objects;

/**
 * The claim the scheduler creates for a pod's DRA-backed extended resources (KEP-5004), before it
 * is created, and the mapping it records in the pod's status once it is.
 *
 * @param claim the claim to create: {@code generateName <pod>-extended-resources-}, the pod's
 *     namespace, the pod as controlling owner, the annotation {@code
 *     resource.kubernetes.io/extended-resource-claim: "true"}, one ExactCount request per container
 *     and resource, named {@code container-<i>-request-<j>}
 * @param requestMappings which request serves which container's resource, in the scheduler's order
 */
public record ExtendedResourceClaim(
    ResourceClaim claim, List<Pod.ExtendedResourceRequest> requestMappings) {

  public ExtendedResourceClaim {
    Objects.requireNonNull(claim, "claim");
    requestMappings = List.copyOf(requestMappings);
  }

  /** {@code pod.status.extendedResourceClaimStatus} once the claim exists under this name. */
  public Pod.ExtendedResourceClaimStatus podStatus(String createdClaimName) {
    if (createdClaimName.isEmpty()) {
      throw new IllegalArgumentException("the created claim's name must not be empty");
    }
    return Pod.ExtendedResourceClaimStatus.of(createdClaimName, requestMappings);
  }
}
