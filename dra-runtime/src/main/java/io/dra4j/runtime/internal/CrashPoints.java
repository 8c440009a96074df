package io.dra4j.runtime.internal;

import java.io.PrintStream;
import java.util.List;

/**
 * Test seam for the kill -9 tests: when the system property {@value #PROPERTY} names a point, the
 * thread that reaches it prints {@code DRA4J-CRASH-POINT <name>} on stdout and blocks, so a test
 * can kill the process exactly there. Without the property this is one string comparison.
 *
 * <p>{@link #ALL} lists every point; the crash matrix test runs each of them, so a point added here
 * without a scenario there fails the build.
 */
public final class CrashPoints {
  public static final String PROPERTY = "dra4j.claims.crashPoint";
  public static final String MARKER = "DRA4J-CRASH-POINT ";

  /** Prepare: after the PrepareStarted record, before the provider is called. */
  public static final String AFTER_STARTED = "after-started";

  /** Prepare: after provider.prepare, before the CDI spec is written. */
  public static final String AFTER_PROVIDER = "after-provider";

  /** Prepare: after the CDI spec (and metadata) is written, before the PrepareCompleted record. */
  public static final String AFTER_CDI = "after-cdi";

  /** Prepare: after the PrepareCompleted record, before the claim status is applied. */
  public static final String AFTER_COMPLETED = "after-completed";

  /** Status apply: the claim status is in the API server, the kubelet has no answer yet. */
  public static final String AFTER_STATUS = "after-status";

  /** Unprepare: after provider.unprepare, before the CDI spec and record are removed. */
  public static final String AFTER_PROVIDER_UNPREPARE = "after-provider-unprepare";

  /** Unprepare: the CDI spec and metadata are removed, the record is still there. */
  public static final String AFTER_FILES_UNPREPARE = "after-files-unprepare";

  /** Rollback (recovery, a failed or outdated prepare): after provider.unprepare, files remain. */
  public static final String ROLLBACK_AFTER_PROVIDER = "rollback-after-provider";

  /** Rollback: CDI spec and metadata removed, the record not yet deleted. */
  public static final String ROLLBACK_AFTER_FILES = "rollback-after-files";

  /** Recovery: interrupted prepares rolled back, orphan files not yet removed. */
  public static final String RECOVERY_BEFORE_ORPHANS = "recovery-before-orphans";

  /** Publishing: the first write of a pool's sync is done, the others are not. */
  public static final String PUBLISH_AFTER_FIRST_WRITE = "publish-after-first-write";

  /** Every point, in pipeline order. */
  public static final List<String> ALL =
      List.of(
          AFTER_STARTED,
          AFTER_PROVIDER,
          AFTER_CDI,
          AFTER_COMPLETED,
          AFTER_STATUS,
          AFTER_PROVIDER_UNPREPARE,
          AFTER_FILES_UNPREPARE,
          ROLLBACK_AFTER_PROVIDER,
          ROLLBACK_AFTER_FILES,
          RECOVERY_BEFORE_ORPHANS,
          PUBLISH_AFTER_FIRST_WRITE);

  private static final String POINT = System.getProperty(PROPERTY, "");

  private CrashPoints() {}

  /** Blocks forever when {@code point} is the configured one; returns at once otherwise. */
  public static void reach(String point) {
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
