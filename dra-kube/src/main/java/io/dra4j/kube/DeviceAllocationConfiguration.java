package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Config in an allocation result, with where it came from.
 *
 * @param source {@code FromClass} or {@code FromClaim}
 * @param requests the requests it applies to; empty means all
 * @param opaque driver-specific parameters
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceAllocationConfiguration(
    String source,
    List<String> requests,
    Optional<OpaqueDeviceConfiguration> opaque,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public static final String FROM_CLASS = "FromClass";
  public static final String FROM_CLAIM = "FromClaim";

  public DeviceAllocationConfiguration {
    source = Objects.requireNonNull(source, "config source");
    requests = Norm.list(requests);
    opaque = Norm.opt(opaque);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceAllocationConfiguration opaque(
      String source, List<String> requests, OpaqueDeviceConfiguration opaque) {
    return new DeviceAllocationConfiguration(source, requests, Optional.of(opaque), null);
  }
}
