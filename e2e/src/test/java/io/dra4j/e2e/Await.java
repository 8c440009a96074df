package io.dra4j.e2e;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/** Polls until a condition holds; the failure names what was awaited and the last state seen. */
final class Await {
  interface Probe<T> {
    /** The value once the condition holds, empty while it does not. */
    Optional<T> poll() throws Exception;
  }

  private Await() {}

  static <T> T until(String what, Duration timeout, Probe<T> probe, Supplier<String> context) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (true) {
      try {
        Optional<T> v = probe.poll();
        if (v.isPresent()) {
          return v.get();
        }
        last = null;
      } catch (Exception e) {
        last = e;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after "
                + timeout.toSeconds()
                + " s waiting for "
                + what
                + (last == null ? "" : " (last error: " + last + ")")
                + "\n"
                + context.get(),
            last);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }

  interface Check {
    boolean ok() throws Exception;
  }

  static void until(String what, Duration timeout, Check check, Supplier<String> context) {
    until(what, timeout, () -> check.ok() ? Optional.of(true) : Optional.empty(), context);
  }
}
