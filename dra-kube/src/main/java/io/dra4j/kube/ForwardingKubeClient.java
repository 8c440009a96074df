package io.dra4j.kube;

import java.util.Map;
import java.util.Objects;

/**
 * A {@link KubeClient} that passes every call to another one: extend it and override only the calls
 * to observe or change (timing, fault injection, what an older API server would store).
 */
public abstract class ForwardingKubeClient implements KubeClient {
  private final KubeClient delegate;

  protected ForwardingKubeClient(KubeClient delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The client calls are passed to. */
  protected final KubeClient delegate() {
    return delegate;
  }

  @Override
  public <T> T get(ResourceType<T> type, String namespace, String name) throws KubeException {
    return delegate.get(type, namespace, name);
  }

  @Override
  public <T> KubeList<T> list(ResourceType<T> type, String namespace, ListOptions options)
      throws KubeException {
    return delegate.list(type, namespace, options);
  }

  @Override
  public <T> Watch watch(
      ResourceType<T> type, String namespace, ListOptions options, WatchHandler<T> handler)
      throws KubeException {
    return delegate.watch(type, namespace, options, handler);
  }

  @Override
  public <T> T create(ResourceType<T> type, T object) throws KubeException {
    return delegate.create(type, object);
  }

  @Override
  public <T> T update(ResourceType<T> type, T object) throws KubeException {
    return delegate.update(type, object);
  }

  @Override
  public <T> T updateStatus(ResourceType<T> type, T object) throws KubeException {
    return delegate.updateStatus(type, object);
  }

  @Override
  public void delete(
      ResourceType<?> type, String namespace, String name, Preconditions preconditions)
      throws KubeException {
    delegate.delete(type, namespace, name, preconditions);
  }

  @Override
  public <T> T apply(
      ResourceType<T> type,
      String namespace,
      String name,
      String subresource,
      Map<String, Object> patch,
      ApplyOptions options)
      throws KubeException {
    return delegate.apply(type, namespace, name, subresource, patch, options);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
