package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;
import java.util.Objects;

/**
 * The counters a device consumes from one counter set of its pool when it is allocated.
 *
 * @param counterSet the name of the counter set
 * @param counters counter name to amount consumed; at most 32
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DeviceCounterConsumption(String counterSet, Map<String, Counter> counters) {
  public DeviceCounterConsumption {
    Objects.requireNonNull(counterSet, "counterSet");
    counters = Maps.sorted(counters);
  }
}
