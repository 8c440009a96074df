package io.dra4j.runtime.claims;

import java.io.PrintStream;

/**
 * Test seam for crash tests: when the system property {@value #PROPERTY} names a point, the thread
 * that reaches it prints {@code DRA4J-CRASH-POINT <name>} on stdout and blocks, so a test can kill
 * the process exactly there. Without the property this is one string comparison.
 */
final class CrashPoints {
  static final String PROPERTY = "dra4j.claims.crashPoint";
  static final String MARKER = "DRA4J-CRASH-POINT ";

  /** After the PrepareStarted record, before the provider is called. */
  static final String AFTER_STARTED = "after-started";

  /** After provider.prepare, before the CDI spec is written. */
  static final String AFTER_PROVIDER = "after-provider";

  /** After the CDI spec (and metadata) is written, before the PrepareCompleted record. */
  static final String AFTER_CDI = "after-cdi";

  /** After the PrepareCompleted record, before the claim status is applied. */
  static final String AFTER_COMPLETED = "after-completed";

  /** During unprepare: after provider.unprepare, before the CDI spec and record are removed. */
  static final String AFTER_PROVIDER_UNPREPARE = "after-provider-unprepare";

  private static final String POINT = System.getProperty(PROPERTY, "");

  private CrashPoints() {}

  static void reach(String point) {
    if (POINT.isEmpty() || !POINT.equals(point)) {
      return;
    }
    PrintStream out = System.out;
    out.println(MARKER + point);
    out.flush();
    while (true) {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        // Keep blocking: only the kill ends this.
      }
    }
  }
}
