package io.dra4j.kube.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter: the delay of attempt n is random in [d/2, d], d = base·2^(n-1),
 * at most max. The jitter keeps the drivers of many nodes, which fail together when the API server
 * goes away, from retrying in lockstep when it comes back.
 */
public final class Backoff {
  private final Duration base;
  private final Duration max;
  private int attempt;

  public Backoff(Duration base, Duration max) {
    this.base = base;
    this.max = max;
  }

  /** The delay before the next attempt; each call doubles the ceiling up to the maximum. */
  public synchronized Duration next() {
    attempt++;
    return delay(base, max, attempt);
  }

  /** Starts again from the base delay (after a success). */
  public synchronized void reset() {
    attempt = 0;
  }

  /** The delay of attempt {@code attempt} (1 for the first retry). */
  public static Duration delay(Duration base, Duration max, int attempt) {
    long baseNanos = Math.max(1, base.toNanos());
    long maxNanos = Math.max(baseNanos, max.toNanos());
    long ceiling = baseNanos << Math.min(Math.max(attempt - 1, 0), 30);
    if (ceiling <= 0 || ceiling > maxNanos) {
      ceiling = maxNanos;
    }
    long half = ceiling / 2;
    return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(ceiling - half + 1));
  }
}
