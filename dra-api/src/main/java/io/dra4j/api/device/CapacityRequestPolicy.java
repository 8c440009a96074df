package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Optional;

/**
 * How requests consume a capacity of a device that allows multiple allocations
 * (DRAConsumableCapacity). {@code validValues} and {@code validRange} are mutually exclusive.
 *
 * @param defaultValue consumed when a request does not name this capacity (JSON {@code default})
 * @param validValues ascending, unique, at most 10
 * @param validRange min / max / step
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record CapacityRequestPolicy(
    @JsonProperty("default") Optional<Quantity> defaultValue,
    List<Quantity> validValues,
    Optional<Range> validRange) {

  @JsonCreator
  public CapacityRequestPolicy(
      @JsonProperty("default") Optional<Quantity> defaultValue,
      @JsonProperty("validValues") List<Quantity> validValues,
      @JsonProperty("validRange") Optional<Range> validRange) {
    this.defaultValue = defaultValue == null ? Optional.empty() : defaultValue;
    this.validValues = Maps.list(validValues);
    this.validRange = validRange == null ? Optional.empty() : validRange;
  }

  /** A policy with a range: requests are rounded up to {@code min + n * step}. */
  public static CapacityRequestPolicy range(
      Quantity defaultValue, Quantity min, Quantity max, Quantity step) {
    return new CapacityRequestPolicy(
        Optional.of(defaultValue),
        List.of(),
        Optional.of(new Range(min, Optional.ofNullable(max), Optional.ofNullable(step))));
  }

  /** A policy with discrete options: requests take the smallest valid value that fits. */
  public static CapacityRequestPolicy validValues(Quantity defaultValue, List<Quantity> values) {
    return new CapacityRequestPolicy(Optional.of(defaultValue), values, Optional.empty());
  }

  /** {@code min} (required), {@code max} and {@code step}. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Range(Quantity min, Optional<Quantity> max, Optional<Quantity> step) {
    @JsonCreator
    public Range(
        @JsonProperty("min") Quantity min,
        @JsonProperty("max") Optional<Quantity> max,
        @JsonProperty("step") Optional<Quantity> step) {
      this.min = min;
      this.max = max == null ? Optional.empty() : max;
      this.step = step == null ? Optional.empty() : step;
    }
  }
}
