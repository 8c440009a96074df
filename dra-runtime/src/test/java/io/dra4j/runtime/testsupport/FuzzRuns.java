package io.dra4j.runtime.testsupport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the inputs each fuzz target ran, and prints the count when its class is done ({@code fuzz:
 * <target>: <n> executions}, which {@code .ci/run} collects). Shared by the fuzz tests of every
 * module through dra-runtime's test jar.
 */
public final class FuzzRuns {
  private static final Map<String, AtomicLong> RUNS = new ConcurrentHashMap<>();

  private FuzzRuns() {}

  /** One more input for {@code target}. */
  public static void count(Class<?> target) {
    RUNS.computeIfAbsent(target.getSimpleName(), k -> new AtomicLong()).incrementAndGet();
  }

  /** Prints how many inputs {@code target} ran (call it from an {@code @AfterAll}). */
  public static void report(Class<?> target) {
    AtomicLong n = RUNS.get(target.getSimpleName());
    System.out.println(
        "fuzz: " + target.getSimpleName() + ": " + (n == null ? 0 : n.get()) + " executions");
  }
}
