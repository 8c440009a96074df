package io.dra4j.runtime.kube;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with full jitter: each delay is random in [base·2^n / 2, base·2^n]. */
final class Backoff {
  private final long baseNanos;
  private final long maxNanos;
  private int attempt;

  Backoff(Duration base, Duration max) {
    this.baseNanos = Math.max(1, base.toNanos());
    this.maxNanos = Math.max(baseNanos, max.toNanos());
  }

  synchronized Duration next() {
    long ceiling = baseNanos << Math.min(attempt, 30);
    if (ceiling <= 0 || ceiling > maxNanos) {
      ceiling = maxNanos;
    }
    attempt++;
    long half = ceiling / 2;
    return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(ceiling - half + 1));
  }

  synchronized void reset() {
    attempt = 0;
  }
}
