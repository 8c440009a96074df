package io.dra4j.runtime.testsupport;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Polls until a condition holds: the one way dra4j's tests wait for something to happen. The
 * timeout only bounds a hang, so make it generous; it is never a measure of speed. The failure
 * names what was awaited, the last error the condition threw (an exception counts as "not yet"),
 * and the state the caller's {@code context} describes. Polling starts at once and backs off from 1
 * ms to 100 ms, so a condition that is quickly true costs nothing and a slow one little.
 */
public final class Await {
  private static final long FIRST_PAUSE_MILLIS = 1;
  private static final long MAX_PAUSE_MILLIS = 100;

  /** A condition that yields a value. */
  @FunctionalInterface
  public interface Probe<T> {
    /** The value once the condition holds, empty while it does not. */
    Optional<T> poll() throws Exception;
  }

  /** A condition. */
  @FunctionalInterface
  public interface Check {
    boolean ok() throws Exception;
  }

  private Await() {}

  /**
   * Waits until the wall clock is in a later second than when called, so that an object created
   * next gets a later creationTimestamp than one created before: Kubernetes keeps whole seconds.
   */
  public static void nextSecond() {
    long second = Instant.now().getEpochSecond();
    until("the next second", Duration.ofSeconds(10), () -> Instant.now().getEpochSecond() > second);
  }

  /** Waits until {@code check} holds. */
  public static void until(String what, Duration timeout, Check check) {
    until(what, timeout, check, () -> "");
  }

  /** Waits until {@code probe} yields a value and returns it. */
  public static <T> T until(String what, Duration timeout, Probe<T> probe) {
    return until(what, timeout, probe, () -> "");
  }

  /** Waits until {@code check} holds; on a timeout the failure adds {@code context}. */
  public static void until(String what, Duration timeout, Check check, Supplier<String> context) {
    until(what, timeout, () -> check.ok() ? Optional.of(true) : Optional.empty(), context);
  }

  /** Waits until {@code probe} yields a value; on a timeout the failure adds {@code context}. */
  public static <T> T until(
      String what, Duration timeout, Probe<T> probe, Supplier<String> context) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = FIRST_PAUSE_MILLIS;
    while (true) {
      Exception last;
      try {
        Optional<T> v = probe.poll();
        if (v.isPresent()) {
          return v.get();
        }
        last = null;
      } catch (Exception e) {
        last = e;
      }
      if (System.nanoTime() - deadline > 0) {
        String more = context.get();
        throw new AssertionError(
            "timed out after "
                + timeout.toMillis()
                + " ms waiting for "
                + what
                + (last == null ? "" : " (last error: " + last + ")")
                + (more.isEmpty() ? "" : "\n" + more),
            last);
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
      pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
    }
  }
}
