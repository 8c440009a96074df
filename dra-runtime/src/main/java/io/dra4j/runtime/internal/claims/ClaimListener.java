package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import java.time.Duration;

/**
 * Hears what the prepare pipeline did, for metrics and events. Called on the pipeline's threads,
 * possibly concurrently: keep it quick and thread-safe. Exceptions are logged and ignored.
 */
public interface ClaimListener {

  /**
   * A claim is prepared.
   *
   * @param repeat true when the answer came from the checkpoint (the provider was not called)
   */
  default void prepared(ClaimRef claim, Duration took, boolean repeat) {}

  /** A claim is unprepared (or was not prepared at all). */
  default void unprepared(ClaimRef claim, Duration took) {}

  /** Preparing a claim failed; {@code error} is what the kubelet gets. */
  default void prepareFailed(ClaimRef claim, String error, Duration took) {}

  /** Unpreparing a claim failed; {@code error} is what the kubelet gets. */
  default void unprepareFailed(ClaimRef claim, String error, Duration took) {}

  /** Which call of the provider {@link #providerCalled} reports. */
  enum ProviderCall {
    PREPARE,
    UNPREPARE
  }

  /**
   * The provider's prepare or unprepare returned, or threw ({@code failed}); a rollback's unprepare
   * included.
   */
  default void providerCalled(ProviderCall call, Duration took, boolean failed) {}

  /** A checkpoint record was written (written to disk and synced, or failed: {@code failed}). */
  default void checkpointWritten(Duration took, boolean failed) {}

  /** A listener that does nothing. */
  ClaimListener NONE = new ClaimListener() {};
}
