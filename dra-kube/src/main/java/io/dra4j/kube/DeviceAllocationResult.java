package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;

/**
 * {@code status.allocation.devices}.
 *
 * @param results one per allocated device, at most 32; includes other drivers' devices
 * @param config class and claim config (at most 64), including config for other drivers
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceAllocationResult(
    List<DeviceRequestAllocationResult> results,
    List<DeviceAllocationConfiguration> config,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
  public DeviceAllocationResult {
    results = Norm.list(results);
    config = Norm.list(config);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceAllocationResult of(
      List<DeviceRequestAllocationResult> results, List<DeviceAllocationConfiguration> config) {
    return new DeviceAllocationResult(results, config, null);
  }
}
