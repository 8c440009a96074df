package io.dra4j.api.device;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Defensive copies that also give maps a stable (sorted) order, so output is deterministic. */
final class Maps {
  private Maps() {}

  static <V> Map<String, V> sorted(Map<String, V> map) {
    if (map == null || map.isEmpty()) {
      return Map.of();
    }
    return Collections.unmodifiableMap(new TreeMap<>(map));
  }

  static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : List.copyOf(list);
  }
}
