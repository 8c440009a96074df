package io.dra4j.kube;

import io.dra4j.kube.internal.Backoff;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * List-then-watch cache of one resource (optionally filtered by namespace and selectors), like
 * client-go's reflector + store, and cheap: one list at start, then only watch events; a list again
 * only when the watch's resourceVersion is gone (410) or the stream failed.
 *
 * <ul>
 *   <li>The watch starts at the list's resourceVersion with bookmarks, and resumes from the last
 *       seen resourceVersion when the server ends it cleanly (its timeout).
 *   <li>410 Gone: list again at once. Other errors (stream broken, server down, list failing): list
 *       again after an exponential backoff with jitter (default 100 ms to 30 s).
 *   <li>A re-list is diffed against the cache, so handlers see only real adds, updates
 *       (resourceVersion changed) and deletes.
 * </ul>
 *
 * <p>Handlers run on the informer's threads, never two at once.
 */
public final class Informer<T extends KubeObject> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Informer.class);

  private final KubeClient client;
  private final ResourceType<T> type;
  private final String namespace;
  private final ListOptions options;
  private final InformerHandler<T> handler;
  private final Backoff backoff;
  private final Map<String, T> cache = new ConcurrentHashMap<>();
  private final CountDownLatch synced = new CountDownLatch(1);
  private final BlockingQueue<Optional<KubeException>> watchEnded = new ArrayBlockingQueue<>(1);
  private final AtomicLong lists = new AtomicLong();
  private final AtomicLong watchesStarted = new AtomicLong();
  private final AtomicLong events = new AtomicLong();
  private final Object handlerLock = new Object();
  private final Thread thread;
  private volatile String resourceVersion = "";
  private volatile boolean closed;
  private volatile Watch watch;

  private Informer(Builder<T> b) {
    this.client = b.client;
    this.type = b.type;
    this.namespace = b.namespace;
    this.options = b.options.withResourceVersion("");
    this.handler = b.handler;
    this.backoff = new Backoff(b.backoffBase, b.backoffMax);
    this.thread = new Thread(this::run, "informer-" + type.plural());
    this.thread.setDaemon(true);
  }

  /** A builder for an informer of {@code type} through {@code client}. */
  public static <T extends KubeObject> Builder<T> builder(KubeClient client, ResourceType<T> type) {
    return new Builder<>(client, type);
  }

  /** Starts listing and watching in the background. */
  public Informer<T> start() {
    thread.start();
    return this;
  }

  /** Whether the first list has been applied. */
  public boolean hasSynced() {
    return synced.getCount() == 0;
  }

  /** Waits until the first list has been applied; false on timeout. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    return synced.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The cached object, if present. */
  public Optional<T> get(String namespace, String name) {
    return Optional.ofNullable(cache.get(namespace.isEmpty() ? name : namespace + "/" + name));
  }

  /** A snapshot of the cache. */
  public List<T> list() {
    return List.copyOf(cache.values());
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  public String resourceVersion() {
    return resourceVersion;
  }

  /** How many times the informer listed (1 after a start without trouble). */
  public long listCount() {
    return lists.get();
  }

  /** How many watch streams were opened. */
  public long watchCount() {
    return watchesStarted.get();
  }

  /** How many watch events (bookmarks included) were received. */
  public long eventCount() {
    return events.get();
  }

  @Override
  public void close() {
    closed = true;
    Watch w = watch;
    if (w != null) {
      w.close();
    }
    thread.interrupt();
  }

  private void run() {
    while (!closed) {
      boolean gone = false;
      try {
        relist();
        gone = watchLoop();
        if (gone) {
          continue; // 410: the watch window moved past us; list again right away
        }
      } catch (KubeException e) {
        if (closed) {
          return;
        }
        if (e.isGone()) {
          LOG.debug("informer {}: {}; listing again", type.plural(), e.getMessage());
          continue;
        }
        Duration d = backoff.next();
        LOG.warn(
            "informer {}: {}; listing again in {} ms{}",
            type.plural(),
            e.getMessage(),
            d.toMillis(),
            e.whatToCheck("list and watch " + type.plural()));
        if (!sleep(d)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void relist() throws KubeException {
    KubeList<T> list = client.list(type, namespace, options);
    lists.incrementAndGet();
    synchronized (handlerLock) {
      Map<String, T> fresh = new HashMap<>();
      for (T item : list.items()) {
        fresh.put(item.key(), item);
      }
      Set<String> gone = new HashSet<>(cache.keySet());
      gone.removeAll(fresh.keySet());
      for (String key : gone) {
        T old = cache.remove(key);
        if (old != null) {
          call(() -> handler.onDelete(old));
        }
      }
      for (T item : list.items()) {
        T old = cache.put(item.key(), item);
        if (old == null) {
          call(() -> handler.onAdd(item));
        } else if (!old.metadata().resourceVersion().equals(item.metadata().resourceVersion())) {
          call(() -> handler.onUpdate(old, item));
        }
      }
      resourceVersion = list.resourceVersion();
    }
    if (synced.getCount() > 0) {
      synced.countDown();
      call(handler::onSynced);
    }
  }

  /**
   * Watches from the current resourceVersion until the stream fails; resumes after clean ends.
   *
   * @return true when the resourceVersion is gone (410) and a list is needed
   */
  private boolean watchLoop() throws KubeException, InterruptedException {
    while (!closed) {
      long started = System.nanoTime();
      long eventsBefore = events.get();
      watchEnded.clear();
      watch =
          client.watch(
              type,
              namespace,
              options.withResourceVersion(resourceVersion).withBookmarks(),
              new WatchHandler<>() {
                @Override
                public void onEvent(WatchEvent<T> event) {
                  apply(event);
                }

                @Override
                public void onClose(Optional<KubeException> error) {
                  watchEnded.offer(error);
                }
              });
      watchesStarted.incrementAndGet();
      if (closed) {
        watch.close();
        return false;
      }
      Optional<KubeException> end = watchEnded.take();
      if (end.isPresent()) {
        if (end.get().isGone()) {
          return true;
        }
        throw end.get();
      }
      // A clean end (server timeout): resume. A stream that ends at once without a single event,
      // again and again, would spin: back off in that case only.
      boolean quiet = events.get() == eventsBefore;
      if (quiet && System.nanoTime() - started < 1_000_000_000L) {
        if (!sleep(backoff.next())) {
          return false;
        }
      } else {
        backoff.reset();
      }
    }
    return false;
  }

  private void apply(WatchEvent<T> event) {
    events.incrementAndGet();
    synchronized (handlerLock) {
      if (!event.resourceVersion().isEmpty()) {
        resourceVersion = event.resourceVersion();
      }
      T obj = event.object();
      switch (event.type()) {
        case ADDED:
        case MODIFIED:
          T old = cache.put(obj.key(), obj);
          if (old == null) {
            call(() -> handler.onAdd(obj));
          } else {
            call(() -> handler.onUpdate(old, obj));
          }
          break;
        case DELETED:
          T last = cache.remove(obj.key());
          call(() -> handler.onDelete(last == null ? obj : last));
          break;
        case BOOKMARK:
        default:
          break;
      }
    }
    backoff.reset();
  }

  private void call(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      LOG.error("informer {}: handler failed", type.plural(), e);
    }
  }

  private boolean sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return !closed;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /** Builds an {@link Informer}. */
  public static final class Builder<T extends KubeObject> {
    private final KubeClient client;
    private final ResourceType<T> type;
    private String namespace = "";
    private ListOptions options = ListOptions.ALL;
    private InformerHandler<T> handler = new InformerHandler<>() {};
    private Duration backoffBase = Duration.ofMillis(100);
    private Duration backoffMax = Duration.ofSeconds(30);

    private Builder(KubeClient client, ResourceType<T> type) {
      this.client = Objects.requireNonNull(client, "client");
      this.type = Objects.requireNonNull(type, "type");
    }

    /** Only this namespace; empty (the default) for all namespaces or cluster-scoped types. */
    public Builder<T> namespace(String value) {
      namespace = Objects.requireNonNull(value, "namespace");
      return this;
    }

    /** Label and field selectors (resourceVersion and bookmarks are managed by the informer). */
    public Builder<T> options(ListOptions value) {
      options = Objects.requireNonNull(value, "options");
      return this;
    }

    public Builder<T> handler(InformerHandler<T> value) {
      handler = Objects.requireNonNull(value, "handler");
      return this;
    }

    /** Backoff between failed list/watch attempts (default 100 ms growing to 30 s). */
    public Builder<T> backoff(Duration base, Duration max) {
      backoffBase = base;
      backoffMax = max;
      return this;
    }

    /** Builds the informer; call {@link Informer#start()}. */
    public Informer<T> build() {
      return new Informer<>(this);
    }
  }
}
