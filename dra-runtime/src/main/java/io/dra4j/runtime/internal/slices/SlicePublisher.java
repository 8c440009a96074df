package io.dra4j.runtime.internal.slices;

import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.kube.internal.Backoff;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.errors.DroppedFieldsException;
import io.dra4j.runtime.internal.CrashPoints;
import io.dra4j.runtime.report.PublisherStats;
import io.dra4j.validation.PoolValidation;
import io.dra4j.validation.PoolValidator;
import io.dra4j.validation.Violation;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 *   <li><b>Informer.</b> ResourceSlices with {@code spec.driver=<driver>} and {@code
 *       spec.nodeName=<node>} (every pool of a node-local publisher lands there). Pools that are
 *       not node-local (all nodes, a node selector, per-device selection) have no {@code
 *       spec.nodeName}; their slices are watched with {@code spec.nodeName=} (empty: the API server
 *       selects slices without a node name), started when the first such pool is published. A
 *       node-local publisher owns every slice of its driver on its node; slices without a node name
 *       it owns only for pools it published in this process, because other nodes may publish those.
 *       A publisher without a node owns every slice of its driver without a node name, like the Go
 *       controller.
 *   <li><b>Validation first.</b> Every publish is validated with {@link PoolValidator} before any
 *       API call. An invalid pool is reported once per distinct desired state ({@link
 *       PublishListener#onInvalidPool}) and not published, and <b>its existing slices are left
 *       untouched</b>: they describe the last valid state of real devices that may be allocated
 *       right now; deleting them because of a driver bug would take a node's devices away from the
 *       scheduler, while the old slices are at worst stale, until the driver publishes a valid
 *       state or removes the pool. The other pools are published as usual.
 *   <li><b>Sync of one pool</b>: layout ({@link SliceLayout}), match by name index, generation and
 *       change detection as described in {@code SyncPlanner}; then deletes (with uid and
 *       resourceVersion preconditions; NotFound is success), updates, creates ({@code generateName}
 *       from {@link SliceNames}; the Node as controlling owner for node-local pools, the builder's
 *       {@linkplain Builder#owner owner}, if any, for the others). An unchanged pool costs no API
 *       call.
 *   <li><b>Own writes.</b> Every object the API server returns from a write is remembered until the
 *       informer delivers that resourceVersion or a newer one, so the next sync never works from a
 *       stale cache: a created slice is not created twice, a deleted one is not updated. The echo
 *       of an own write does not trigger a sync.
 *   <li><b>Changes behind our back</b> (the kubelet deletes all slices of its node when it starts,
 *       and a driver's slices when the driver is gone for 30 s; an admin edits a slice) queue the
 *       pool after {@code resyncDelay} (default 1 s), coalescing a burst of events into one sync.
 *   <li><b>Dropped fields.</b> When the API server stores less than was sent (a feature gate is
 *       off), the publisher reports it once ({@link PublishListener#onDroppedFields}) and adopts
 *       the stored form for that desired slice, so it does not write the same slice again and
 *       again.
 *   <li><b>Errors</b> (5xx, connection refused, 409 Conflict, 422) retry the pool with exponential
 *       backoff and jitter; a 409 first re-reads the slice it failed on. A new publish retries at
 *       once only if it changes the pool.
 * </ul>
 *
 * <p>{@link #close()} stops the worker and the informers and leaves the slices in place: the
 * kubelet removes them when the driver stays away, and a restarted driver takes them over without
 * rewriting anything that did not change.
 */
public final class SlicePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  /** How long a write result is trusted over an informer that has not delivered it yet. */
  static final Duration MUTATION_TTL = Duration.ofMinutes(1);

  /** How often a pool waiting for the informer's first list checks again. */
  private static final long INFORMER_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final KubeClient client;
  private final String driver;
  private final Optional<String> nodeName;
  private final Optional<OwnerReference> owner;
  private final LayoutOptions layoutOptions;
  private final PublishListener listener;
  private final SyncObserver syncObserver;
  private final DriverErrorHandler errorHandler;
  private final Backoff.Policy backoff;
  // Tests shorten the informer's backoff with the writes'; a driver's is the reflector's.
  private final Optional<Backoff.Policy> informerBackoff;
  private final Duration resyncDelay;

  private final AtomicLong creates = new AtomicLong();
  private final AtomicLong updates = new AtomicLong();
  private final AtomicLong deletes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong validationFailures = new AtomicLong();
  private final AtomicLong droppedFieldReports = new AtomicLong();
  private final AtomicLong syncs = new AtomicLong();

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
  private volatile List<PoolValidation> lastValidation = List.of();
  private volatile Informer<ResourceSlice> nodeInformer;
  private volatile Informer<ResourceSlice> clusterInformer;

  // Owned by the worker thread.
  private final Thread worker;
  private String ownerUid;
  private boolean nodeSynced;
  private boolean clusterSynced;
  private boolean hasDesired;
  private Map<String, DesiredPool> desired = new LinkedHashMap<>();
  private final Map<String, Map<String, ResourceSlice>> observed = new HashMap<>();
  private final Map<String, Recent> recent = new HashMap<>();
  private final Map<String, Recent> tombstones = new HashMap<>();
  private final Map<String, Long> generations = new HashMap<>();
  private final Map<String, Map<Integer, Adoption>> adoptions = new HashMap<>();
  private Map<String, List<Pool>> reportedInvalid = new HashMap<>();
  private final Map<String, Pool> reportedWarnings = new HashMap<>();
  private final Map<String, Integer> attempts = new HashMap<>();
  private final Set<String> claimed = new HashSet<>();
  private long housekeepingDue;
  private boolean housekeepingScheduled;

  private SlicePublisher(Builder b) {
    this.client = b.client;
    this.driver = b.driver;
    this.nodeName = b.nodeName;
    this.ownerUid = b.ownerUid.orElse(null);
    this.owner = b.owner;
    this.layoutOptions = new LayoutOptions(b.nodeName, b.dynamicTaints);
    this.listener = b.listener;
    this.syncObserver = b.syncObserver;
    this.errorHandler = b.errorHandler;
    this.backoff = Backoff.Policy.upTo(b.backoffBase, b.backoffMax);
    this.informerBackoff = b.informerBackoff;
    this.resyncDelay = b.resyncDelay;
    this.worker = new Thread(this::run, "slice-publisher-" + driver);
    this.worker.setDaemon(true);
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
      if (nodeName.isPresent()) {
        nodeInformer = informer(nodeName.get(), Source.NODE).start();
      } else {
        clusterInformer = informer("", Source.CLUSTER).start();
      }
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
    return new PublisherStats(
        creates.get(),
        updates.get(),
        deletes.get(),
        failures.get(),
        conflicts.get(),
        validationFailures.get(),
        droppedFieldReports.get(),
        syncs.get());
  }

  /**
   * What validation said about each pool of the last published state the worker has applied (call
   * {@link #awaitIdle} first to see the latest), in publishing order; empty before the first.
   */
  public List<PoolValidation> lastValidation() {
    return lastValidation;
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
    for (Informer<ResourceSlice> i : new ArrayList<>(informers())) {
      i.close();
    }
    if (worker.isAlive()) {
      worker.interrupt();
      try {
        worker.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private List<Informer<ResourceSlice>> informers() {
    List<Informer<ResourceSlice>> out = new ArrayList<>(2);
    if (nodeInformer != null) {
      out.add(nodeInformer);
    }
    if (clusterInformer != null) {
      out.add(clusterInformer);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Informer events (informer threads): queue them for the worker.

  private enum Source {
    NODE,
    CLUSTER
  }

  private enum Kind {
    UPSERT,
    DELETE,
    SYNCED
  }

  private record Event(Kind kind, Source source, ResourceSlice slice) {}

  private Informer<ResourceSlice> informer(String node, Source source) {
    String selector = "spec.driver=" + driver + ",spec.nodeName=" + node;
    Informer.Builder<ResourceSlice> b =
        Informer.builder(client, ResourceSlice.TYPE).options(ListOptions.fields(selector));
    informerBackoff.ifPresent(p -> b.backoff(p.initial(), p.cap()));
    return b.handler(
            new InformerHandler<>() {
              @Override
              public void onAdd(ResourceSlice s) {
                offer(new Event(Kind.UPSERT, source, s));
              }

              @Override
              public void onUpdate(ResourceSlice oldObject, ResourceSlice newObject) {
                offer(new Event(Kind.UPSERT, source, newObject));
              }

              @Override
              public void onDelete(ResourceSlice s) {
                offer(new Event(Kind.DELETE, source, s));
              }

              @Override
              public void onSynced() {
                offer(new Event(Kind.SYNCED, source, null));
              }
            })
        .build();
  }

  private void offer(Event e) {
    synchronized (lock) {
      inbox.add(e);
      lock.notifyAll();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The worker

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
            if (housekeepingScheduled && housekeepingDue - now <= 0) {
              housekeeping = true;
              break;
            }
            Optional<String> due = queue.pollDue(now);
            if (due.isPresent()) {
              pool = due.get();
              break;
            }
            busy = false;
            listed =
                (nodeInformer == null || nodeSynced) && (clusterInformer == null || clusterSynced);
            lock.notifyAll();
            long wait = Long.MAX_VALUE;
            Optional<Long> next = queue.nextDue();
            if (next.isPresent()) {
              wait = Math.min(wait, next.get() - now);
            }
            if (housekeepingScheduled) {
              wait = Math.min(wait, housekeepingDue - now);
            }
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
    if (e.kind == Kind.SYNCED) {
      if (e.source == Source.NODE) {
        nodeSynced = true;
      } else {
        clusterSynced = true;
      }
      if (hasDesired) {
        // The first list is complete: pools it holds that are no longer wanted can go now.
        long now = System.nanoTime();
        for (String pool : ownedObservedPools()) {
          DesiredPool d = desired.get(pool);
          if (d == null || d.valid()) {
            enqueue(pool, now);
          }
        }
      }
      return;
    }
    ResourceSlice s = e.slice;
    String name = s.metadata().name();
    String pool = s.spec().pool().name();
    boolean foreign;
    if (e.kind == Kind.UPSERT) {
      observed.computeIfAbsent(pool, k -> new HashMap<>()).put(name, s);
      Recent mine = recent.get(name);
      if (mine != null) {
        int cmp = compareVersions(s.metadata().resourceVersion(), mine.resourceVersion());
        if (cmp < 0) {
          return; // the informer is behind our own write; it will catch up
        }
        recent.remove(name);
        foreign = cmp > 0;
      } else {
        foreign = !tombstones.containsKey(name);
      }
    } else {
      Map<String, ResourceSlice> slices = observed.get(pool);
      if (slices != null) {
        slices.remove(name);
        if (slices.isEmpty()) {
          observed.remove(pool);
        }
      }
      recent.remove(name);
      foreign = tombstones.remove(name) == null;
    }
    // The first list is the starting point, not a change; it is looked at once it is complete.
    boolean listed = e.source == Source.NODE ? nodeSynced : clusterSynced;
    if (foreign && listed && hasDesired && owns(s)) {
      LOG.debug(
          "slice publisher {}: slice {} of pool \"{}\" changed behind our back ({}); syncing in {}"
              + " ms",
          driver,
          name,
          pool,
          e.kind == Kind.DELETE ? "deleted" : "written",
          resyncDelay.toMillis());
      DesiredPool d = desired.get(pool);
      if (d == null || d.valid()) {
        enqueue(pool, System.nanoTime() + resyncDelay.toNanos());
      }
    }
  }

  /**
   * Orders two resourceVersions: numerically when both are numbers (as with etcd), otherwise only
   * equality is known and a different version counts as newer.
   */
  static int compareVersions(String a, String b) {
    if (a.equals(b)) {
      return 0;
    }
    try {
      return Long.compare(Long.parseLong(a), Long.parseLong(b));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  private Set<String> ownedObservedPools() {
    Set<String> pools = new LinkedHashSet<>();
    for (Map.Entry<String, Map<String, ResourceSlice>> e : observed.entrySet()) {
      if (e.getValue().values().stream().anyMatch(this::owns)) {
        pools.add(e.getKey());
      }
    }
    return pools;
  }

  private boolean owns(ResourceSlice s) {
    if (!s.spec().driver().equals(driver)) {
      return false;
    }
    String node = s.spec().nodeName().orElse("");
    if (nodeName.isPresent()) {
      return node.equals(nodeName.get())
          || (node.isEmpty() && claimed.contains(s.spec().pool().name()));
    }
    return node.isEmpty();
  }

  private void enqueue(String pool, long atNanos) {
    synchronized (lock) {
      queue.add(pool, atNanos);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Desired state

  /**
   * One pool of the applied desired state.
   *
   * @param specs the layout (generation 0); empty for an invalid pool
   */
  private record DesiredPool(Pool pool, PoolValidation validation, List<ResourceSliceSpec> specs) {
    boolean valid() {
      return validation.isValid();
    }
  }

  private void applyDesired(List<Pool> pools) {
    List<PoolValidation> results = new ArrayList<>();
    Map<String, DesiredPool> next = new LinkedHashMap<>();
    Map<String, List<Pool>> reported = new HashMap<>();
    for (PoolValidation v : validate(pools)) {
      results.add(v);
      Pool p = v.pool();
      if (!v.isValid()) {
        // Once per distinct desired state: the same broken pool published again is not news.
        if (!reportedInvalid.getOrDefault(p.name(), List.of()).contains(p)) {
          validationFailures.incrementAndGet();
          PoolValidation report = v;
          notifyListener(() -> listener.onInvalidPool(report));
          reportError(
              "slice publisher: pool \""
                  + p.name()
                  + "\" of driver "
                  + driver
                  + " is invalid and was not published (its existing slices are left as they"
                  + " are):\n"
                  + report.errorReport());
        }
        reported.computeIfAbsent(p.name(), k -> new ArrayList<>()).add(p);
        next.put(p.name(), new DesiredPool(p, v, List.of()));
        continue;
      }
      if (!v.warnings().isEmpty() && !p.equals(reportedWarnings.get(p.name()))) {
        reportedWarnings.put(p.name(), p);
        reportError(
            "slice publisher "
                + driver
                + ": pool \""
                + p.name()
                + "\" is published, but:\n"
                + String.join("\n", v.warnings().stream().map(Violation::toString).toList()));
      }
      DesiredPool before = desired.get(p.name());
      List<ResourceSliceSpec> specs =
          before != null && before.validation() == v
              ? before.specs()
              : SliceLayout.layout(driver, p, layoutOptions);
      next.put(p.name(), new DesiredPool(p, v, specs));
    }
    lastValidation = List.copyOf(results);
    reportedInvalid = reported;
    reportedWarnings.keySet().retainAll(next.keySet());

    Map<String, DesiredPool> previous = desired;
    desired = next;
    claimed.addAll(next.keySet());
    boolean first = !hasDesired;
    hasDesired = true;
    if (nodeName.isPresent()
        && clusterInformer == null
        && next.values().stream().anyMatch(d -> d.pool.scope().kind() != PoolScope.Kind.NODE)) {
      synchronized (lock) {
        if (!closed) {
          clusterInformer = informer("", Source.CLUSTER).start();
        }
      }
    }

    Set<String> toSync = new LinkedHashSet<>(next.keySet());
    toSync.addAll(previous.keySet());
    if (first) {
      // Pools removed while no publisher ran, and duplicates left by an earlier process.
      toSync.addAll(ownedObservedPools());
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

  /**
   * Validates the pools, reusing the result (and so the layout) of every pool that equals the one
   * already applied: validating is most of a publish's CPU, and comparing is much cheaper.
   */
  private List<PoolValidation> validate(List<Pool> pools) {
    Set<String> names = new HashSet<>();
    if (!pools.stream().allMatch(p -> names.add(p.name()))) {
      // Duplicate names are a rule across pools: validate them together.
      return PoolValidator.validate(driver, pools).pools().stream()
          .map(this::withPublisherRules)
          .toList();
    }
    List<PoolValidation> out = new ArrayList<>(pools.size());
    for (Pool p : pools) {
      DesiredPool before = desired.get(p.name());
      if (before != null && before.pool().equals(p)) {
        out.add(before.validation());
      } else {
        out.add(withPublisherRules(PoolValidator.validate(driver, p)));
      }
    }
    return out;
  }

  private PoolValidation withPublisherRules(PoolValidation v) {
    if (v.pool().scope().kind() == PoolScope.Kind.NODE && nodeName.isEmpty()) {
      List<Violation> errors = new ArrayList<>(v.errors());
      errors.add(
          new Violation(
              v.poolName(),
              Optional.empty(),
              "scope",
              "the pool is node-local (PoolScope.node()), but the publisher has no node: give the"
                  + " pool another scope (all nodes, a node selector, per device), or publish it"
                  + " from the node (its driver, or a publisher owned by its Node)"));
      return new PoolValidation(v.driver(), v.pool(), errors, v.warnings());
    }
    return v;
  }

  // ---------------------------------------------------------------------------------------------
  // Sync of one pool

  private void sync(String pool) {
    if ((nodeInformer != null && !nodeSynced) || (clusterInformer != null && !clusterSynced)) {
      enqueue(pool, System.nanoTime() + INFORMER_WAIT_NANOS);
      return;
    }
    syncs.incrementAndGet();
    DesiredPool d = desired.get(pool);
    if (d != null && !d.valid()) {
      attempts.remove(pool);
      return;
    }
    long start = System.nanoTime();
    try {
      int slices = syncPool(pool, d);
      syncObserver.synced(System.nanoTime() - start, false);
      attempts.remove(pool);
      if (d == null) {
        adoptions.remove(pool);
      }
      notifyListener(() -> listener.onSynced(pool, slices));
    } catch (KubeException e) {
      syncObserver.synced(System.nanoTime() - start, true);
      if (isClosed()) {
        return;
      }
      failures.incrementAndGet();
      if (e.isConflict()) {
        conflicts.incrementAndGet();
      }
      retry(pool, e);
    } catch (RuntimeException e) {
      syncObserver.synced(System.nanoTime() - start, true);
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
    LOG.debug(
        "slice publisher {}: pool \"{}\": attempt {} failed, next in {} ms",
        driver,
        pool,
        attempt,
        delay.toMillis());
    notifyListener(() -> listener.onError(pool, e));
    DriverErrorHandler.report(
        errorHandler,
        DriverError.recoverable(
            DriverError.Source.SLICES,
            "slice publisher: pool \""
                + pool
                + "\": "
                + e.getMessage()
                + "; retrying with backoff"
                + whatToDo(e, nodeName.isPresent()),
            e));
    enqueue(pool, System.nanoTime() + delay.toNanos());
  }

  /** Brings one pool to its desired state; returns the number of slices it has now. */
  private int syncPool(String pool, DesiredPool d) throws KubeException {
    List<ResourceSliceSpec> layout = d == null ? List.of() : d.specs();
    List<ResourceSliceSpec> wanted = adopted(pool, layout);
    List<ResourceSlice> existing = view(pool);
    SyncPlan plan = SyncPlanner.plan(pool, wanted, existing, generations.getOrDefault(pool, 0L));
    if (!plan.isEmpty()) {
      LOG.debug(
          "slice publisher {}: pool \"{}\": generation {}, {} delete(s), {} update(s), {}"
              + " create(s)",
          driver,
          pool,
          plan.generation(),
          plan.deletes().size(),
          plan.updates().size(),
          plan.creates().size());
    }
    // A crash test stops the process after the first of these writes (it blocks there).
    for (ResourceSlice s : plan.deletes()) {
      delete(pool, s);
      CrashPoints.reach(CrashPoints.PUBLISH_AFTER_FIRST_WRITE);
    }
    for (SyncPlan.Update u : plan.updates()) {
      ResourceSlice stored = update(pool, u.existing().withSpec(u.spec()));
      written(pool, u.index(), layout, u.spec(), stored);
      CrashPoints.reach(CrashPoints.PUBLISH_AFTER_FIRST_WRITE);
    }
    for (SyncPlan.Create c : plan.creates()) {
      ResourceSlice stored = create(c);
      written(pool, c.index(), layout, c.spec(), stored);
      CrashPoints.reach(CrashPoints.PUBLISH_AFTER_FIRST_WRITE);
    }
    generations.merge(pool, plan.generation(), Math::max);
    return layout.size();
  }

  /** The pool's slices as far as we know: the informer's, overlaid with our own newer writes. */
  private List<ResourceSlice> view(String pool) {
    Map<String, ResourceSlice> slices = new HashMap<>(observed.getOrDefault(pool, Map.of()));
    for (Map.Entry<String, Recent> e : recent.entrySet()) {
      if (e.getValue().pool().equals(pool)) {
        slices.put(e.getKey(), e.getValue().slice());
      }
    }
    slices.keySet().removeAll(tombstones.keySet());
    List<ResourceSlice> out = new ArrayList<>(slices.size());
    for (ResourceSlice s : slices.values()) {
      if (owns(s)) {
        out.add(s);
      }
    }
    return out;
  }

  private void delete(String pool, ResourceSlice s) throws KubeException {
    String name = s.metadata().name();
    try {
      client.delete(
          ResourceSlice.TYPE,
          "",
          name,
          new Preconditions(s.metadata().uid(), s.metadata().resourceVersion()));
    } catch (KubeException e) {
      if (!e.isNotFound()) {
        if (e.isConflict()) {
          freshRead(pool, name);
        }
        throw e;
      }
    }
    deletes.incrementAndGet();
    recent.remove(name);
    tombstones.put(name, new Recent(pool, s, System.nanoTime()));
    scheduleHousekeeping();
  }

  private ResourceSlice update(String pool, ResourceSlice slice) throws KubeException {
    try {
      ResourceSlice stored = client.update(ResourceSlice.TYPE, slice);
      updates.incrementAndGet();
      return stored;
    } catch (KubeException e) {
      if (e.isConflict() || e.isNotFound()) {
        freshRead(pool, slice.metadata().name());
      }
      throw e;
    }
  }

  private ResourceSlice create(SyncPlan.Create c) throws KubeException {
    ResourceSliceSpec spec = c.spec();
    ObjectMeta meta;
    if (spec.nodeName().isPresent()) {
      String node = spec.nodeName().get();
      meta =
          ObjectMeta.generated("", SliceNames.generateName(c.index(), c.sliceCount(), driver, node))
              .withOwnerReferences(List.of(OwnerReference.node(node, ownerUid())));
    } else if (owner.isPresent()) {
      OwnerReference o = owner.get();
      if (o.uid().isEmpty()) {
        o = OwnerReference.node(o.name(), ownerUid()); // the Node of nodeName (see the builder)
      }
      meta =
          ObjectMeta.generated(
                  "", SliceNames.generateName(c.index(), c.sliceCount(), driver, o.name()))
              .withOwnerReferences(List.of(o));
    } else {
      meta =
          ObjectMeta.generated(
              "", SliceNames.generateName(c.index(), c.sliceCount(), driver, spec.pool().name()));
    }
    ResourceSlice stored = client.create(ResourceSlice.TYPE, ResourceSlice.of(meta, spec));
    creates.incrementAndGet();
    return stored;
  }

  private String ownerUid() throws KubeException {
    if (ownerUid == null) {
      Node node;
      try {
        node = client.get(Node.TYPE, "", nodeName.orElseThrow());
      } catch (KubeException e) {
        if (!e.isNotFound()) {
          throw e;
        }
        // The most common first-run mistake: say what to check, not just "404".
        throw new KubeException(
            e.status(),
            e.reason(),
            "Node \""
                + nodeName.get()
                + "\" does not exist, and a node's ResourceSlices are owned by its Node: check"
                + " --node-name (NODE_NAME, from the pod's spec.nodeName in a DaemonSet); outside"
                + " a cluster, create the Node (the test kit's API server: --node "
                + nodeName.get()
                + "). Publishing starts once it exists",
            e);
      }
      if (node.metadata().uid().isEmpty()) {
        throw new KubeException(
            0, "NoUid", "node " + nodeName.get() + " has no metadata.uid; cannot own slices");
      }
      ownerUid = node.metadata().uid();
    }
    return ownerUid;
  }

  /** After a 409 or 404: read the slice again so the retry starts from the server's state. */
  private void freshRead(String pool, String name) {
    try {
      ResourceSlice s = client.get(ResourceSlice.TYPE, "", name);
      tombstones.remove(name);
      recent.put(name, new Recent(pool, s, System.nanoTime()));
    } catch (KubeException e) {
      if (e.isNotFound()) {
        recent.remove(name);
        tombstones.put(name, new Recent(pool, null, System.nanoTime()));
      } else {
        LOG.debug("slice publisher {}: re-reading {} failed: {}", driver, name, e.getMessage());
        return;
      }
    }
    scheduleHousekeeping();
  }

  /** Remembers a write's result and checks whether the API server dropped fields. */
  private void written(
      String pool,
      int index,
      List<ResourceSliceSpec> layout,
      ResourceSliceSpec sent,
      ResourceSlice stored) {
    String name = stored.metadata().name();
    tombstones.remove(name);
    recent.put(name, new Recent(pool, stored, System.nanoTime()));
    scheduleHousekeeping();
    generations.merge(pool, stored.spec().pool().generation(), Math::max);
    Optional<DroppedFields> dropped = DroppedFields.detect(sent, stored.spec());
    if (dropped.isPresent() && index < layout.size()) {
      adoptions
          .computeIfAbsent(pool, k -> new HashMap<>())
          .put(index, new Adoption(layout.get(index), stored.spec()));
      droppedFieldReports.incrementAndGet();
      DroppedFields d = dropped.get();
      notifyListener(() -> listener.onDroppedFields(pool, index, d));
      DroppedFieldsException e = d.exception(pool, index);
      DriverErrorHandler.report(
          errorHandler,
          DriverError.recoverable(
              DriverError.Source.SLICES, "slice publisher: " + e.getMessage(), e));
    }
  }

  /**
   * A desired slice whose stored form lacks fields the API server dropped.
   *
   * @param desired the layout's spec that was sent
   * @param stored what the API server kept; used instead while the layout asks for {@code desired}
   */
  private record Adoption(ResourceSliceSpec desired, ResourceSliceSpec stored) {}

  private List<ResourceSliceSpec> adopted(String pool, List<ResourceSliceSpec> layout) {
    Map<Integer, Adoption> a = adoptions.get(pool);
    if (a == null || a.isEmpty()) {
      return layout;
    }
    List<ResourceSliceSpec> out = new ArrayList<>(layout);
    Iterator<Map.Entry<Integer, Adoption>> it = a.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Integer, Adoption> e = it.next();
      int i = e.getKey();
      if (i < layout.size()
          && !SliceDiff.needsUpdate(
              layout.get(i), e.getValue().desired().withPool(layout.get(i).pool()))) {
        out.set(i, e.getValue().stored().withPool(layout.get(i).pool()));
      } else {
        it.remove(); // the driver wants something else now: try it
      }
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Own writes and deletes the informer has not delivered yet

  /**
   * An own write (or delete, then {@code slice} may be null) and when it happened.
   *
   * @param pool the pool of the slice
   */
  private record Recent(String pool, ResourceSlice slice, long atNanos) {
    String resourceVersion() {
      return slice == null ? "" : slice.metadata().resourceVersion();
    }
  }

  private void scheduleHousekeeping() {
    if (!housekeepingScheduled) {
      housekeepingScheduled = true;
      housekeepingDue = System.nanoTime() + MUTATION_TTL.toNanos();
    }
  }

  /**
   * Forgets own writes and deletes the informer never confirmed within {@link #MUTATION_TTL}
   * (possible only when a re-list skipped a short-lived object), and syncs their pools again.
   */
  private void housekeeping() {
    long now = System.nanoTime();
    long ttl = MUTATION_TTL.toNanos();
    long next = Long.MAX_VALUE;
    Set<String> check = new HashSet<>();
    for (Map<String, Recent> map : List.of(recent, tombstones)) {
      Iterator<Map.Entry<String, Recent>> it = map.entrySet().iterator();
      while (it.hasNext()) {
        Recent r = it.next().getValue();
        if (now - r.atNanos() >= ttl) {
          it.remove();
          check.add(r.pool());
        } else {
          next = Math.min(next, r.atNanos() + ttl - now);
        }
      }
    }
    housekeepingScheduled = next != Long.MAX_VALUE;
    housekeepingDue = now + (housekeepingScheduled ? next : 0);
    for (String pool : check) {
      DesiredPool d = desired.get(pool);
      if (d == null || d.valid()) {
        enqueue(pool, now);
      }
    }
  }

  private void reportError(String message) {
    DriverErrorHandler.report(
        errorHandler, DriverError.recoverable(DriverError.Source.SLICES, message));
  }

  private void notifyListener(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      LOG.warn("slice publisher {}: the listener failed", driver, e);
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * For a refusal the platform engineer fixes, what to check; otherwise nothing.
   *
   * @param node whether the publisher runs for a node (a node driver's chart limits it to its node)
   */
  static String whatToDo(Exception e, boolean node) {
    if (!(e instanceof KubeException k)) {
      return "";
    }
    return k.whatToCheck(
        node
            ? "write this node's ResourceSlices (the ValidatingAdmissionPolicy of the chart limits a"
                + " driver to its own node)"
            : "write ResourceSlices (get, list, watch, create, update and delete, cluster-wide)");
  }

  /** The listener used when none is set: errors go to the error handler, syncs to debug. */
  private static final class LoggingListener implements PublishListener {
    @Override
    public void onSynced(String pool, int slices) {
      LOG.debug("slice publisher: pool \"{}\" is in sync ({} slices)", pool, slices);
    }
  }

  /** Builds a {@link SlicePublisher}. */
  public static final class Builder {
    private final KubeClient client;
    private final String driver;
    private Optional<String> nodeName = Optional.empty();
    private Optional<String> ownerUid = Optional.empty();
    private Optional<OwnerReference> owner = Optional.empty();
    private boolean dynamicTaints;
    private PublishListener listener = new LoggingListener();
    private SyncObserver syncObserver = SyncObserver.NONE;
    private DriverErrorHandler errorHandler = DriverErrorHandler.logging();
    private Duration backoffBase = Duration.ofMillis(100);
    private Duration backoffMax = Duration.ofSeconds(30);
    private Optional<Backoff.Policy> informerBackoff = Optional.empty();
    private Duration resyncDelay = Duration.ofSeconds(1);

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
