package io.dra4j.benchmarks.fleet;

import io.dra4j.kube.RequestObserver;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one simulated node's API client sent, seen from the client: every attempt by verb and
 * resource, and per second of the run for the whole fleet (the drivers' side of the QPS plot). The
 * API server's own counters say what arrived; these say which client sent it, which the server's
 * metrics cannot (they have no client label).
 */
final class RequestCounter implements RequestObserver {
  /** The verbs that change something on the server. */
  static final Set<String> WRITES = Set.of("create", "update", "apply", "delete");

  /** The resources a driver's informers list and watch: the publisher's and the guard's. */
  static final Set<String> INFORMED = Set.of("resourceslices", "deviceclasses", "nodes");

  private static final String SLICE_WRITE = "write resourceslices";

  private final Clock clock;
  private final AtomicLongArray perSecond; // shared by the fleet
  private final AtomicLongArray failedPerSecond; // shared by the fleet: no answer or 5xx
  private final Map<String, LongAdder> byVerbResource = new ConcurrentHashMap<>();
  private final LongAdder failed = new LongAdder();
  private volatile long armedAt = Long.MAX_VALUE;
  private final Map<String, Long> firstOkSinceArmed = new ConcurrentHashMap<>();

  RequestCounter(Clock clock, AtomicLongArray perSecond, AtomicLongArray failedPerSecond) {
    this.clock = clock;
    this.perSecond = perSecond;
    this.failedPerSecond = failedPerSecond;
  }

  @Override
  public void attempted(String verb, String resource, int status, long nanos) {
    long now = System.nanoTime();
    byVerbResource.computeIfAbsent(verb + " " + resource, k -> new LongAdder()).increment();
    int second = clock.second(now);
    if (second >= 0 && second < perSecond.length()) {
      perSecond.incrementAndGet(second);
    }
    boolean ok = status >= 200 && status < 300;
    if (!ok && (status == 0 || status >= 500)) {
      failed.increment();
      if (second >= 0 && second < failedPerSecond.length()) {
        failedPerSecond.incrementAndGet(second);
      }
    }
    if (ok && now >= armedAt) {
      if (verb.equals("list") || verb.equals("watch")) {
        firstOkSinceArmed.putIfAbsent(resource, now);
      } else if (WRITES.contains(verb) && resource.equals("resourceslices")) {
        firstOkSinceArmed.putIfAbsent(SLICE_WRITE, now);
      }
    }
  }

  @Override
  public void rateLimited(String verb, long nanos) {}

  /**
   * From now on, remembers the first answered list or watch of each resource, and the first
   * answered ResourceSlice write.
   */
  void arm(long since) {
    firstOkSinceArmed.clear();
    armedAt = since;
  }

  /**
   * When every informer of this node had an answered list or watch since {@link #arm}: the latest
   * of those first answers; absent while one is still missing.
   */
  java.util.OptionalLong reconnectedAt() {
    long latest = 0;
    for (String r : INFORMED) {
      Long t = firstOkSinceArmed.get(r);
      if (t == null) {
        return java.util.OptionalLong.empty();
      }
      latest = Math.max(latest, t);
    }
    return java.util.OptionalLong.of(latest);
  }

  /** The first answered ResourceSlice write since {@link #arm}; absent while there is none. */
  java.util.OptionalLong sliceWrittenAt() {
    Long t = firstOkSinceArmed.get(SLICE_WRITE);
    return t == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(t);
  }

  /** Attempts so far by {@code "verb resource"}. */
  Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    byVerbResource.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  long failedAttempts() {
    return failed.sum();
  }

  /** Seconds since the run's start, for the per-second counts. */
  record Clock(long startNanos) {
    int second(long nanos) {
      return (int) ((nanos - startNanos) / 1_000_000_000L);
    }

    double seconds(long nanos) {
      return (nanos - startNanos) / 1e9;
    }
  }
}
