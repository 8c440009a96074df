package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Config in a claim's spec.
 *
 * @param requests the requests it applies to; empty means all
 * @param opaque driver-specific parameters
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceClaimConfiguration(
    List<String> requests,
    Optional<OpaqueDeviceConfiguration> opaque,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
  public DeviceClaimConfiguration {
    requests = Norm.list(requests);
    opaque = Norm.opt(opaque);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceClaimConfiguration opaque(
      List<String> requests, OpaqueDeviceConfiguration opaque) {
    return new DeviceClaimConfiguration(requests, Optional.of(opaque), null);
  }
}
