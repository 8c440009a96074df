package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;
import java.util.Objects;

/**
 * Shared counters from which partitionable devices draw (KEP-4815), e.g. the memory slices of one
 * GPU. Since Kubernetes 1.35 counter sets live in their own ResourceSlice; the publisher takes care
 * of that.
 *
 * @param name DNS label, unique in the pool
 * @param counters counter name (DNS label) to total amount; at most 32
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record CounterSet(String name, Map<String, Counter> counters) {
  public CounterSet {
    Objects.requireNonNull(name, "counter set name");
    counters = Maps.sorted(counters);
  }
}
