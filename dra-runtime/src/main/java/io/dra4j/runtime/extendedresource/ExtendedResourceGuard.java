package io.dra4j.runtime.extendedresource;

import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Pool;
import io.dra4j.cel.CelSelectors;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.Node;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.extendedresource.GuardReport.Conflict;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.internal.Threads;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The extended-resource migration guard (KEP-5004): a node must not serve one extended resource
 * name both through a device plugin and through DRA, or the scheduler admits pods twice for the
 * same hardware. Kubernetes does not check this; the guard does, for this driver on this node.
 *
 * <p>It watches every DeviceClass and this Node. For each name a class maps (its explicit {@code
 * extendedResourceName}, where it is the class the scheduler uses, and its implicit {@code
 * deviceclass.resource.kubernetes.io/<class>}) it evaluates the class's CEL selectors against this
 * driver's devices ({@link #setDevices}); when they select at least one device and the Node's
 * {@code status.allocatable} for the name is above 0, a device plugin still serves the name here: a
 * conflict. Classes of other drivers never select this driver's devices and never matter; a class
 * without selectors selects every device and always matters.
 *
 * <p>Allocatable alone decides because it alone decides for the scheduler: it hands a name to DRA
 * on a node whose allocatable for it is 0 or absent, whatever the capacity ({@link
 * GuardReport.Phase} has the upstream lines). When a device plugin stops, the kubelet reports
 * allocatable 0 at its next node status update but keeps the plugin's devices in capacity for 5
 * minutes; a guard that waited for capacity too would leave the pods the scheduler already sends to
 * DRA Pending for those minutes. A running plugin whose devices are all unhealthy also shows
 * allocatable 0, and the scheduler then uses DRA too: the guard lets the devices out in both cases
 * and says which phase the name is in ({@link GuardReport#names}).
 *
 * <p>What a conflict does depends on the {@link Policy}:
 *
 * <ul>
 *   <li>{@link Policy#WAIT} (the default): {@link #filter} drops the devices the conflicting class
 *       selects until the node's allocatable for the name is 0 or gone; what it waits for is logged
 *       at once and then every {@link Builder#logInterval}. Before the first read of DeviceClasses
 *       and Node, WAIT drops every device (it cannot know yet). When the name becomes allocatable
 *       again while the devices are out (the device plugin came back), WAIT withdraws them from the
 *       slices at once and logs an error: claims already allocated keep their devices, and new pods
 *       go to the device plugin, which may hand out the same hardware.
 *   <li>{@link Policy#WARN}: publishes anyway and logs the same way.
 *   <li>{@link Policy#FAIL}: reports a {@linkplain DriverError.Severity#FATAL fatal} error with the
 *       reason to the {@link Builder#errorHandler} (a {@code DraDriver} then stops, and its
 *       launcher exits non-zero); {@link #filter} drops the devices in conflict meanwhile, so they
 *       are never published, and like WAIT drops every device before the first read.
 * </ul>
 *
 * Duplicate explicit names (several classes, one of which selects this driver's devices) are logged
 * once per change with the class the scheduler uses: the newest, or on equal creation times the
 * lexicographically first name. Implicit names that no pod can request (class name over 63
 * characters) are reported too.
 *
 * <p>The driver composes it: {@code publisher.publish(guard.filter(hub.applyTaints(pools)))}, calls
 * {@link #setDevices} with the enriched pools whenever they change, and republishes when a {@link
 * #addChangeListener change listener} fires.
 *
 * <p>Thread-safe. Listeners and the error handler run without the guard's lock, on the informers'
 * or the caller's thread.
 */
public final class ExtendedResourceGuard implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExtendedResourceGuard.class);

  /** What the guard does when a name is served both ways on this node. */
  public enum Policy {
    /** Hold the affected devices back until the device plugin stops serving the name. */
    WAIT,
    /** Publish anyway and log the conflict. */
    WARN,
    /** Report a fatal error: the driver stops, and its launcher exits non-zero. */
    FAIL;

    /**
     * Parses the value of {@code --extended-resource-conflict}: {@code wait}, {@code warn} or
     * {@code fail}, in any case.
     */
    public static Policy parse(String value) {
      Objects.requireNonNull(value, "value");
      for (Policy p : values()) {
        if (p.name().equalsIgnoreCase(value.trim())) {
          return p;
        }
      }
      throw new IllegalArgumentException(
          "--extended-resource-conflict=\"" + value + "\": must be wait, warn or fail");
    }
  }

  /** What a conflict does unless the driver is told otherwise: never serve a name twice. */
  public static final Policy DEFAULT_POLICY = Policy.WAIT;

  private final String driverName;
  private final String nodeName;
  private final Policy policy;

  /** The CEL compiler and its cache, shared with every other user in the JVM. */
  private final CelSelectors selectors = CelSelectors.shared();

  private final DriverErrorHandler errorHandler;
  private final ScheduledExecutorService executor;
  private final boolean ownsExecutor;
  private final Clock clock;
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final GuardWatch watch;

  private final Object lock = new Object();
  // All guarded by lock.
  private final GuardLog log;
  private List<Pool> devices = List.of();
  private List<DeviceClass> classes = List.of();
  private Optional<Node> node = Optional.empty();
  private boolean synced;
  private GuardEvaluator.Mapping mapping = GuardEvaluator.mapping(List.of());
  private GuardEvaluator.Evaluation evaluation =
      new GuardEvaluator.Evaluation(List.of(), List.of(), List.of(), List.of(), List.of());
  private Optional<Instant> waitingSince = Optional.empty();

  /** The devices the last {@link #filter} let through: what is out in the slices now. */
  private Set<DeviceRef> letThrough = Set.of();

  private List<String> lastFatal = List.of();
  private boolean warnedUnsynced;
  private boolean warnedNoNode;
  private boolean closed;

  private ExtendedResourceGuard(Builder b) {
    this.driverName = b.driverName;
    this.nodeName = b.nodeName;
    this.policy = b.policy;
    this.clock = b.clock;
    this.errorHandler = b.errorHandler;
    this.ownsExecutor = b.executor.isEmpty();
    this.executor = b.executor.orElseGet(() -> Threads.single("dra4j-extended-resource-guard"));
    this.log = new GuardLog(b, executor, this::remind);
    this.watch = new GuardWatch(b.client, nodeName, this::update);
  }

  /** A builder for the guard of {@code driverName} on {@code nodeName}. */
  public static Builder builder(KubeClient client, String driverName, String nodeName) {
    return new Builder(client, driverName, nodeName);
  }

  /**
   * Starts watching DeviceClasses and this Node ({@code fieldSelector metadata.name=<node>}); the
   * guard evaluates once both are read and again on every change.
   *
   * @throws IllegalStateException when started twice
   */
  public ExtendedResourceGuard start() {
    watch.start();
    LOG.info(
        "driver={} node={}: extended-resource guard started (policy {})",
        driverName,
        nodeName,
        policy.name().toLowerCase(Locale.ROOT));
    return this;
  }

  /** Waits until DeviceClasses and the Node have been read and evaluated; false on timeout. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    return watch.awaitSynced(timeout);
  }

  /** The driver's current (enriched) devices; re-evaluates. */
  public void setDevices(List<Pool> pools) {
    Objects.requireNonNull(pools, "pools");
    Outcome outcome;
    synchronized (lock) {
      devices = List.copyOf(pools);
      outcome = evaluateLocked();
    }
    outcome.run();
  }

  /**
   * Under {@link Policy#WAIT} and {@link Policy#FAIL}: the pools without the devices of an active
   * conflict (evaluated on exactly these pools), or without any device before the first sync. Pools
   * are kept even when empty: an empty pool says the driver runs and offers nothing. (A driver
   * about to exit under FAIL must not publish what it exits for in the meantime.) Under WARN: the
   * pools unchanged.
   */
  public List<Pool> filter(List<Pool> pools) {
    if (policy == Policy.WARN) {
      remember(pools);
      return List.copyOf(pools);
    }
    boolean isSynced;
    GuardEvaluator.Mapping m;
    Optional<Node> n;
    synchronized (lock) {
      isSynced = synced;
      m = mapping;
      n = node;
      if (!isSynced && !warnedUnsynced) {
        warnedUnsynced = true;
        LOG.warn(
            "driver={} node={}: DeviceClasses and the Node are not read yet; publishing no devices"
                + " until they are (call awaitSynced before the first publish)",
            driverName,
            nodeName);
      }
    }
    if (!isSynced) {
      return pools.stream().map(p -> p.withDevices(List.of())).toList();
    }
    List<Conflict> conflicts =
        GuardEvaluator.conflicts(driverName, nodeName, m, n, pools, selectors);
    if (conflicts.isEmpty()) {
      remember(pools);
      return List.copyOf(pools);
    }
    Set<DeviceRef> held = new HashSet<>();
    for (Conflict c : conflicts) {
      held.addAll(c.affectedDevices());
    }
    List<Pool> out = new ArrayList<>(pools.size());
    for (Pool p : pools) {
      List<Device> kept =
          p.devices().stream()
              .filter(d -> !held.contains(new DeviceRef(p.name(), d.name())))
              .toList();
      out.add(kept.size() == p.devices().size() ? p : p.withDevices(kept));
    }
    remember(out);
    return List.copyOf(out);
  }

  private void remember(List<Pool> published) {
    Set<DeviceRef> refs = new HashSet<>();
    for (Pool p : published) {
      for (Device d : p.devices()) {
        refs.add(new DeviceRef(p.name(), d.name()));
      }
    }
    synchronized (lock) {
      letThrough = Set.copyOf(refs);
    }
  }

  /** The current decision and why. */
  public GuardReport report() {
    synchronized (lock) {
      return new GuardReport(
          driverName,
          nodeName,
          policy,
          synced,
          node.isPresent(),
          evaluation.names(),
          evaluation.conflicts(),
          evaluation.duplicates(),
          evaluation.unusable(),
          evaluation.problems(),
          waitingSince);
    }
  }

  /**
   * Calls {@code listener} when the decision changes (a conflict appears or clears, or the first
   * sync completes): the driver republishes through {@link #filter}. Must not throw.
   */
  public void addChangeListener(Runnable listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Stops watching. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      log.close();
    }
    watch.close();
    if (ownsExecutor) {
      executor.shutdownNow();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Evaluation

  /** The cluster state changed (informers; tests call it directly). */
  void update(List<DeviceClass> newClasses, Optional<Node> newNode) {
    Outcome outcome;
    synchronized (lock) {
      if (closed) {
        return;
      }
      List<DeviceClass> sorted = new ArrayList<>(newClasses);
      sorted.sort(java.util.Comparator.comparing(dc -> dc.metadata().name()));
      if (!sorted.equals(classes)) {
        classes = List.copyOf(sorted);
        mapping = GuardEvaluator.mapping(classes);
      }
      node = newNode;
      boolean first = !synced;
      synced = true;
      if (node.isEmpty() && !warnedNoNode) {
        warnedNoNode = true;
        log.log(
            Level.WARN,
            "node "
                + nodeName
                + " does not exist (yet): no node capacity to compare; the guard sees no conflict"
                + " until it does");
      } else if (node.isPresent()) {
        warnedNoNode = false;
      }
      outcome = evaluateLocked();
      if (first) {
        outcome = outcome.changed();
      }
    }
    outcome.run();
  }

  /** What to do after the lock is released. */
  private final class Outcome {
    final boolean changed;
    final Optional<String> fatal;

    Outcome(boolean changed, Optional<String> fatal) {
      this.changed = changed;
      this.fatal = fatal;
    }

    Outcome changed() {
      return new Outcome(true, fatal);
    }

    void run() {
      if (changed) {
        for (Runnable l : listeners) {
          try {
            l.run();
          } catch (RuntimeException e) {
            DriverErrorHandler.report(
                errorHandler,
                DriverError.recoverable(
                    DriverError.Source.EXTENDED_RESOURCES,
                    "driver=" + driverName + ": an extended-resource guard listener failed: " + e,
                    e));
          }
        }
      }
      fatal.ifPresent(
          reason ->
              DriverErrorHandler.report(
                  errorHandler, DriverError.fatal(DriverError.Source.EXTENDED_RESOURCES, reason)));
    }
  }

  private Outcome evaluateLocked() {
    if (!synced || closed) {
      return new Outcome(false, Optional.empty());
    }
    GuardEvaluator.Evaluation before = evaluation;
    evaluation =
        GuardEvaluator.evaluate(
            driverName,
            nodeName,
            classes,
            mapping,
            node,
            devices,
            selectors,
            policy == Policy.WARN);
    log.changes(before, evaluation);
    boolean changed = !evaluation.conflicts().equals(before.conflicts());
    Optional<String> fatal = Optional.empty();
    if (changed) {
      if (evaluation.conflicts().isEmpty()) {
        // Changed, so there were conflicts before.
        log.cleared(waitingSince);
        waitingSince = Optional.empty();
        lastFatal = List.of();
      } else {
        Instant now = clock.instant();
        if (policy == Policy.WAIT && waitingSince.isEmpty()) {
          waitingSince = Optional.of(now);
        }
        log.returns(before, evaluation, letThrough);
        log.conflicts(evaluation.conflicts(), waitingSince, now);
        if (policy == Policy.FAIL) {
          List<String> keys = evaluation.conflicts().stream().map(Conflict::resourceName).toList();
          if (!keys.equals(lastFatal)) {
            lastFatal = keys;
            fatal = Optional.of(log.fatalReason(evaluation.conflicts()));
          }
        }
      }
    }
    return new Outcome(changed, fatal);
  }

  /** Repeats the conflict log, at most once per log interval (the reminders; tests). */
  void remind() {
    synchronized (lock) {
      log.remind(evaluation.conflicts(), waitingSince);
    }
  }

  /** Builds an {@link ExtendedResourceGuard}. */
  public static final class Builder {
    final KubeClient client;
    final String driverName;
    final String nodeName;
    Policy policy = DEFAULT_POLICY;
    Duration logInterval = Duration.ofMinutes(1);
    Clock clock = Clock.systemUTC();
    DriverErrorHandler errorHandler = DriverErrorHandler.logging();
    Optional<ScheduledExecutorService> executor = Optional.empty();
    BiConsumer<Level, String> logTap = (l, m) -> {};

    private Builder(KubeClient client, String driverName, String nodeName) {
      this.client = Objects.requireNonNull(client, "client");
      this.driverName = Objects.requireNonNull(driverName, "driverName");
      this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    }

    /** What a conflict does. Default: {@link #DEFAULT_POLICY} ({@code wait}). */
    public Builder policy(Policy value) {
      policy = Objects.requireNonNull(value, "policy");
      return this;
    }

    /** How often an ongoing conflict is logged again; default 1 minute. */
    public Builder logInterval(Duration value) {
      logInterval = Objects.requireNonNull(value, "logInterval");
      return this;
    }

    /** The clock for {@code waitingSince} and log pacing. */
    public Builder clock(Clock value) {
      clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Hears, under {@link Policy#FAIL}, a {@linkplain DriverError.Severity#FATAL fatal} error with
     * the reason (class, name, node, values), once per new set of conflicts, and a failed change
     * listener as a recoverable one. The guard itself never stops the JVM: a {@code DraDriver}
     * passes its own handler and closes itself. Default: {@link DriverErrorHandler#logging()}.
     */
    public Builder errorHandler(DriverErrorHandler value) {
      errorHandler = Objects.requireNonNull(value, "errorHandler");
      return this;
    }

    /**
     * Where log reminders run; default a daemon thread of the guard's own. A supplied executor is
     * not shut down by {@link ExtendedResourceGuard#close()}.
     */
    public Builder executor(ScheduledExecutorService value) {
      executor = Optional.of(Objects.requireNonNull(value, "executor"));
      return this;
    }

    /** Sees every line the guard logs (tests). */
    Builder logTap(BiConsumer<Level, String> value) {
      logTap = Objects.requireNonNull(value, "logTap");
      return this;
    }

    /**
     * Builds the guard; call {@link ExtendedResourceGuard#start()}.
     *
     * @throws IllegalArgumentException for an empty driver or node name or a non-positive log
     *     interval
     */
    public ExtendedResourceGuard build() {
      if (driverName.isEmpty()) {
        throw new IllegalArgumentException("ExtendedResourceGuard: driverName must not be empty");
      }
      if (nodeName.isEmpty()) {
        throw new IllegalArgumentException("ExtendedResourceGuard: nodeName must not be empty");
      }
      if (logInterval.isNegative() || logInterval.isZero()) {
        throw new IllegalArgumentException(
            "ExtendedResourceGuard: logInterval must be positive, got " + logInterval);
      }
      return new ExtendedResourceGuard(this);
    }
  }
}
