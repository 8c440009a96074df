package io.dra4j.runtime.internal.slices;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Existing slices matched to desired slice indices by {@link SliceNames#match}.
 *
 * @param matched desired index to the existing slice that holds it, sorted by index
 * @param obsolete existing slices that match no desired index (to be deleted)
 * @param <T> the slice type (a ResourceSlice, or just a name)
 */
record SliceMatch<T>(Map<Integer, T> matched, List<T> obsolete) {
  public SliceMatch {
    matched = Collections.unmodifiableMap(new TreeMap<>(matched));
    obsolete = List.copyOf(obsolete);
  }

  /** The existing slice for desired index {@code index}, if any. */
  public Optional<T> at(int index) {
    return Optional.ofNullable(matched.get(index));
  }
}
