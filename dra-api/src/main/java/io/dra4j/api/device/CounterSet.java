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

/**
 * Shared counters from which partitionable devices draw (KEP-4815), e.g. the memory slices of one
 * GPU: the resource.k8s.io/v1 {@code CounterSet}. Since Kubernetes 1.35 counter sets live in their
 * own ResourceSlice; the publisher takes care of that.
 */
@FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class CounterSet {
  private final String name;
  private final Map<String, Counter> counters;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private CounterSet(
      @JsonProperty("name") String name,
      @JsonProperty("counters") Map<String, Counter> counters,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.name = Objects.requireNonNull(name, "counter set name");
    this.counters = Maps.sorted(counters);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /**
   * A counter set.
   *
   * @param name DNS label, unique in the pool
   * @param counters counter name (DNS label) to total amount; at most 32
   */
  public static CounterSet of(String name, Map<String, Counter> counters) {
    return new CounterSet(name, counters, Map.of());
  }

  /** DNS label, unique in the pool. */
  public String name() {
    return name;
  }

  /** Counter name (DNS label) to total amount. */
  public Map<String, Counter> counters() {
    return counters;
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
    return o instanceof CounterSet c && name.equals(c.name) && counters.equals(c.counters);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, counters);
  }

  @Override
  public String toString() {
    return "CounterSet[name=" + name + ", counters=" + counters + Maps.unknown(unknownFields) + "]";
  }
}
