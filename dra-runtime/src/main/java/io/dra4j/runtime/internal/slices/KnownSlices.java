package io.dra4j.runtime.internal.slices;

import io.dra4j.kube.ResourceSlice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a {@link SlicePublisher} knows of the slices on the API server, and which of them it owns:
 * the informers' cache, overlaid with its own writes and deletes.
 *
 * <p><b>Own writes.</b> Every object the API server returns from a write is remembered until the
 * informer delivers that resourceVersion or a newer one, so the next sync never works from a stale
 * cache: a created slice is not created twice, a deleted one is not updated. The echo of an own
 * write is not a change made by someone else.
 *
 * <p><b>Ownership.</b> A node-local publisher owns every slice of its driver on its node; slices
 * without a node name it owns only for pools it published in this process ({@link #claim}), because
 * other nodes may publish those. A publisher without a node owns every slice of its driver without
 * a node name, like the Go controller.
 *
 * <p>Owned by the publisher's worker thread; not thread-safe.
 */
final class KnownSlices {
  /** How long a write result is trusted over an informer that has not delivered it yet. */
  static final Duration MUTATION_TTL = Duration.ofMinutes(1);

  private final String driver;
  private final Optional<String> nodeName;
  private final Map<String, Map<String, ResourceSlice>> observed = new HashMap<>();
  private final Map<String, Recent> recent = new HashMap<>();
  private final Map<String, Recent> tombstones = new HashMap<>();
  private final Set<String> claimed = new HashSet<>();
  private long housekeepingDue;
  private boolean housekeepingScheduled;

  KnownSlices(String driver, Optional<String> nodeName) {
    this.driver = driver;
    this.nodeName = nodeName;
  }

  /**
   * An own write (or delete, then {@code slice} may be null) and when it happened.
   *
   * @param pool the pool of the slice
   */
  private record Recent(String pool, ResourceSlice slice, long atNanos) {
    String resourceVersion() {
      return slice == null ? "" : slice.metadata().resourceVersion();
    }
  }

  /**
   * The informer added or updated {@code s}.
   *
   * @return whether someone else changed it (false for the echo of an own write, and while the
   *     informer is behind one)
   */
  boolean informerUpserted(ResourceSlice s) {
    String name = s.metadata().name();
    observed.computeIfAbsent(s.spec().pool().name(), k -> new HashMap<>()).put(name, s);
    Recent mine = recent.get(name);
    if (mine == null) {
      return !tombstones.containsKey(name);
    }
    int cmp = compareVersions(s.metadata().resourceVersion(), mine.resourceVersion());
    if (cmp < 0) {
      return false; // the informer is behind our own write; it will catch up
    }
    recent.remove(name);
    return cmp > 0;
  }

  /**
   * The informer deleted {@code s}.
   *
   * @return whether someone else deleted it
   */
  boolean informerDeleted(ResourceSlice s) {
    String name = s.metadata().name();
    String pool = s.spec().pool().name();
    Map<String, ResourceSlice> slices = observed.get(pool);
    if (slices != null) {
      slices.remove(name);
      if (slices.isEmpty()) {
        observed.remove(pool);
      }
    }
    recent.remove(name);
    return tombstones.remove(name) == null;
  }

  /**
   * Orders two resourceVersions: numerically when both are numbers (as with etcd), otherwise only
   * equality is known and a different version counts as newer.
   */
  static int compareVersions(String a, String b) {
    if (a.equals(b)) {
      return 0;
    }
    try {
      return Long.compare(Long.parseLong(a), Long.parseLong(b));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /** The API server returned {@code stored} from a write or a read of ours. */
  void written(String pool, ResourceSlice stored) {
    String name = stored.metadata().name();
    tombstones.remove(name);
    recent.put(name, new Recent(pool, stored, System.nanoTime()));
    scheduleHousekeeping();
  }

  /** We deleted slice {@code name}, or found it gone; {@code last} is what it was, if known. */
  void gone(String pool, String name, ResourceSlice last) {
    recent.remove(name);
    tombstones.put(name, new Recent(pool, last, System.nanoTime()));
    scheduleHousekeeping();
  }

  /** The pool's slices as far as we know: the informer's, overlaid with our own newer writes. */
  List<ResourceSlice> view(String pool) {
    Map<String, ResourceSlice> slices = new HashMap<>(observed.getOrDefault(pool, Map.of()));
    for (Map.Entry<String, Recent> e : recent.entrySet()) {
      if (e.getValue().pool().equals(pool)) {
        slices.put(e.getKey(), e.getValue().slice());
      }
    }
    slices.keySet().removeAll(tombstones.keySet());
    List<ResourceSlice> out = new ArrayList<>(slices.size());
    for (ResourceSlice s : slices.values()) {
      if (owns(s)) {
        out.add(s);
      }
    }
    return out;
  }

  /** The pools of which the informers hold at least one owned slice. */
  Set<String> ownedPools() {
    Set<String> pools = new LinkedHashSet<>();
    for (Map.Entry<String, Map<String, ResourceSlice>> e : observed.entrySet()) {
      if (e.getValue().values().stream().anyMatch(this::owns)) {
        pools.add(e.getKey());
      }
    }
    return pools;
  }

  boolean owns(ResourceSlice s) {
    if (!s.spec().driver().equals(driver)) {
      return false;
    }
    String node = s.spec().nodeName().orElse("");
    if (nodeName.isPresent()) {
      return node.equals(nodeName.get())
          || (node.isEmpty() && claimed.contains(s.spec().pool().name()));
    }
    return node.isEmpty();
  }

  /** This process published these pools: their slices without a node name are ours from now on. */
  void claim(Collection<String> pools) {
    claimed.addAll(pools);
  }

  private void scheduleHousekeeping() {
    if (!housekeepingScheduled) {
      housekeepingScheduled = true;
      housekeepingDue = System.nanoTime() + MUTATION_TTL.toNanos();
    }
  }

  /** Nanoseconds from {@code now} until {@link #expire} is due; {@code Long.MAX_VALUE} if never. */
  long housekeepingIn(long now) {
    return housekeepingScheduled ? housekeepingDue - now : Long.MAX_VALUE;
  }

  /**
   * Forgets own writes and deletes the informer never confirmed within {@link #MUTATION_TTL}
   * (possible only when a re-list skipped a short-lived object).
   *
   * @return their pools, to sync again
   */
  Set<String> expire(long now) {
    long ttl = MUTATION_TTL.toNanos();
    long next = Long.MAX_VALUE;
    Set<String> check = new HashSet<>();
    for (Map<String, Recent> map : List.of(recent, tombstones)) {
      Iterator<Map.Entry<String, Recent>> it = map.entrySet().iterator();
      while (it.hasNext()) {
        Recent r = it.next().getValue();
        if (now - r.atNanos() >= ttl) {
          it.remove();
          check.add(r.pool());
        } else {
          next = Math.min(next, r.atNanos() + ttl - now);
        }
      }
    }
    housekeepingScheduled = next != Long.MAX_VALUE;
    housekeepingDue = now + (housekeepingScheduled ? next : 0);
    return check;
  }
}
