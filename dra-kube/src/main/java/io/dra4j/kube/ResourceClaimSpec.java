package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/**
 * {@code ResourceClaim.spec} (also the spec of a ResourceClaimTemplate).
 *
 * @param devices the device requests, constraints and config
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record ResourceClaimSpec(
    DeviceClaim devices, @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  static final ResourceClaimSpec EMPTY = new ResourceClaimSpec(null, null);

  public ResourceClaimSpec {
    devices = devices == null ? DeviceClaim.EMPTY : devices;
    unknownFields = Norm.unknown(unknownFields);
  }

  public static ResourceClaimSpec of(DeviceClaim devices) {
    return new ResourceClaimSpec(devices, null);
  }
}
