package io.dra4j.runtime.internal.claims;

import io.dra4j.kube.internal.Failures;
import io.dra4j.runtime.internal.CrashPoints;
import io.dra4j.runtime.internal.checkpoint.CheckpointListing;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Bringing the pipeline's memory (the overlap guard) and the node's files in line with the
 * checkpoint records: at startup, and whenever another driver process (a rolling update) held the
 * serialization lock since this one did.
 */
final class Recovery {

  private final ClaimEvents events;
  private final Records records;
  private final ClaimRelease release;
  private final ClaimFiles files;
  private final DeviceIndex index;

  Recovery(
      ClaimEvents events,
      Records records,
      ClaimRelease release,
      ClaimFiles files,
      DeviceIndex index) {
    this.events = events;
    this.records = records;
    this.release = release;
    this.files = files;
    this.index = index;
  }

  /**
   * Startup, alone under the serialization lock: rolls back interrupted prepares and records of an
   * earlier boot, rebuilds the overlap guard from the remaining records and removes this driver's
   * files that no record accounts for.
   */
  RecoveryReport run() throws IOException {
    records.removeInterruptedWrites();
    CheckpointListing listing = records.list();
    List<String> kept = new ArrayList<>();
    List<String> rolled = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    List<ClaimCheckpoint> remaining = new ArrayList<>();
    for (ClaimCheckpoint r : listing.records()) {
      try (var context = events.claim(r.claim())) {
        try {
          if (release.rollBackIfStale(r)) {
            rolled.add(r.claim().uid());
          } else {
            kept.add(r.claim().uid());
            remaining.add(r);
          }
        } catch (ClaimException | IOException e) {
          String why = r.claim().unprefixed(Failures.describe(e));
          failures.add(r.claim() + ": " + why);
          remaining.add(r);
          events.error(
              "driver "
                  + events.driver()
                  + " claim "
                  + r.claim()
                  + ": recovery could not roll it back (the record is kept and the rollback is"
                  + " tried again on the next prepare or start): "
                  + why,
              e);
        }
      }
    }
    index.rebuild(remaining);
    CrashPoints.reach(CrashPoints.RECOVERY_BEFORE_ORPHANS);
    List<Path> removed = files.removeOrphans(remaining, listing);
    RecoveryReport report = new RecoveryReport(kept, rolled, failures, removed, listing.problems());
    events
        .log()
        .info(
            "driver {}: recovered {} prepared claims, rolled back {}, {} rollback failures, removed"
                + " {} orphan files, {} unreadable records",
            events.driver(),
            kept.size(),
            rolled.size(),
            failures.size(),
            removed.size(),
            listing.problems().size());
    return report;
  }

  /**
   * Another driver process held the serialization lock since this one did: its prepares and
   * unprepares are in the records, not in this process's overlap guard.
   */
  void resync() throws IOException {
    CheckpointListing listing = records.list();
    index.rebuild(listing.records());
    events
        .log()
        .info(
            "driver {}: another driver process held the serialization lock; overlap guard rebuilt"
                + " from {} checkpoint records",
            events.driver(),
            listing.records().size());
  }
}
