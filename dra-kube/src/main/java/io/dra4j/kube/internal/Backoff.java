package io.dra4j.kube.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * Exponential backoff, the one rule every retry of dra4j follows (the informers, the API client's
 * retries, the slice publisher, discovery); only the {@link Policy} differs by use. It computes the
 * delays as apimachinery's {@code wait.Backoff} does (apimachinery v0.37.2 {@code
 * pkg/util/wait/backoff.go:58-66, 98-133}): the n-th delay is {@code d·[1, 1 + jitter)} with {@code
 * d = initial·2^(n-1)}, and once {@code d} would pass the cap it stays at the cap, so every later
 * delay is {@code cap·[1, 1 + jitter)}. The jitter keeps the drivers of many nodes, which fail
 * together when the API server goes away, from retrying in lockstep when it comes back.
 *
 * <p>With a reset interval, the sequence starts again from {@code initial} when more than that has
 * passed since it last started, however many delays were taken meanwhile ({@code DelayWithReset},
 * {@code backoff.go:135-152, 292-304}): in a long outage it restarts every interval; after a
 * healthy stretch the next failure starts small.
 */
public final class Backoff {
  /**
   * How one backoff grows.
   *
   * @param initial the first delay before jitter
   * @param cap the largest delay before jitter
   * @param jitter each delay is stretched by a random share in {@code [0, jitter)}; 0 for none
   * @param resetInterval the sequence starts over when more than this has passed since it last
   *     started; zero for never (only {@link #reset()} does)
   */
  public record Policy(Duration initial, Duration cap, double jitter, Duration resetInterval) {
    public Policy {
      Objects.requireNonNull(initial, "initial");
      Objects.requireNonNull(cap, "cap");
      Objects.requireNonNull(resetInterval, "resetInterval");
      if (initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0 || jitter < 0) {
        throw new IllegalArgumentException(
            "backoff needs 0 < initial <= cap and jitter >= 0, got " + this);
      }
    }

    /**
     * Delays that double from {@code [first/2, first)} up to {@code [max/2, max)}, never reset but
     * by {@link #reset()}: the shape of the API client's and the slice publisher's retries.
     */
    public static Policy upTo(Duration first, Duration max) {
      return new Policy(first.dividedBy(2), max.dividedBy(2), 1.0, Duration.ZERO);
    }
  }

  /**
   * client-go's reflector (client-go v0.37.2 {@code tools/cache/reflector.go:57-67, 317-336}): 800
   * ms doubling, jitter 1.0, so delays of 0.8-1.6 s, 1.6-3.2 s, ... up to the cap of 30 s, then
   * 30-60 s each; the sequence starts again after 2 min.
   */
  public static final Policy REFLECTOR =
      new Policy(Duration.ofMillis(800), Duration.ofSeconds(30), 1.0, Duration.ofMinutes(2));

  private final Policy policy;
  private final LongSupplier nanoClock;
  private int attempt;
  private long started;

  public Backoff(Policy policy) {
    this(policy, System::nanoTime);
  }

  /** A backoff whose reset interval is measured on {@code nanoClock} (tests). */
  public Backoff(Policy policy, LongSupplier nanoClock) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.nanoClock = nanoClock;
    this.started = nanoClock.getAsLong();
  }

  /** The delay before the next attempt. */
  public synchronized Duration next() {
    long now = nanoClock.getAsLong();
    if (!policy.resetInterval().isZero() && now - started > policy.resetInterval().toNanos()) {
      attempt = 0;
      started = now;
    }
    attempt++;
    return delay(policy, attempt, ThreadLocalRandom.current().nextDouble());
  }

  /** Starts again from the initial delay (after a success, where the use says so). */
  public synchronized void reset() {
    attempt = 0;
    started = nanoClock.getAsLong();
  }

  /**
   * The delay of attempt {@code attempt} (1 for the first retry), stretched by {@code random} in
   * {@code [0, 1)} times the policy's jitter.
   */
  public static Duration delay(Policy policy, int attempt, double random) {
    long initial = policy.initial().toNanos();
    long cap = policy.cap().toNanos();
    int doublings = Math.min(Math.max(attempt - 1, 0), 62);
    long d = doublings >= Long.numberOfLeadingZeros(initial) - 1 ? cap : initial << doublings;
    d = Math.min(d, cap);
    return Duration.ofNanos(d + (long) (random * policy.jitter() * d));
  }

  /** {@link #delay(Policy, int, double)} with a fresh random share. */
  public static Duration delay(Policy policy, int attempt) {
    return delay(policy, attempt, ThreadLocalRandom.current().nextDouble());
  }
}
