package io.dra4j.runtime.internal.slices;

import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.internal.Backoff;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The informers of a {@link SlicePublisher}: ResourceSlices with {@code spec.driver=<driver>} and
 * {@code spec.nodeName=<node>} (every pool of a node-local publisher lands there), and, for pools
 * that are not node-local (all nodes, a node selector, per-device selection; they have no {@code
 * spec.nodeName}), those with {@code spec.nodeName=} (empty: the API server selects slices without
 * a node name), started when the first such pool is published. Their events go to one sink, to be
 * handled on the publisher's worker thread.
 */
final class SliceInformers {

  enum Source {
    NODE,
    CLUSTER
  }

  enum Kind {
    UPSERT,
    DELETE,
    SYNCED
  }

  /** An informer's event; {@code slice} is null for {@link Kind#SYNCED}. */
  record Event(Kind kind, Source source, ResourceSlice slice) {}

  private final KubeClient client;
  private final String driver;
  private final Optional<String> nodeName;
  // Tests shorten the informer's backoff with the writes'; a driver's is the reflector's.
  private final Optional<Backoff.Policy> backoff;
  private final Consumer<Event> sink;

  // Guarded by this.
  private boolean closed;
  private volatile Informer<ResourceSlice> node;
  private volatile Informer<ResourceSlice> cluster;

  // Owned by the worker thread, which handles the events.
  private boolean nodeSynced;
  private boolean clusterSynced;

  SliceInformers(SlicePublisher.Builder b, Consumer<Event> sink) {
    this.client = b.client;
    this.driver = b.driver;
    this.nodeName = b.nodeName;
    this.backoff = b.informerBackoff;
    this.sink = sink;
  }

  /** Starts the informer of the publisher's node, or without one the cluster-wide one. */
  synchronized void start() {
    if (nodeName.isPresent()) {
      node = informer(nodeName.get(), Source.NODE).start();
    } else {
      cluster = informer("", Source.CLUSTER).start();
    }
  }

  /** Starts the informer of slices without a node name, unless it runs or all are closed. */
  synchronized void startCluster() {
    if (!closed && cluster == null) {
      cluster = informer("", Source.CLUSTER).start();
    }
  }

  void close() {
    List<Informer<ResourceSlice>> started = new ArrayList<>(2);
    synchronized (this) {
      closed = true;
      if (node != null) {
        started.add(node);
      }
      if (cluster != null) {
        started.add(cluster);
      }
    }
    for (Informer<ResourceSlice> i : started) {
      i.close();
    }
  }

  /** The worker handled the {@link Kind#SYNCED} event of {@code source}. */
  void synced(Source source) {
    if (source == Source.NODE) {
      nodeSynced = true;
    } else {
      clusterSynced = true;
    }
  }

  /** Whether the informer of {@code source} delivered its first list (to the worker). */
  boolean listed(Source source) {
    return source == Source.NODE ? nodeSynced : clusterSynced;
  }

  /** Whether every informer started delivered its first list (to the worker). */
  boolean allListed() {
    return (node == null || nodeSynced) && (cluster == null || clusterSynced);
  }

  private Informer<ResourceSlice> informer(String onNode, Source source) {
    String selector = "spec.driver=" + driver + ",spec.nodeName=" + onNode;
    Informer.Builder<ResourceSlice> b =
        Informer.builder(client, ResourceSlice.TYPE).options(ListOptions.fields(selector));
    backoff.ifPresent(p -> b.backoff(p.initial(), p.cap()));
    return b.handler(
            new InformerHandler<>() {
              @Override
              public void onAdd(ResourceSlice s) {
                sink.accept(new Event(Kind.UPSERT, source, s));
              }

              @Override
              public void onUpdate(ResourceSlice oldObject, ResourceSlice newObject) {
                sink.accept(new Event(Kind.UPSERT, source, newObject));
              }

              @Override
              public void onDelete(ResourceSlice s) {
                sink.accept(new Event(Kind.DELETE, source, s));
              }

              @Override
              public void onSynced() {
                sink.accept(new Event(Kind.SYNCED, source, null));
              }
            })
        .build();
  }
}
