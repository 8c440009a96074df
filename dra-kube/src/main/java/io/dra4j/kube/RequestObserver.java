package io.dra4j.kube;

/**
 * Hears every attempt an {@link HttpKubeClient} makes, for metrics. Called on the calling thread,
 * possibly concurrently: keep it quick and thread-safe.
 */
public interface RequestObserver {

  /**
   * One attempt of a call (a retried call makes several).
   *
   * @param verb {@code get}, {@code list}, {@code watch}, {@code create}, {@code update}, {@code
   *     apply} or {@code delete}
   * @param resource the plural, with {@code /status} for the status subresource; empty for a path
   *     outside the resource tree
   * @param status the HTTP status; 0 when no response came (connection failed, timed out)
   * @param nanos from sending the request to the response headers
   */
  void attempted(String verb, String resource, int status, long nanos);

  /** An attempt waited {@code nanos} for the client-side rate limit before it was sent. */
  void rateLimited(String verb, long nanos);

  /** An observer that does nothing. */
  RequestObserver NONE =
      new RequestObserver() {
        @Override
        public void attempted(String verb, String resource, int status, long nanos) {}

        @Override
        public void rateLimited(String verb, long nanos) {}
      };
}
