package io.dra4j.runtime.internal.slices;

import io.dra4j.validation.PoolValidation;

/**
 * What a {@link SlicePublisher} reports besides its counters. Callbacks run on the publisher's
 * worker thread: keep them short, and do not wait for the publisher in them ({@link
 * SlicePublisher#awaitIdle} would only time out). An exception thrown by a callback is logged and
 * ignored. A listener observes (tests, metrics); the same errors, invalid pools and dropped fields
 * also go to the publisher's {@link SlicePublisher.Builder#errorHandler error handler}, which logs
 * them by default.
 */
public interface PublishListener {

  /**
   * A synchronization of {@code pool} failed; it is retried with exponential backoff.
   *
   * @param e usually a {@link io.dra4j.kube.KubeException}
   */
  default void onError(String pool, Exception e) {}

  /**
   * A desired pool is invalid and was not published; its slices on the API server were left as they
   * are. Reported once per distinct desired state of the pool.
   */
  default void onInvalidPool(PoolValidation v) {}

  /**
   * The API server stored slice {@code sliceIndex} of {@code pool} with fewer fields than sent (a
   * feature gate is off). The publisher adopted the stored form, so it does not write again.
   */
  default void onDroppedFields(String pool, int sliceIndex, DroppedFields d) {}

  /**
   * {@code pool} matches its desired state; {@code slices} is its number of slices (0 after a
   * removed pool's slices were deleted).
   */
  default void onSynced(String pool, int slices) {}
}
