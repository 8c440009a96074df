package io.dra4j.runtime.extendedresource;

import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The informers of an {@link ExtendedResourceGuard}: every DeviceClass, and its Node ({@code
 * fieldSelector metadata.name=<node>}). Once both have listed, every change hands both caches to
 * the guard.
 */
final class GuardWatch {
  private final KubeClient client;
  private final String nodeName;
  private final BiConsumer<List<DeviceClass>, Optional<Node>> onChange;

  private record Informers(Informer<DeviceClass> classes, Informer<Node> node) {}

  // Guarded by this.
  private Informers informers;
  private boolean closed;

  GuardWatch(
      KubeClient client, String nodeName, BiConsumer<List<DeviceClass>, Optional<Node>> onChange) {
    this.client = client;
    this.nodeName = nodeName;
    this.onChange = onChange;
  }

  private synchronized Informers informers() {
    return informers;
  }

  /**
   * @throws IllegalStateException when started twice, or after {@link #close}
   */
  void start() {
    Informers i;
    synchronized (this) {
      if (informers != null || closed) {
        throw new IllegalStateException("ExtendedResourceGuard was already started or closed");
      }
      informers =
          i =
              new Informers(
                  Informer.builder(client, DeviceClass.TYPE).handler(new Trigger<>()).build(),
                  Informer.builder(client, Node.TYPE)
                      .options(ListOptions.fields("metadata.name=" + nodeName))
                      .handler(new Trigger<>())
                      .build());
    }
    i.classes().start();
    i.node().start();
  }

  /** Waits until both informers have listed, then hands their caches over; false on timeout. */
  boolean awaitSynced(Duration timeout) throws InterruptedException {
    Informers i = informers();
    if (i == null) {
      throw new IllegalStateException("ExtendedResourceGuard.awaitSynced before start()");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    if (!i.classes().awaitSynced(timeout)) {
      return false;
    }
    if (!i.node().awaitSynced(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
      return false;
    }
    // Both are synced: evaluate now on this thread, so the report is ready when this returns
    // (the informers' own onSynced may still be on its way).
    refresh();
    return true;
  }

  /** Stops both informers. Idempotent. */
  void close() {
    Informers i;
    synchronized (this) {
      closed = true;
      i = informers;
    }
    if (i != null) {
      i.classes().close();
      i.node().close();
    }
  }

  /** Hands both informer caches over, once both are synced. */
  private void refresh() {
    Informers i = informers();
    if (i == null || !i.classes().hasSynced() || !i.node().hasSynced()) {
      return;
    }
    onChange.accept(i.classes().list(), i.node().get("", nodeName));
  }

  /** Re-evaluates after any informer change, once both informers are synced. */
  private final class Trigger<T> implements InformerHandler<T> {
    @Override
    public void onAdd(T object) {
      refresh();
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
      refresh();
    }

    @Override
    public void onDelete(T object) {
      refresh();
    }

    @Override
    public void onSynced() {
      refresh();
    }
  }
}
