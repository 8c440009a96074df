package io.dra4j.benchmarks.slices;

import io.dra4j.runtime.kube.ApplyOptions;
import io.dra4j.runtime.kube.KubeClient;
import io.dra4j.runtime.kube.KubeException;
import io.dra4j.runtime.kube.KubeList;
import io.dra4j.runtime.kube.ListOptions;
import io.dra4j.runtime.kube.Preconditions;
import io.dra4j.runtime.kube.ResourceType;
import io.dra4j.runtime.kube.Watch;
import io.dra4j.runtime.kube.WatchHandler;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link KubeClient} that adds up the wall time spent in write calls (the HTTP round trips). */
final class TimedClient implements KubeClient {
  private final KubeClient delegate;
  private final AtomicLong writeNanos = new AtomicLong();

  TimedClient(KubeClient delegate) {
    this.delegate = delegate;
  }

  long writeNanos() {
    return writeNanos.get();
  }

  private interface Call<T> {
    T run() throws KubeException;
  }

  private <T> T timed(Call<T> call) throws KubeException {
    long t0 = System.nanoTime();
    try {
      return call.run();
    } finally {
      writeNanos.addAndGet(System.nanoTime() - t0);
    }
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
    return timed(() -> delegate.create(type, object));
  }

  @Override
  public <T> T update(ResourceType<T> type, T object) throws KubeException {
    return timed(() -> delegate.update(type, object));
  }

  @Override
  public <T> T updateStatus(ResourceType<T> type, T object) throws KubeException {
    return timed(() -> delegate.updateStatus(type, object));
  }

  @Override
  public void delete(
      ResourceType<?> type, String namespace, String name, Preconditions preconditions)
      throws KubeException {
    timed(
        () -> {
          delegate.delete(type, namespace, name, preconditions);
          return null;
        });
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
    return timed(() -> delegate.apply(type, namespace, name, subresource, patch, options));
  }

  @Override
  public void close() {
    delegate.close();
  }
}
