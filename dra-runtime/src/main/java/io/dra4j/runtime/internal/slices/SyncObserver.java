package io.dra4j.runtime.internal.slices;

/**
 * Hears how long each pool synchronization of a {@link SlicePublisher} took, for metrics. Called on
 * the publisher's worker thread: keep it quick.
 */
@FunctionalInterface
public interface SyncObserver {

  /**
   * One synchronization of one pool ran: the reads and writes that brought it to its desired state,
   * or failed ({@code failed}; it is retried with backoff).
   */
  void synced(long nanos, boolean failed);

  /** An observer that does nothing. */
  SyncObserver NONE = (nanos, failed) -> {};
}
