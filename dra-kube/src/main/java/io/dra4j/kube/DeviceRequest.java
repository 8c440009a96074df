package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One request of a claim: a name plus exactly one of {@code exactly} and {@code firstAvailable}.
 *
 * @param name DNS label; allocation results refer to {@code name} or {@code name/subrequest}
 * @param exactly a request for devices of one class
 * @param firstAvailable 1 to 8 alternatives, the first that can be satisfied is used
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceRequest(
    String name,
    Optional<ExactDeviceRequest> exactly,
    List<DeviceSubRequest> firstAvailable,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public DeviceRequest {
    name = Objects.requireNonNull(name, "request name");
    exactly = Norm.opt(exactly);
    firstAvailable = Norm.list(firstAvailable);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceRequest exactly(String name, ExactDeviceRequest request) {
    return new DeviceRequest(name, Optional.of(request), null, null);
  }

  public static DeviceRequest firstAvailable(String name, List<DeviceSubRequest> alternatives) {
    return new DeviceRequest(name, Optional.empty(), alternatives, null);
  }
}
