package io.dra4j.runtime.internal.slices;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Pool names waiting for a sync, each with the time it is due. A pool is in the queue at most once,
 * which is what coalesces bursts: any number of requests for a pool before it runs make one sync.
 * Not thread-safe: the publisher guards it with its lock.
 */
final class PoolQueue {
  private final Map<String, Long> due = new HashMap<>();

  /** Queues {@code pool} at {@code atNanos}, or keeps the earlier time if it is already queued. */
  void add(String pool, long atNanos) {
    due.merge(pool, atNanos, (a, b) -> a - b <= 0 ? a : b);
  }

  boolean contains(String pool) {
    return due.containsKey(pool);
  }

  /** Removes and returns the pool that is due earliest, if it is due at {@code nowNanos}. */
  Optional<String> pollDue(long nowNanos) {
    String best = null;
    long bestAt = 0;
    for (Map.Entry<String, Long> e : due.entrySet()) {
      if (best == null || e.getValue() - bestAt < 0) {
        best = e.getKey();
        bestAt = e.getValue();
      }
    }
    if (best == null || bestAt - nowNanos > 0) {
      return Optional.empty();
    }
    due.remove(best);
    return Optional.of(best);
  }

  /** When the next pool is due; empty when the queue is empty. */
  Optional<Long> nextDue() {
    return due.values().stream().reduce((a, b) -> a - b <= 0 ? a : b);
  }

  int size() {
    return due.size();
  }

  boolean isEmpty() {
    return due.isEmpty();
  }
}
