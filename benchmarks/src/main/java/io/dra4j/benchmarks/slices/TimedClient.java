package io.dra4j.benchmarks.slices;

import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.ForwardingKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceType;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link KubeClient} that adds up the wall time spent in write calls (the HTTP round trips). */
final class TimedClient extends ForwardingKubeClient {
  private final AtomicLong writeNanos = new AtomicLong();

  TimedClient(KubeClient delegate) {
    super(delegate);
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
  public <T> T create(ResourceType<T> type, T object) throws KubeException {
    return timed(() -> super.create(type, object));
  }

  @Override
  public <T> T update(ResourceType<T> type, T object) throws KubeException {
    return timed(() -> super.update(type, object));
  }

  @Override
  public <T> T updateStatus(ResourceType<T> type, T object) throws KubeException {
    return timed(() -> super.updateStatus(type, object));
  }

  @Override
  public void delete(
      ResourceType<?> type, String namespace, String name, Preconditions preconditions)
      throws KubeException {
    timed(
        () -> {
          super.delete(type, namespace, name, preconditions);
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
    return timed(() -> super.apply(type, namespace, name, subresource, patch, options));
  }
}
