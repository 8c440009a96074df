package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;
import java.util.Objects;

/**
 * A resource.k8s.io/v1 ResourceClaim (namespaced; {@code status} is a subresource). The spec is
 * immutable after creation; the scheduler writes {@code status.allocation} and {@code
 * status.reservedFor}, drivers write their own entries of {@code status.devices} with server-side
 * apply.
 *
 * @param apiVersion {@code resource.k8s.io/v1}
 * @param kind {@code ResourceClaim}
 * @param metadata the metadata
 * @param spec what is requested
 * @param status allocation, consumers and per-device status
 * @param unknownFields fields of newer API versions, kept so read-modify-write loses nothing
 */
@OmitEmpty
public record ResourceClaim(
    String apiVersion,
    String kind,
    ObjectMeta metadata,
    ResourceClaimSpec spec,
    ResourceClaimStatus status,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields)
    implements KubeObject {

  public static final ResourceType<ResourceClaim> TYPE =
      new ResourceType<>(
          "resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true, ResourceClaim.class);

  /** The annotation on claims the scheduler creates for DRA-backed extended resources. */
  public static final String EXTENDED_RESOURCE_CLAIM_ANNOTATION =
      "resource.kubernetes.io/extended-resource-claim";

  public ResourceClaim {
    apiVersion = apiVersion == null ? TYPE.apiVersion() : apiVersion;
    kind = kind == null ? TYPE.kind() : kind;
    metadata = Objects.requireNonNull(metadata, "metadata");
    spec = spec == null ? ResourceClaimSpec.EMPTY : spec;
    status = status == null ? ResourceClaimStatus.EMPTY : status;
    unknownFields = Norm.unknown(unknownFields);
  }

  public static ResourceClaim of(ObjectMeta metadata, ResourceClaimSpec spec) {
    return new ResourceClaim(null, null, metadata, spec, null, null);
  }

  public ResourceClaim withMetadata(ObjectMeta value) {
    return new ResourceClaim(apiVersion, kind, value, spec, status, unknownFields);
  }

  public ResourceClaim withStatus(ResourceClaimStatus value) {
    return new ResourceClaim(apiVersion, kind, metadata, spec, value, unknownFields);
  }
}
