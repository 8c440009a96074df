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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How requests consume a capacity of a device that allows multiple allocations: the
 * resource.k8s.io/v1 {@code CapacityRequestPolicy}. {@code validValues} and {@code validRange} are
 * mutually exclusive.
 */
@FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class CapacityRequestPolicy {
  @JsonProperty("default")
  private final Optional<Quantity> defaultValue;

  private final List<Quantity> validValues;
  private final Optional<Range> validRange;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private CapacityRequestPolicy(
      @JsonProperty("default") Optional<Quantity> defaultValue,
      @JsonProperty("validValues") List<Quantity> validValues,
      @JsonProperty("validRange") Optional<Range> validRange,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.defaultValue = Maps.optional(defaultValue);
    this.validValues = Maps.list(validValues);
    this.validRange = Maps.optional(validRange);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /**
   * A policy with a range: requests are rounded up to {@code min + n * step}, up to {@code max}.
   */
  public static CapacityRequestPolicy range(
      Quantity defaultValue, Quantity min, Quantity max, Quantity step) {
    return builder()
        .defaultValue(defaultValue)
        .validRange(Range.of(min).withMax(max).withStep(step))
        .build();
  }

  /** A policy with discrete options: requests take the smallest valid value that fits. */
  public static CapacityRequestPolicy validValues(Quantity defaultValue, List<Quantity> values) {
    return builder().defaultValue(defaultValue).validValues(values).build();
  }

  /** A builder for any other policy (a default alone, a range without a maximum...). */
  public static Builder builder() {
    return new Builder();
  }

  /** Consumed when a request does not name this capacity (JSON {@code default}). */
  public Optional<Quantity> defaultValue() {
    return defaultValue;
  }

  /** Ascending, unique, at most 10. */
  public List<Quantity> validValues() {
    return validValues;
  }

  /** Min, max and step. */
  public Optional<Range> validRange() {
    return validRange;
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
    return o instanceof CapacityRequestPolicy p
        && defaultValue.equals(p.defaultValue)
        && validValues.equals(p.validValues)
        && validRange.equals(p.validRange);
  }

  @Override
  public int hashCode() {
    return Objects.hash(defaultValue, validValues, validRange);
  }

  @Override
  public String toString() {
    return "CapacityRequestPolicy[defaultValue="
        + defaultValue
        + ", validValues="
        + validValues
        + ", validRange="
        + validRange
        + Maps.unknown(unknownFields)
        + "]";
  }

  /** Builds a {@link CapacityRequestPolicy}; nothing is set unless said. */
  public static final class Builder {
    private Optional<Quantity> defaultValue = Optional.empty();
    private final List<Quantity> validValues = new ArrayList<>();
    private Optional<Range> validRange = Optional.empty();

    private Builder() {}

    public Builder defaultValue(Quantity value) {
      defaultValue = Optional.of(value);
      return this;
    }

    public Builder validValues(List<Quantity> values) {
      validValues.clear();
      validValues.addAll(values);
      return this;
    }

    public Builder validRange(Range value) {
      validRange = Optional.of(value);
      return this;
    }

    public CapacityRequestPolicy build() {
      return new CapacityRequestPolicy(defaultValue, validValues, validRange, Map.of());
    }
  }

  /**
   * {@code min} (required), {@code max} and {@code step}: the {@code CapacityRequestPolicyRange}.
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonAutoDetect(
      fieldVisibility = Visibility.ANY,
      getterVisibility = Visibility.NONE,
      isGetterVisibility = Visibility.NONE)
  public static final class Range {
    private final Quantity min;
    private final Optional<Quantity> max;
    private final Optional<Quantity> step;
    @JsonAnyGetter private final Map<String, Object> unknownFields;

    @JsonCreator
    private Range(
        @JsonProperty("min") Quantity min,
        @JsonProperty("max") Optional<Quantity> max,
        @JsonProperty("step") Optional<Quantity> step,
        @JsonAnySetter Map<String, Object> unknownFields) {
      this.min = Objects.requireNonNull(min, "validRange.min");
      this.max = Maps.optional(max);
      this.step = Maps.optional(step);
      this.unknownFields = Maps.sorted(unknownFields);
    }

    /** A range from {@code min}, without a maximum or a step. */
    public static Range of(Quantity min) {
      return new Range(min, Optional.empty(), Optional.empty(), Map.of());
    }

    public Range withMax(Quantity value) {
      return new Range(min, Optional.of(value), step, unknownFields);
    }

    public Range withStep(Quantity value) {
      return new Range(min, max, Optional.of(value), unknownFields);
    }

    public Quantity min() {
      return min;
    }

    public Optional<Quantity> max() {
      return max;
    }

    public Optional<Quantity> step() {
      return step;
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
      return o instanceof Range r && min.equals(r.min) && max.equals(r.max) && step.equals(r.step);
    }

    @Override
    public int hashCode() {
      return Objects.hash(min, max, step);
    }

    @Override
    public String toString() {
      return "Range[min="
          + min
          + ", max="
          + max
          + ", step="
          + step
          + Maps.unknown(unknownFields)
          + "]";
    }
  }
}
