package io.dra4j.kube.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  @Test
  void theReflectorsDelaysAreClientGosFromTheFirstToTheCap() {
    // wait.Backoff{800ms, Factor 2, Jitter 1, Cap 30s}: d·[1, 2), d doubling until the cap.
    long[] d = {800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000};
    for (int attempt = 1; attempt <= d.length; attempt++) {
      long base = d[attempt - 1];
      assertThat(Backoff.delay(Backoff.REFLECTOR, attempt, 0.0)).isEqualTo(ms(base));
      assertThat(Backoff.delay(Backoff.REFLECTOR, attempt, 0.999_999))
          .isLessThan(ms(2 * base))
          .isGreaterThan(ms(2 * base - 1));
    }
    assertThat(Backoff.delay(Backoff.REFLECTOR, 1000, 0.5)).isEqualTo(ms(45_000));
  }

  @Test
  void upToKeepsEachDelayInTheUpperHalfOfItsCeiling() {
    Backoff.Policy p = Backoff.Policy.upTo(ms(100), Duration.ofSeconds(30));
    for (int attempt = 1; attempt <= 70; attempt++) {
      long ceiling = Math.min(100L << Math.min(attempt - 1, 30), 30_000L);
      for (int i = 0; i < 20; i++) {
        assertThat(Backoff.delay(p, attempt).toNanos())
            .as("attempt %d", attempt)
            .isBetween(ceiling * 1_000_000 / 2, ceiling * 1_000_000);
      }
    }
  }

  @Test
  void withoutJitterTheDelaysAreExact() {
    Backoff.Policy p = new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(60), 0, ms(0));
    Backoff b = new Backoff(p);
    for (long s : new long[] {1, 2, 4, 8, 16, 32, 60, 60}) {
      assertThat(b.next()).isEqualTo(Duration.ofSeconds(s));
    }
  }

  @Test
  void delaysAreJitteredNotInLockstep() {
    Set<Duration> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      seen.add(Backoff.delay(Backoff.REFLECTOR, 5));
    }
    // 100 draws from [12.8 s, 25.6 s) in nanoseconds: a fixed delay would give one value.
    assertThat(seen).hasSizeGreaterThan(90);
  }

  @Test
  void nextGrowsAndResetStartsOver() {
    Backoff b = new Backoff(Backoff.Policy.upTo(ms(100), Duration.ofSeconds(30)));
    assertThat(b.next()).isBetween(ms(50), ms(100));
    assertThat(b.next()).isBetween(ms(100), ms(200));
    assertThat(b.next()).isBetween(ms(200), ms(400));
    b.reset();
    assertThat(b.next()).isBetween(ms(50), ms(100));
  }

  @Test
  void theSequenceStartsOverOnceTheResetIntervalPassedSinceItStarted() {
    AtomicLong now = new AtomicLong();
    Backoff b = new Backoff(Backoff.REFLECTOR, now::get);
    for (int i = 0; i < 6; i++) {
      b.next();
      now.addAndGet(Duration.ofSeconds(20).toNanos());
    }
    // 120 s since the start: not more than the interval yet, so still growing (the cap).
    assertThat(b.next()).isGreaterThanOrEqualTo(Duration.ofSeconds(30));
    now.addAndGet(1);
    // Past 2 min since the sequence started, however many delays were taken meanwhile.
    assertThat(b.next()).isLessThan(ms(1600));
    assertThat(b.next()).isGreaterThanOrEqualTo(ms(1600));
  }

  @Test
  void aPolicyIsCheckedWhenMade() {
    assertThatThrownBy(() -> new Backoff.Policy(ms(0), ms(10), 1, ms(0)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff.Policy(ms(20), ms(10), 1, ms(0)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
