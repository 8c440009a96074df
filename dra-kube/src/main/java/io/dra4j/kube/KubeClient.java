package io.dra4j.kube;

import java.util.Map;

/**
 * The few Kubernetes API operations a DRA driver needs. The runtime ships an implementation on
 * HTTP/1.1 ({@link HttpKubeClient}); a user can plug in another client by implementing this
 * interface.
 *
 * <p>{@code namespace} is empty for cluster-scoped resources (and, for list and watch, means all
 * namespaces). All methods are thread-safe and throw {@link KubeException} carrying the HTTP status
 * and the API server's message.
 */
public interface KubeClient extends AutoCloseable {

  <T> T get(ResourceType<T> type, String namespace, String name) throws KubeException;

  <T> KubeList<T> list(ResourceType<T> type, String namespace, ListOptions options)
      throws KubeException;

  /**
   * Starts a watch; events arrive on a client thread until the stream ends or is closed. Use {@link
   * Informer} for list-then-watch with re-list on 410 Gone.
   */
  <T> Watch watch(
      ResourceType<T> type, String namespace, ListOptions options, WatchHandler<T> handler)
      throws KubeException;

  /** Creates the object; {@code metadata.generateName} is honoured when the name is empty. */
  <T> T create(ResourceType<T> type, T object) throws KubeException;

  /**
   * Replaces the object. {@code metadata.resourceVersion} must be the one read: a stale one fails
   * with 409 Conflict.
   */
  <T> T update(ResourceType<T> type, T object) throws KubeException;

  /** Replaces the {@code status} subresource (same concurrency rule as {@link #update}). */
  <T> T updateStatus(ResourceType<T> type, T object) throws KubeException;

  void delete(ResourceType<?> type, String namespace, String name, Preconditions preconditions)
      throws KubeException;

  /**
   * Server-side apply ({@code application/apply-patch+yaml}, sent as JSON) of a partial object,
   * optionally on a subresource such as {@code status}.
   *
   * @param subresource empty for the main resource
   * @param patch the partial object, including apiVersion and kind
   */
  <T> T apply(
      ResourceType<T> type,
      String namespace,
      String name,
      String subresource,
      Map<String, Object> patch,
      ApplyOptions options)
      throws KubeException;

  @Override
  void close();
}
