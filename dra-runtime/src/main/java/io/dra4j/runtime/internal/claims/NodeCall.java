package io.dra4j.runtime.internal.claims;

/**
 * What a {@link NodeService} learns about the kubelet call it is serving.
 *
 * <p>Implementations exist only inside the server; tests of a {@code NodeService} can implement it
 * in a few lines.
 */
public interface NodeCall {

  /** The process-wide request id that the server's log lines for this call carry. */
  long requestId();

  /** True once the kubelet gave up on the call (deadline passed or connection closed). */
  boolean isCancelled();
}
