package io.dra4j.kube.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static final Duration BASE = Duration.ofMillis(100);
  private static final Duration MAX = Duration.ofSeconds(30);

  @Test
  void theCeilingDoublesUpToTheMaximumAndEachDelayIsInItsUpperHalf() {
    for (int attempt = 1; attempt <= 40; attempt++) {
      long ceiling = Math.min(100L << Math.min(attempt - 1, 30), 30_000L);
      for (int i = 0; i < 50; i++) {
        long nanos = Backoff.delay(BASE, MAX, attempt).toNanos();
        assertThat(nanos)
            .as("attempt %d", attempt)
            .isBetween(ceiling * 1_000_000 / 2, ceiling * 1_000_000);
      }
    }
  }

  @Test
  void delaysAreJitteredNotInLockstep() {
    Set<Duration> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      seen.add(Backoff.delay(BASE, MAX, 5));
    }
    // 100 draws from [800 ms, 1600 ms] in nanoseconds: a fixed delay would give one value.
    assertThat(seen).hasSizeGreaterThan(90);
  }

  @Test
  void nextGrowsAndResetStartsOver() {
    Backoff b = new Backoff(BASE, MAX);
    assertThat(b.next()).isBetween(Duration.ofMillis(50), BASE);
    assertThat(b.next()).isBetween(Duration.ofMillis(100), Duration.ofMillis(200));
    assertThat(b.next()).isBetween(Duration.ofMillis(200), Duration.ofMillis(400));
    b.reset();
    assertThat(b.next()).isBetween(Duration.ofMillis(50), BASE);
  }
}
