package io.dra4j.kube;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Normalizing copies for the model records: no nulls, immutable, maps in a stable order. */
final class Norm {
  private Norm() {}

  static String str(String s) {
    return s == null ? "" : s;
  }

  static <T> Optional<T> opt(Optional<T> o) {
    return o == null ? Optional.empty() : o;
  }

  static <T> List<T> list(List<T> l) {
    return l == null || l.isEmpty() ? List.of() : List.copyOf(l);
  }

  static <V> Map<String, V> map(Map<String, V> m) {
    return m == null || m.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(m));
  }

  /** Unknown fields keep null values (JSON null is a value there), so no Map.copyOf. */
  static Map<String, Object> unknown(Map<String, Object> m) {
    return m == null || m.isEmpty()
        ? Map.of()
        : Collections.unmodifiableMap(new LinkedHashMap<>(new TreeMap<>(m)));
  }
}
