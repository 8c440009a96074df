package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;

/**
 * {@code spec.devices} of a claim.
 *
 * @param requests at most 32, unique names
 * @param constraints at most 32
 * @param config at most 32; ignored during allocation, handed to drivers
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceClaim(
    List<DeviceRequest> requests,
    List<DeviceConstraint> constraints,
    List<DeviceClaimConfiguration> config,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  static final DeviceClaim EMPTY = new DeviceClaim(null, null, null, null);

  public DeviceClaim {
    requests = Norm.list(requests);
    constraints = Norm.list(constraints);
    config = Norm.list(config);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceClaim of(List<DeviceRequest> requests) {
    return new DeviceClaim(requests, null, null, null);
  }
}
