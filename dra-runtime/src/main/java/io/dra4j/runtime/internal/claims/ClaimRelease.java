package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.kube.internal.Failures;
import io.dra4j.runtime.internal.CrashPoints;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.io.IOException;
import java.util.Optional;

/**
 * Releasing what a checkpoint record holds, in the one crash-safe order: provider.unprepare, the
 * claim's files, the record, the overlap guard. Two callers: the kubelet's unprepare, and the
 * rollback of a prepare that failed, was interrupted or is outdated (a record of an earlier boot).
 * Runs under the driver's lock and the claim's own.
 */
final class ClaimRelease {

  private final ClaimEvents events;
  private final Records records;
  private final ProviderCalls provider;
  private final ClaimFiles files;
  private final DeviceIndex index;

  ClaimRelease(
      ClaimEvents events,
      Records records,
      ProviderCalls provider,
      ClaimFiles files,
      DeviceIndex index) {
    this.events = events;
    this.records = records;
    this.provider = provider;
    this.files = files;
    this.index = index;
  }

  /**
   * Rolls back a record that a prepare or the recovery finds, unless it is a completed prepare of
   * this boot. A record of an earlier boot is rolled back best-effort: the reboot already reset its
   * devices.
   *
   * @return false when the record is kept
   * @throws ClaimException when the provider failed to roll back an interrupted prepare of this
   *     boot; the record is then kept
   */
  boolean rollBackIfStale(ClaimCheckpoint record) throws ClaimException, IOException {
    boolean earlier = records.fromEarlierBoot(record);
    if (record.isCompleted() && !earlier) {
      return false;
    }
    rollBack(
        record,
        earlier ? "it was written before the host rebooted" : "its prepare was interrupted",
        earlier);
    return true;
  }

  /**
   * Rolls back a claim's record.
   *
   * @param bestEffort a provider failure is reported and the rollback goes on
   * @throws ClaimException when the provider failed and {@code bestEffort} is false; the record is
   *     then kept
   */
  void rollBack(ClaimCheckpoint record, String why, boolean bestEffort)
      throws ClaimException, IOException {
    ClaimRef ref = record.claim();
    events.log().info("driver {} claim {}: rolling back ({})", events.driver(), ref, why);
    try {
      provider.unprepare(record);
    } catch (DeviceException | RuntimeException e) {
      if (!bestEffort) {
        throw new ClaimException(
            "claim "
                + ref
                + ": rolling back ("
                + why
                + ") failed: "
                + ref.unprefixed(Failures.describe(e)),
            e);
      }
      ignored(ref, "provider.unprepare during rollback failed (ignored, " + why + ")", e);
    }
    forget(record, CrashPoints.ROLLBACK_AFTER_PROVIDER, CrashPoints.ROLLBACK_AFTER_FILES);
    events.rolledBack();
  }

  /**
   * The kubelet's unprepare of one claim. Needs no API server (the claim may be gone): the record
   * says what to release; a claim without one succeeds without a provider call.
   *
   * @return the claim's error, empty on success
   */
  Optional<String> unprepare(ClaimRef ref) {
    String driver = events.driver();
    try {
      Optional<ClaimCheckpoint> existing = records.read(ref.uid());
      if (existing.isEmpty()) {
        // Never prepared, or already unprepared: remove strays, succeed without the provider.
        files.removeStrays(ref);
        index.release(ref.uid());
        events.log().info("driver {} claim {}: unprepared (was not prepared)", driver, ref);
        return Optional.empty();
      }
      ClaimCheckpoint rec = existing.get();
      try {
        provider.unprepare(rec);
      } catch (DeviceException | RuntimeException e) {
        if (!records.fromEarlierBoot(rec)) {
          if (e instanceof RuntimeException) {
            events.log().error("driver {} claim {}: provider.unprepare threw", driver, ref, e);
          }
          return Optional.of("claim " + ref + ": " + ref.unprefixed(Failures.describe(e)));
        }
        ignored(ref, "provider.unprepare of a record from before the reboot failed (ignored)", e);
      }
      forget(rec, CrashPoints.AFTER_PROVIDER_UNPREPARE, CrashPoints.AFTER_FILES_UNPREPARE);
      events.log().info("driver {} claim {}: unprepared", driver, ref);
      return Optional.empty();
    } catch (ClaimException e) {
      return Optional.of(e.getMessage());
    } catch (IOException e) {
      return Optional.of("claim " + ref + ": " + Failures.describe(e));
    } catch (RuntimeException e) {
      events.log().error("driver {} claim {}: unprepare failed unexpectedly", driver, ref, e);
      return Optional.of(
          "claim " + ref + ": internal error (see the driver's log): " + Failures.describe(e));
    }
  }

  /**
   * What follows the provider's release, in the crash-safe order: the files, the record, the
   * overlap guard. A crash at either point leaves the record, so the release is done again.
   */
  private void forget(ClaimCheckpoint record, String afterProvider, String afterFiles)
      throws IOException {
    CrashPoints.reach(afterProvider);
    files.remove(record);
    CrashPoints.reach(afterFiles);
    records.delete(record.claim().uid());
    index.release(record.claim().uid());
  }

  private void ignored(ClaimRef ref, String what, Exception e) {
    events.error(
        "driver "
            + events.driver()
            + " claim "
            + ref
            + ": "
            + what
            + ": "
            + ref.unprefixed(Failures.describe(e)),
        e);
  }
}
