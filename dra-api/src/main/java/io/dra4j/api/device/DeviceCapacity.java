package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import java.util.Optional;

/**
 * A capacity of a device, e.g. its memory.
 *
 * @param value the fixed total
 * @param requestPolicy only allowed when the device allows multiple allocations
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DeviceCapacity(Quantity value, Optional<CapacityRequestPolicy> requestPolicy) {

  @JsonCreator
  public DeviceCapacity(
      @JsonProperty("value") Quantity value,
      @JsonProperty("requestPolicy") Optional<CapacityRequestPolicy> requestPolicy) {
    this.value = Objects.requireNonNull(value, "capacity value");
    this.requestPolicy = requestPolicy == null ? Optional.empty() : requestPolicy;
  }

  public static DeviceCapacity of(Quantity value) {
    return new DeviceCapacity(value, Optional.empty());
  }
}
