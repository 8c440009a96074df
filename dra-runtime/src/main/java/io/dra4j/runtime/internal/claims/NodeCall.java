package io.dra4j.runtime.internal.claims;

import java.time.Instant;
import java.util.Optional;

/**
 * What a {@link NodeService} learns about the kubelet call it is serving.
 *
 * <p>Implementations exist only inside the server; tests of a {@code NodeService} can implement it
 * in a few lines.
 */
public interface NodeCall {

  /** The process-wide request id that the server's log lines for this call carry. */
  long requestId();

  /** When the kubelet gives up on the call (its gRPC deadline), by this host's clock. */
  Optional<Instant> deadline();

  /** True once the kubelet gave up on the call (deadline passed or connection closed). */
  boolean isCancelled();

  /** Runs {@code hook} once when the call is cancelled; at once, on this thread, if it is. */
  void onCancel(Runnable hook);
}
