package io.dra4j.runtime.internal.claims;

import io.dra4j.runtime.internal.checkpoint.CheckpointException;
import io.dra4j.runtime.internal.checkpoint.CheckpointListing;
import io.dra4j.runtime.internal.checkpoint.CheckpointStore;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The pipeline's checkpoint records: the {@link CheckpointStore} with the pipeline's rules around
 * it (a corrupt record moved aside reads as none and is reported; a write is timed for the
 * listener; the time of a record comes from the pipeline's clock).
 */
final class Records {

  private final CheckpointStore store;
  private final Clock clock;
  private final ClaimEvents events;

  Records(CheckpointStore store, Clock clock, ClaimEvents events) {
    this.store = store;
    this.clock = clock;
    this.events = events;
  }

  String bootId() {
    return store.bootId();
  }

  Instant now() {
    return clock.instant();
  }

  /** Whether the record was written before the host rebooted: its devices were reset since. */
  boolean fromEarlierBoot(ClaimCheckpoint record) {
    return store.fromEarlierBoot(record);
  }

  /**
   * The claim's record, if any. A corrupt record was moved aside by the store: nothing is known
   * about what it prepared, so it reads as none (and is reported).
   *
   * @throws ClaimException when the record cannot be read and stays in place
   */
  Optional<ClaimCheckpoint> read(String uid) throws ClaimException, IOException {
    try {
      return store.read(uid);
    } catch (CheckpointException e) {
      if (e.movedTo().isPresent()) {
        // The message names the record and its claim.
        events.error("driver " + events.driver() + ": " + e.getMessage(), e);
        return Optional.empty();
      }
      throw new ClaimException(e.getMessage(), e);
    }
  }

  void write(ClaimCheckpoint record) throws IOException {
    long start = System.nanoTime();
    boolean failed = true;
    try {
      store.write(record);
      failed = false;
    } finally {
      events.checkpointWritten(Duration.ofNanos(System.nanoTime() - start), failed);
    }
  }

  void delete(String uid) throws IOException {
    store.delete(uid);
  }

  CheckpointListing list() throws IOException {
    return store.list();
  }

  void removeInterruptedWrites() throws IOException {
    store.removeInterruptedWrites();
  }
}
