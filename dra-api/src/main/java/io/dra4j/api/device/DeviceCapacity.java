package io.dra4j.api.device;

import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dra4j.api.feature.FeatureGate;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** A capacity of a device, e.g. its memory: the resource.k8s.io/v1 {@code DeviceCapacity}. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class DeviceCapacity {
  private final Quantity value;
  private final Optional<CapacityRequestPolicy> requestPolicy;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private DeviceCapacity(
      @JsonProperty("value") Quantity value,
      @JsonProperty("requestPolicy") Optional<CapacityRequestPolicy> requestPolicy,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.value = Objects.requireNonNull(value, "capacity value");
    this.requestPolicy = Maps.optional(requestPolicy);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /** A fixed capacity. */
  public static DeviceCapacity of(Quantity value) {
    return new DeviceCapacity(value, Optional.empty(), Map.of());
  }

  /**
   * This capacity with a request policy: only allowed when the device allows multiple allocations.
   */
  @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
  public DeviceCapacity withRequestPolicy(CapacityRequestPolicy policy) {
    return new DeviceCapacity(value, Optional.of(policy), unknownFields);
  }

  /** The fixed total. */
  public Quantity value() {
    return value;
  }

  /** How requests consume this capacity of a device that allows multiple allocations. */
  @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
  public Optional<CapacityRequestPolicy> requestPolicy() {
    return requestPolicy;
  }

  /**
   * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
   * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
   * from the one a driver publishes.
   */
  public Map<String, Object> unknownFields() {
    return unknownFields;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceCapacity c
        && value.equals(c.value)
        && requestPolicy.equals(c.requestPolicy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(value, requestPolicy);
  }

  @Override
  public String toString() {
    return "DeviceCapacity[value="
        + value
        + ", requestPolicy="
        + requestPolicy
        + Maps.unknown(unknownFields)
        + "]";
  }
}
