package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
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
 *
 * @param counterSet the name of the counter set
 * @param counters counter name to amount consumed; at most 32
 * @param compatibilityGroups at most 2 distinct DNS labels; empty means "no groups"
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DeviceCounterConsumption(
    String counterSet, Map<String, Counter> counters, List<String> compatibilityGroups) {

  @JsonCreator
  public DeviceCounterConsumption(
      @JsonProperty("counterSet") String counterSet,
      @JsonProperty("counters") Map<String, Counter> counters,
      @JsonProperty("compatibilityGroups") List<String> compatibilityGroups) {
    this.counterSet = Objects.requireNonNull(counterSet, "counterSet");
    this.counters = Maps.sorted(counters);
    // Order is kept: the API stores the list as written (listType=atomic).
    this.compatibilityGroups = Maps.list(compatibilityGroups);
  }

  /** A consumption without compatibility groups. */
  public DeviceCounterConsumption(String counterSet, Map<String, Counter> counters) {
    this(counterSet, counters, List.of());
  }

  /** This consumption with the given compatibility groups instead of its own. */
  public DeviceCounterConsumption withCompatibilityGroups(List<String> groups) {
    return new DeviceCounterConsumption(counterSet, counters, groups);
  }
}
