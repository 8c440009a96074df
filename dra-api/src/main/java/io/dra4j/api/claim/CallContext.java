package io.dra4j.api.claim;

import java.time.Instant;
import java.util.Optional;

/**
 * The kubelet's call that a {@code prepare} serves: its deadline, and whether the kubelet gave up.
 *
 * <p>The kubelet gives each {@code NodePrepareResources} call one deadline for all the claims it
 * names: 45 seconds by default ({@code k8s.io/kubernetes@v1.37.2
 * pkg/kubelet/cm/dra/plugin/dra_plugin.go:43}). When the deadline passes or the kubelet cancels the
 * call, the context is cancelled: {@link #isCancelled()} turns true and the {@link #onCancel} hooks
 * run. The kubelet then retries the claim in a later call. What {@code prepare} returns after that
 * is still recorded, and the retry is answered from the record; a provider that would rather not
 * finish throws a {@link DeviceException}, and the runtime undoes the claim with {@code unprepare}
 * as for any failure.
 *
 * <p>Implemented by the runtime; {@link #none()} serves tests and calls outside the kubelet.
 */
public interface CallContext {

  /** When the kubelet gives up on the call, as this host's clock reads it; empty when never. */
  Optional<Instant> deadline();

  /** True once the kubelet gave up on the call: its deadline passed or it cancelled the call. */
  boolean isCancelled();

  /**
   * Runs {@code hook} once when the call is cancelled, on the thread that notices; at once, on this
   * thread, when it already is. A hook registered during {@code prepare} is dropped when {@code
   * prepare} returns. Hooks must be quick; an exception a hook throws is logged and ignored.
   */
  void onCancel(Runnable hook);

  /** A context without deadline that is never cancelled. */
  static CallContext none() {
    return NoCallContext.INSTANCE;
  }
}
