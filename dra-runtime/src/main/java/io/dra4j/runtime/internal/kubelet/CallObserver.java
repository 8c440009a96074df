package io.dra4j.runtime.internal.kubelet;

/**
 * Hears every NodePrepareResources and NodeUnprepareResources call the server answered, for
 * metrics. Called on the gRPC threads, possibly concurrently: keep it quick and thread-safe.
 */
@FunctionalInterface
public interface CallObserver {

  /** How a call ended. */
  enum Result {
    /** Every claim of the call succeeded. */
    SUCCESS,
    /** The call was answered, with an error for at least one of its claims. */
    CLAIM_ERROR,
    /** The call itself failed with a gRPC status (bad request, API server unreachable, ...). */
    CALL_ERROR
  }

  /**
   * @param method the gRPC method with its service version, e.g. {@code v1.NodePrepareResources}
   * @param nanos from receiving the request to answering it
   */
  void answered(String method, Result result, long nanos);

  /** An observer that does nothing. */
  CallObserver NONE = (method, result, nanos) -> {};
}
