package io.dra4j.api.device;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;
import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The counters a device consumes from one counter set of its pool when it is allocated.
 *
 * <p>Compatibility groups (KEP-5963, Kubernetes 1.37 alpha, gate {@code
 * DRADeviceCompatibilityGroups}) say which devices drawing from the same counter set may be
 * allocated at the same time: all of them must share at least one group, and a device without
 * groups only goes together with other devices without groups. Use them for modes of one piece of
 * hardware that exclude each other (for example MIG partitions and a time-sliced whole GPU) where
 * counters alone would allow a mix. A scheduler with the gate off ignores every slice that uses
 * them, which leaves the whole pool unallocatable: publish groups only where the cluster enables
 * the gate.
 */
@FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class DeviceCounterConsumption {
  private final String counterSet;
  private final Map<String, Counter> counters;
  private final List<String> compatibilityGroups;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private DeviceCounterConsumption(
      @JsonProperty("counterSet") String counterSet,
      @JsonProperty("counters") Map<String, Counter> counters,
      @JsonProperty("compatibilityGroups") List<String> compatibilityGroups,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.counterSet = Objects.requireNonNull(counterSet, "counterSet");
    this.counters = Maps.sorted(counters);
    // Order is kept: the API stores the list as written (listType=atomic).
    this.compatibilityGroups = Maps.list(compatibilityGroups);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /**
   * A consumption without compatibility groups.
   *
   * @param counterSet the name of the counter set
   * @param counters counter name to amount consumed; at most 32
   */
  public static DeviceCounterConsumption of(String counterSet, Map<String, Counter> counters) {
    return new DeviceCounterConsumption(counterSet, counters, List.of(), Map.of());
  }

  /** This consumption with the given compatibility groups instead of its own. */
  public DeviceCounterConsumption withCompatibilityGroups(List<String> groups) {
    return new DeviceCounterConsumption(counterSet, counters, groups, unknownFields);
  }

  /** The name of the counter set. */
  public String counterSet() {
    return counterSet;
  }

  /** Counter name to amount consumed. */
  public Map<String, Counter> counters() {
    return counters;
  }

  /** At most 2 distinct DNS labels; empty means "no groups". */
  @FeatureGate(name = "DRADeviceCompatibilityGroups", stage = ALPHA)
  public List<String> compatibilityGroups() {
    return compatibilityGroups;
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
    return o instanceof DeviceCounterConsumption c
        && counterSet.equals(c.counterSet)
        && counters.equals(c.counters)
        && compatibilityGroups.equals(c.compatibilityGroups);
  }

  @Override
  public int hashCode() {
    return Objects.hash(counterSet, counters, compatibilityGroups);
  }

  @Override
  public String toString() {
    return "DeviceCounterConsumption[counterSet="
        + counterSet
        + ", counters="
        + counters
        + ", compatibilityGroups="
        + compatibilityGroups
        + Maps.unknown(unknownFields)
        + "]";
  }
}
