package io.dra4j.runtime.internal.slices;

import io.dra4j.api.provider.Pool;
import io.dra4j.kube.Informer;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.internal.Backoff;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.internal.Threads;
import io.dra4j.runtime.internal.slices.DesiredState.DesiredPool;
import io.dra4j.runtime.internal.slices.SliceInformers.Event;
import io.dra4j.runtime.internal.slices.SliceInformers.Kind;
import io.dra4j.runtime.report.PublisherStats;
import io.dra4j.validation.PoolValidation;
import io.dra4j.validation.PoolValidator;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a driver's ResourceSlices on the API server equal to the pools it last {@linkplain #publish
 * published}, writing only what changed. The stateful edge around the pure core ({@link
 * PoolValidator}, {@link SliceLayout}, {@link SliceNames}, {@link DroppedFields}, and the change
 * detection of {@code SliceDiff} and planning rules of {@code SyncPlanner}).
 *
 * <pre>{@code
 * SlicePublisher publisher =
 *     SlicePublisher.builder(client, "gpu.example.com").nodeName("node-1").build().start();
 * publisher.publish(inventory.pools());      // again whenever the inventory changes
 * publisher.awaitIdle(Duration.ofSeconds(30)); // optional: at startup, or in tests
 * }</pre>
 *
 * <h2>How it works</h2>
 *
 * <ul>
 *   <li><b>One worker thread</b> does all the work. {@link #publish} and the informer's events only
 *       queue; a pool is queued at most once, so a burst of publishes or events costs one sync per
 *       pool, made with the latest desired state.
 *   <li><b>Informers</b> of the driver's slices on the node and, once a pool needs it, of those
 *       without a node name ({@link SliceInformers}). Which of these slices the publisher owns, and
 *       how its own writes overlay the informers' cache: {@link KnownSlices}.
 *   <li><b>Validation first</b> ({@link DesiredState}): an invalid pool is reported and not
 *       published, and its existing slices are left untouched.
 *   <li><b>Sync of one pool</b> ({@link SliceWriter}): layout ({@link SliceLayout}), match by name
 *       index, generation and change detection as described in {@code SyncPlanner}; then deletes,
 *       updates, creates. An unchanged pool costs no API call. Fields the API server dropped are
 *       reported once and the stored form adopted.
 *   <li><b>Changes behind our back</b> (the kubelet deletes all slices of its node when it starts,
 *       and a driver's slices when the driver is gone for 30 s; an admin edits a slice) queue the
 *       pool after {@code resyncDelay} (default 1 s), coalescing a burst of events into one sync.
 *   <li><b>Errors</b> (5xx, connection refused, 409 Conflict, 422) retry the pool with exponential
 *       backoff and jitter; a 409 first re-reads the slice it failed on. A new publish retries at
 *       once only if it changes the pool.
 *   <li><b>What it says</b> (counters, listener, sync observer, error handler): {@link
 *       PublishOutlet}.
 * </ul>
 *
 * <p>{@link #close()} stops the worker and the informers and leaves the slices in place: the
 * kubelet removes them when the driver stays away, and a restarted driver takes them over without
 * rewriting anything that did not change.
 */
public final class SlicePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  /** How often a pool waiting for the informer's first list checks again. */
  private static final long INFORMER_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final String driver;
  private final Backoff.Policy backoff;
  private final Duration resyncDelay;
  private final PublishOutlet outlet;
  private final SliceInformers informers;

  // Shared between callers, informer threads and the worker; guarded by lock.
  private final Object lock = new Object();
  private final ArrayDeque<Event> inbox = new ArrayDeque<>();
  private final PoolQueue queue = new PoolQueue();
  private List<Pool> pending = List.of();
  private long publishedVersion;
  private long appliedVersion;
  private boolean busy;
  // Whether every informer started has delivered its first list, as of the worker's last pause.
  private boolean listed;
  private boolean started;
  private boolean closed;

  // Owned by the worker thread.
  private final Thread worker;
  private final DesiredState desired;
  private final KnownSlices known;
  private final SliceWriter writer;
  private final Map<String, Integer> attempts = new HashMap<>();

  private SlicePublisher(Builder b) {
    this.driver = b.driver;
    this.backoff = Backoff.Policy.upTo(b.backoffBase, b.backoffMax);
    this.resyncDelay = b.resyncDelay;
    this.informers = new SliceInformers(b, this::offer);
    this.outlet = new PublishOutlet(b);
    this.desired = new DesiredState(b, outlet);
    this.known = new KnownSlices(b.driver, b.nodeName);
    this.writer = new SliceWriter(b, known, outlet);
    this.worker = Threads.daemon(this::run, "slice-publisher-" + driver);
  }

  /**
   * A builder for a publisher of {@code driverName}'s slices through {@code client}.
   *
   * @param client used from the publisher's threads; the caller keeps ownership (and closes it)
   */
  public static Builder builder(KubeClient client, String driverName) {
    return new Builder(client, driverName);
  }

  /**
   * Starts the informer and the worker thread. Slices are written once the informer has listed what
   * the API server holds and a desired state has been {@linkplain #publish published}.
   *
   * @throws IllegalStateException if already started or closed
   */
  public SlicePublisher start() {
    synchronized (lock) {
      if (started || closed) {
        throw new IllegalStateException(
            "slice publisher for " + driver + " was already " + (closed ? "closed" : "started"));
      }
      started = true;
      informers.start();
    }
    worker.start();
    return this;
  }

  /**
   * Sets the desired state: these pools, and no others. Returns at once; the worker validates, lays
   * out and writes in the background. Publishing again before the worker got to it replaces the
   * earlier state, which is never written.
   *
   * @param pools pool names must be unique; an empty list deletes every pool's slices
   * @throws IllegalStateException if the publisher is closed
   */
  public void publish(List<Pool> pools) {
    List<Pool> copy = List.copyOf(pools);
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("slice publisher for " + driver + " is closed");
      }
      pending = copy;
      publishedVersion++;
      lock.notifyAll();
    }
  }

  /**
   * Waits until the last published state is fully written: the informers have listed what the API
   * server holds, every valid pool matches the state, every removed pool's slices are gone, invalid
   * pools were reported, and no retry is pending.
   *
   * @return false when {@code timeout} passed first (for instance while the API server is down)
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (!idle()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return true;
    }
  }

  private boolean idle() {
    // Listed too: an empty desired state queues no pool, yet it deletes what the list holds.
    return appliedVersion == publishedVersion
        && !busy
        && inbox.isEmpty()
        && queue.isEmpty()
        && (publishedVersion == 0 || listed);
  }

  /** Pools waiting for a synchronization now: changed, or failed and waiting for their retry. */
  public int pendingPools() {
    synchronized (lock) {
      return queue.size();
    }
  }

  /** The counters so far. */
  public PublisherStats stats() {
    return outlet.stats();
  }

  /**
   * What validation said about each pool of the last published state the worker has applied (call
   * {@link #awaitIdle} first to see the latest), in publishing order; empty before the first.
   */
  public List<PoolValidation> lastValidation() {
    return desired.lastValidation();
  }

  /** Stops the informers and the worker. The slices stay on the API server. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      lock.notifyAll();
    }
    informers.close();
    if (worker.isAlive()) {
      worker.interrupt();
      try {
        worker.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The worker

  /** Queues an informer's event for the worker (informer threads). */
  private void offer(Event e) {
    synchronized (lock) {
      inbox.add(e);
      lock.notifyAll();
    }
  }

  private void run() {
    try {
      while (true) {
        List<Event> events = List.of();
        List<Pool> apply = null;
        long version = 0;
        String pool = null;
        boolean housekeeping = false;
        synchronized (lock) {
          while (true) {
            if (closed) {
              return;
            }
            long now = System.nanoTime();
            if (!inbox.isEmpty() || appliedVersion != publishedVersion) {
              events = new ArrayList<>(inbox);
              inbox.clear();
              if (appliedVersion != publishedVersion) {
                apply = pending;
                version = publishedVersion;
              }
              break;
            }
            if (known.housekeepingIn(now) <= 0) {
              housekeeping = true;
              break;
            }
            Optional<String> due = queue.pollDue(now);
            if (due.isPresent()) {
              pool = due.get();
              break;
            }
            busy = false;
            listed = informers.allListed();
            lock.notifyAll();
            long wait = Long.MAX_VALUE;
            Optional<Long> next = queue.nextDue();
            if (next.isPresent()) {
              wait = Math.min(wait, next.get() - now);
            }
            wait = Math.min(wait, known.housekeepingIn(now));
            if (wait == Long.MAX_VALUE) {
              lock.wait();
            } else {
              TimeUnit.NANOSECONDS.timedWait(lock, Math.max(1, wait));
            }
          }
          busy = true;
        }
        try {
          for (Event e : events) {
            handle(e);
          }
          if (apply != null) {
            applyDesired(apply);
          }
          if (housekeeping) {
            housekeeping();
          }
          if (pool != null) {
            sync(pool);
          }
        } catch (RuntimeException e) {
          LOG.error("slice publisher {}: unexpected failure", driver, e);
        } finally {
          if (apply != null) {
            synchronized (lock) {
              appliedVersion = version;
            }
          }
        }
      }
    } catch (InterruptedException e) {
      // close()
    } finally {
      synchronized (lock) {
        busy = false;
        lock.notifyAll();
      }
    }
  }

  private void handle(Event e) {
    if (e.kind() == Kind.SYNCED) {
      informers.synced(e.source());
      if (desired.applied()) {
        // The first list is complete: pools it holds that are no longer wanted can go now.
        enqueueWritten(known.ownedPools(), System.nanoTime());
      }
      return;
    }
    ResourceSlice s = e.slice();
    boolean foreign =
        e.kind() == Kind.UPSERT ? known.informerUpserted(s) : known.informerDeleted(s);
    // The first list is the starting point, not a change; it is looked at once it is complete.
    boolean listed = informers.listed(e.source());
    if (foreign && listed && desired.applied() && known.owns(s)) {
      String pool = s.spec().pool().name();
      LOG.debug(
          "slice publisher {}: slice {} of pool \"{}\" changed behind our back ({}); syncing in {}"
              + " ms",
          driver,
          s.metadata().name(),
          pool,
          e.kind() == Kind.DELETE ? "deleted" : "written",
          resyncDelay.toMillis());
      enqueueWritten(Set.of(pool), System.nanoTime() + resyncDelay.toNanos());
    }
  }

  /** Queues those of {@code pools} that are written at all ({@link DesiredState#writes}). */
  private void enqueueWritten(Set<String> pools, long atNanos) {
    for (String pool : pools) {
      if (desired.writes(pool)) {
        enqueue(pool, atNanos);
      }
    }
  }

  private void enqueue(String pool, long atNanos) {
    synchronized (lock) {
      queue.add(pool, atNanos);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Desired state

  private void applyDesired(List<Pool> pools) {
    boolean first = !desired.applied();
    Map<String, DesiredPool> previous = desired.apply(pools);
    Map<String, DesiredPool> next = desired.pools();
    known.claim(next.keySet());
    if (desired.anyBeyondNode()) {
      informers.startCluster();
    }

    Set<String> toSync = new LinkedHashSet<>(next.keySet());
    toSync.addAll(previous.keySet());
    if (first) {
      // Pools removed while no publisher ran, and duplicates left by an earlier process.
      toSync.addAll(known.ownedPools());
    }
    long now = System.nanoTime();
    synchronized (lock) {
      for (String pool : toSync) {
        DesiredPool before = previous.get(pool);
        DesiredPool after = next.get(pool);
        if (after != null && !after.valid()) {
          continue; // left as it is
        }
        if (attempts.containsKey(pool) && queue.contains(pool) && Objects.equals(before, after)) {
          continue; // keep its backoff: nothing new to try
        }
        queue.add(pool, now);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sync of one pool

  private void sync(String pool) {
    if (!informers.allListed()) {
      enqueue(pool, System.nanoTime() + INFORMER_WAIT_NANOS);
      return;
    }
    outlet.syncStarted();
    DesiredPool d = desired.get(pool);
    if (d != null && !d.valid()) {
      attempts.remove(pool);
      return;
    }
    long start = System.nanoTime();
    try {
      int slices = writer.sync(pool, d == null ? List.of() : d.specs());
      attempts.remove(pool);
      if (d == null) {
        writer.forget(pool);
      }
      outlet.synced(pool, slices, System.nanoTime() - start);
    } catch (KubeException e) {
      outlet.syncFailed(System.nanoTime() - start);
      if (isClosed()) {
        return;
      }
      outlet.failed(e);
      retry(pool, e);
    } catch (RuntimeException e) {
      outlet.syncFailed(System.nanoTime() - start);
      if (isClosed()) {
        return;
      }
      LOG.error("slice publisher {}: pool \"{}\": unexpected failure", driver, pool, e);
      retry(pool, e);
    }
  }

  private boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  private void retry(String pool, Exception e) {
    int attempt = attempts.merge(pool, 1, Integer::sum);
    Duration delay = Backoff.delay(backoff, attempt);
    outlet.retrying(pool, attempt, delay, e);
    enqueue(pool, System.nanoTime() + delay.toNanos());
  }

  /** Syncs again the pools of own writes the informers never confirmed ({@link KnownSlices}). */
  private void housekeeping() {
    long now = System.nanoTime();
    enqueueWritten(known.expire(now), now);
  }

  /** Builds a {@link SlicePublisher}. */
  public static final class Builder {
    final KubeClient client;
    final String driver;
    Optional<String> nodeName = Optional.empty();
    Optional<String> ownerUid = Optional.empty();
    Optional<OwnerReference> owner = Optional.empty();
    boolean dynamicTaints;
    PublishListener listener = new PublishOutlet.LoggingListener();
    SyncObserver syncObserver = SyncObserver.NONE;
    DriverErrorHandler errorHandler = DriverErrorHandler.logging();
    Duration backoffBase = Duration.ofMillis(100);
    Duration backoffMax = Duration.ofSeconds(30);
    Optional<Backoff.Policy> informerBackoff = Optional.empty();
    Duration resyncDelay = Duration.ofSeconds(1);

    private Builder(KubeClient client, String driver) {
      this.client = Objects.requireNonNull(client, "client");
      this.driver = Objects.requireNonNull(driver, "driverName");
      if (driver.isEmpty()) {
        throw new IllegalArgumentException("the driver name must not be empty");
      }
    }

    /**
     * The node this publisher runs for: its node-local pools ({@code PoolScope.node()}) get {@code
     * spec.nodeName} and the Node as controlling owner. Required when any pool is node-local.
     */
    public Builder nodeName(String value) {
      if (Objects.requireNonNull(value, "nodeName").isEmpty()) {
        throw new IllegalArgumentException("the node name must not be empty");
      }
      nodeName = Optional.of(value);
      return this;
    }

    /** The Node's uid for owner references; without it the publisher GETs the Node once. */
    public Builder ownerUid(String value) {
      if (Objects.requireNonNull(value, "ownerUid").isEmpty()) {
        throw new IllegalArgumentException("the owner uid must not be empty");
      }
      ownerUid = Optional.of(value);
      return this;
    }

    /**
     * The owner reference, as given, of the slices this publisher creates without {@code
     * spec.nodeName} (pools for all nodes, with a node selector, per device); default none: such
     * slices outlive the publisher until it deletes them. Node-local slices are always owned by
     * their Node. An owner without a uid must be the Node of {@link #nodeName}, whose uid is looked
     * up once, as for node-local slices.
     */
    public Builder owner(OwnerReference value) {
      owner = Optional.of(Objects.requireNonNull(value, "owner"));
      return this;
    }

    /**
     * Whether devices gain and lose taints at run time (health): then slices stay at 64 devices so
     * a taint change rewrites exactly one slice ({@link LayoutOptions#dynamicTaints()}).
     */
    public Builder dynamicTaints(boolean value) {
      dynamicTaints = value;
      return this;
    }

    /**
     * Hears how long each pool synchronization took, e.g. a driver's metrics. Default: {@link
     * SyncObserver#NONE}.
     */
    public Builder syncObserver(SyncObserver value) {
      syncObserver = Objects.requireNonNull(value, "syncObserver");
      return this;
    }

    /**
     * Hears errors, invalid pools, dropped fields and syncs as they happen (tests, metrics); the
     * same errors also go to the {@link #errorHandler}. Default: syncs logged at debug level.
     */
    public Builder listener(PublishListener value) {
      listener = Objects.requireNonNull(value, "listener");
      return this;
    }

    /**
     * Where failed writes (retried with backoff), invalid pools (not published), pools published
     * with warnings and dropped fields go, all {@linkplain DriverError.Severity#RECOVERABLE
     * recoverable}. Default: {@link DriverErrorHandler#logging()}.
     */
    public Builder errorHandler(DriverErrorHandler value) {
      errorHandler = Objects.requireNonNull(value, "errorHandler");
      return this;
    }

    /**
     * Backoff of a pool whose sync failed: each delay in the upper half of a ceiling that doubles
     * from {@code base} to {@code max} (default 100 ms doubling to 30 s). Set here, it is also the
     * informer's (tests); otherwise the informer backs off as client-go's reflector ({@link
     * Informer}).
     */
    public Builder retryBackoff(Duration base, Duration max) {
      if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
        throw new IllegalArgumentException("retry backoff needs 0 < base <= max");
      }
      backoffBase = base;
      backoffMax = max;
      informerBackoff = Optional.of(Backoff.Policy.upTo(base, max));
      return this;
    }

    /**
     * How long after a change made by someone else (slices deleted by the kubelet at its start,
     * edited by hand) the pool is synced (default 1 s; the Go helper waits 30 s). Events within
     * that time coalesce into one sync.
     */
    public Builder resyncDelay(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("resync delay must not be negative");
      }
      resyncDelay = value;
      return this;
    }

    /** The publisher; call {@link SlicePublisher#start()}. */
    public SlicePublisher build() {
      if (owner.isPresent()
          && owner.get().uid().isEmpty()
          && !owner.get().equals(OwnerReference.node(nodeName.orElse(""), ""))) {
        throw new IllegalStateException(
            "an owner without a uid must be the publisher's Node, "
                + nodeName
                + ": "
                + owner.get());
      }
      return new SlicePublisher(this);
    }
  }
}
