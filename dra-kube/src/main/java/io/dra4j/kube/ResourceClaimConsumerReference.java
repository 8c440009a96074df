package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/**
 * An entry of {@code status.reservedFor}: not always a Pod (PodGroups exist since 1.36).
 *
 * @param apiGroup empty for the core group
 * @param resource e.g. {@code pods}
 * @param name the consumer's name
 * @param uid the consumer's UID, the list-map key
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record ResourceClaimConsumerReference(
    String apiGroup,
    String resource,
    String name,
    String uid,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
  public ResourceClaimConsumerReference {
    apiGroup = Norm.str(apiGroup);
    resource = Norm.str(resource);
    name = Norm.str(name);
    uid = Norm.str(uid);
    unknownFields = Norm.unknown(unknownFields);
  }

  /** The API group of PodGroups. */
  public static final String SCHEDULING_GROUP = "scheduling.k8s.io";

  /** A Pod consumer. */
  public static ResourceClaimConsumerReference pod(String name, String uid) {
    return new ResourceClaimConsumerReference("", "pods", name, uid, null);
  }

  /**
   * A PodGroup consumer (DRAWorkloadResourceClaims): the claim is reserved for the group, and each
   * pod whose {@code spec.schedulingGroup.podGroupName} names it may use the claim.
   */
  public static ResourceClaimConsumerReference podGroup(String name, String uid) {
    return new ResourceClaimConsumerReference(SCHEDULING_GROUP, "podgroups", name, uid, null);
  }

  /** Whether this entry names a PodGroup rather than a pod. */
  public boolean refersToPodGroup() {
    return apiGroup.equals(SCHEDULING_GROUP) && resource.equals("podgroups");
  }
}
