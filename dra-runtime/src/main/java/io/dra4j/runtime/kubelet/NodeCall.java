package io.dra4j.runtime.kubelet;

/**
 * What a {@link NodeService} learns about the kubelet call it is serving.
 *
 * <p>Implementations exist only inside the server; tests of a {@code NodeService} can implement it
 * in a few lines.
 */
public interface NodeCall {

  /** The process-wide request id that the server's log lines for this call carry. */
  long requestId();

  /**
   * The driver's serialization lock. When {@link NodeService#locksItself()} is false the server
   * already holds it around the call; otherwise the service takes it itself, after any slow work
   * that may run concurrently (for example fetching ResourceClaims from the API server).
   */
  SerializationLock lock();

  /** True once the kubelet gave up on the call (deadline passed or connection closed). */
  boolean isCancelled();
}
