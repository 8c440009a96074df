package io.dra4j.api.device;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Defensive copies that also give maps a stable (sorted) order, so output is deterministic; and the
 * lenient reading of absent JSON fields (Jackson hands a creator null for them).
 */
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

  static <T> Optional<T> optional(Optional<T> value) {
    return value == null ? Optional.empty() : value;
  }

  /** {@code ", unknownFields={...}"} for a record-like toString, or nothing when there are none. */
  static String unknown(Map<String, Object> unknownFields) {
    return unknownFields.isEmpty() ? "" : ", unknownFields=" + unknownFields;
  }
}
