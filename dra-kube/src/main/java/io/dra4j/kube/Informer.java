package io.dra4j.kube;

import io.dra4j.kube.internal.Backoff;
import java.net.ConnectException;
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
 * List-then-watch cache of one resource (optionally filtered by namespace and selectors) that
 * behaves as client-go's reflector + store (client-go v0.37.2 {@code tools/cache/reflector.go}),
 * and cheap: one list at start, then only watch events.
 *
 * <ul>
 *   <li>The watch starts at the list's resourceVersion with bookmarks. When it ends cleanly (the
 *       server's timeout, or the stream broke), it resumes at once from the last resourceVersion
 *       seen; a watch that ended within 1 s without a single event counts as a failure ({@code
 *       :1090-1092}).
 *   <li>A watch the server refused to open (connection refused, 429) is opened again from the last
 *       resourceVersion after the backoff, without a list ({@code :596-610}): when the API server
 *       comes back, the informers resume where they were instead of listing everything at once. The
 *       client does not retry a refused LIST or WATCH itself, so each step is one connection
 *       attempt.
 *   <li>410 Gone and other failures: list again after the backoff, at the last resourceVersion seen
 *       (a list "not older than" it, which the API server answers from its watch cache), or the
 *       latest (a consistent read) once that list was answered 410 too ({@code :1116-1132}). A
 *       re-list is diffed against the cache, so handlers see only real adds, updates
 *       (resourceVersion changed) and deletes.
 *   <li>The backoff is the reflector's: 0.8 s doubling with jitter to 30 s, each delay d·[1, 2),
 *       started again 2 min after it last started ({@code :57-67}); see {@link Builder#backoff}.
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
    this.backoff = new Backoff(b.backoff);
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
    // The first list is a consistent read; later ones start at the last resourceVersion seen.
    boolean mustList = true;
    boolean latest = true;
    while (!closed) {
      try {
        if (mustList) {
          relist(latest ? "" : resourceVersion);
          mustList = false;
          latest = false;
        }
        // Returns when the watch ended cleanly: it resumes from the last resourceVersion at once.
        watch();
      } catch (KubeException e) {
        if (closed) {
          return;
        }
        if (e.isGone()) {
          // Gone after a list at our resourceVersion too: the latest, then.
          latest = mustList;
          mustList = true;
        } else if (!(e.getCause() instanceof ConnectException) && e.status() != 429) {
          // Only a watch the server refused to open is opened again as it was.
          mustList = true;
        }
        Duration d = backoff.next();
        String next = (mustList ? "listing" : "watching") + " again in " + d.toMillis() + " ms";
        if (e.isGone()) {
          LOG.debug("informer {}: {}; {}", type.plural(), e.getMessage(), next);
        } else {
          LOG.warn(
              "informer {}: {}; {}{}",
              type.plural(),
              e.getMessage(),
              next,
              e.whatToCheck("list and watch " + type.plural()));
        }
        if (!sleep(d)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void relist(String atResourceVersion) throws KubeException {
    KubeList<T> list = client.list(type, namespace, options.withResourceVersion(atResourceVersion));
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
   * One watch from the current resourceVersion, until its stream ends.
   *
   * @throws KubeException when the watch could not be opened, ended with an error (410 Gone
   *     included), or ended within 1 s without a single event
   */
  private void watch() throws KubeException, InterruptedException {
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
      return;
    }
    Optional<KubeException> end = watchEnded.take();
    if (end.isPresent() && (end.get().isGone() || end.get().status() != 0)) {
      throw end.get();
    }
    // A broken stream is a clean end, as client-go's stream watcher reads an EOF or a reset: the
    // watch resumes from the last resourceVersion. One that ends at once without a single event,
    // again and again, would spin: that one is a failure.
    if (events.get() == eventsBefore && System.nanoTime() - started < 1_000_000_000L) {
      throw end.orElseGet(
          () ->
              new KubeException(
                  0,
                  "VeryShortWatch",
                  "the watch of " + type.plural() + " ended within 1 s without an event"));
    }
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
    private Backoff.Policy backoff = Backoff.REFLECTOR;

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

    /**
     * The backoff between failed list and watch attempts: the first delay {@code initial·[1, 2)},
     * doubling up to {@code cap·[1, 2)}, started again 2 min after it last started. Default:
     * client-go's reflector, 800 ms and 30 s.
     */
    public Builder<T> backoff(Duration initial, Duration cap) {
      backoff =
          new Backoff.Policy(
              initial, cap, Backoff.REFLECTOR.jitter(), Backoff.REFLECTOR.resetInterval());
      return this;
    }

    /** Builds the informer; call {@link Informer#start()}. */
    public Informer<T> build() {
      return new Informer<>(this);
    }
  }
}
