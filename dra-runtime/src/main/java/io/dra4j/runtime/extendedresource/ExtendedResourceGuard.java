package io.dra4j.runtime.extendedresource;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.cel.CelSelectors;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.extendedresource.GuardReport.Conflict;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.extendedresource.GuardReport.Duplicate;
import io.dra4j.runtime.extendedresource.GuardReport.NameStatus;
import io.dra4j.runtime.extendedresource.GuardReport.Phase;
import io.dra4j.runtime.extendedresource.GuardReport.UnusableName;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
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

  /** How many device names a log line lists before it says "and N more". */
  private static final int LOGGED_DEVICES = 8;

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

  private final KubeClient client;
  private final String driverName;
  private final String nodeName;
  private final Policy policy;

  /** The CEL compiler and its cache, shared with every other user in the JVM. */
  private final CelSelectors selectors = CelSelectors.shared();

  private final Duration logInterval;
  private final Clock clock;
  private final DriverErrorHandler errorHandler;
  private final ScheduledExecutorService executor;
  private final boolean ownsExecutor;
  private final BiConsumer<Level, String> logTap;
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();

  private final Object lock = new Object();
  // All guarded by lock.
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

  private Instant lastConflictLog = Instant.MIN;
  private ScheduledFuture<?> reminder;
  private List<String> lastFatal = List.of();
  private boolean warnedUnsynced;
  private boolean warnedNoNode;
  private boolean closed;

  private Informer<DeviceClass> classInformer;
  private Informer<Node> nodeInformer;

  private ExtendedResourceGuard(Builder b) {
    this.client = b.client;
    this.driverName = b.driverName;
    this.nodeName = b.nodeName;
    this.policy = b.policy;
    this.logInterval = b.logInterval;
    this.clock = b.clock;
    this.errorHandler = b.errorHandler;
    this.ownsExecutor = b.executor.isEmpty();
    this.executor =
        b.executor.orElseGet(
            () ->
                Executors.newSingleThreadScheduledExecutor(
                    r -> {
                      Thread t = new Thread(r, "dra4j-extended-resource-guard");
                      t.setDaemon(true);
                      return t;
                    }));
    this.logTap = b.logTap;
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
    synchronized (lock) {
      if (classInformer != null || closed) {
        throw new IllegalStateException("ExtendedResourceGuard was already started or closed");
      }
      classInformer = Informer.builder(client, DeviceClass.TYPE).handler(new Trigger<>()).build();
      nodeInformer =
          Informer.builder(client, Node.TYPE)
              .options(ListOptions.fields("metadata.name=" + nodeName))
              .handler(new Trigger<>())
              .build();
    }
    classInformer.start();
    nodeInformer.start();
    LOG.info(
        "driver={} node={}: extended-resource guard started (policy {})",
        driverName,
        nodeName,
        policy.name().toLowerCase(Locale.ROOT));
    return this;
  }

  /** Waits until DeviceClasses and the Node have been read and evaluated; false on timeout. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    Informer<DeviceClass> c;
    Informer<Node> n;
    synchronized (lock) {
      c = classInformer;
      n = nodeInformer;
    }
    if (c == null) {
      throw new IllegalStateException("ExtendedResourceGuard.awaitSynced before start()");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    if (!c.awaitSynced(timeout)) {
      return false;
    }
    if (!n.awaitSynced(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
      return false;
    }
    // Both are synced: evaluate now on this thread, so the report is ready when this returns
    // (the informers' own onSynced may still be on its way).
    refresh();
    return true;
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
    Informer<DeviceClass> c;
    Informer<Node> n;
    synchronized (lock) {
      closed = true;
      c = classInformer;
      n = nodeInformer;
      if (reminder != null) {
        reminder.cancel(false);
      }
    }
    if (c != null) {
      c.close();
    }
    if (n != null) {
      n.close();
    }
    if (ownsExecutor) {
      executor.shutdownNow();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Evaluation

  /** Re-reads both informer caches and evaluates, once both are synced. */
  private void refresh() {
    Informer<DeviceClass> c;
    Informer<Node> n;
    synchronized (lock) {
      c = classInformer;
      n = nodeInformer;
    }
    if (c == null || !c.hasSynced() || !n.hasSynced()) {
      return;
    }
    update(c.list(), n.get("", nodeName));
  }

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
        log(
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
    if (!evaluation.duplicates().equals(before.duplicates())) {
      for (Duplicate d : evaluation.duplicates()) {
        log(
            Level.WARN,
            "extended resource "
                + d.resourceName()
                + " is mapped by "
                + (d.ignored().size() + 1)
                + " DeviceClasses: the scheduler uses "
                + d.winner()
                + " (newest; on equal creation times the first name) and ignores "
                + String.join(", ", d.ignored()));
      }
    }
    if (!evaluation.unusable().equals(before.unusable())) {
      for (UnusableName u : evaluation.unusable()) {
        log(
            Level.WARN,
            "DeviceClass "
                + u.deviceClass()
                + " selects devices of this driver, but its implicit extended resource name "
                + u.resourceName()
                + " cannot be requested: "
                + u.reason()
                + "; set spec.extendedResourceName if pods should request it");
      }
    }
    if (!evaluation.problems().equals(before.problems())) {
      for (String p : evaluation.problems()) {
        log(Level.WARN, p);
      }
    }
    logPhaseChanges(before);
    boolean changed = !evaluation.conflicts().equals(before.conflicts());
    Optional<String> fatal = Optional.empty();
    if (changed) {
      Instant now = clock.instant();
      if (evaluation.conflicts().isEmpty()) {
        if (!before.conflicts().isEmpty()) {
          log(
              Level.INFO,
              policy == Policy.WAIT
                  ? "no extended resource conflict any more: publishing the devices held back since "
                      + waitingSince.map(Instant::toString).orElse("start")
                  : "no extended resource conflict any more");
        }
        waitingSince = Optional.empty();
        cancelReminder();
      } else {
        if (policy == Policy.WAIT && waitingSince.isEmpty()) {
          waitingSince = Optional.of(now);
        }
        logReturns(before);
        logConflicts(now);
        if (policy == Policy.FAIL) {
          List<String> keys = evaluation.conflicts().stream().map(Conflict::resourceName).toList();
          if (!keys.equals(lastFatal)) {
            lastFatal = keys;
            fatal = Optional.of(fatalReason());
          }
        }
      }
      if (evaluation.conflicts().isEmpty()) {
        lastFatal = List.of();
      }
    }
    return new Outcome(changed, fatal);
  }

  /** One INFO line per name whose phase changed (or that appeared), in the phases' own words. */
  private void logPhaseChanges(GuardEvaluator.Evaluation before) {
    Map<String, Phase> was = new HashMap<>();
    for (NameStatus n : before.names()) {
      was.put(n.resourceName(), n.phase());
    }
    for (NameStatus n : evaluation.names()) {
      if (was.get(n.resourceName()) == n.phase()) {
        continue;
      }
      String what =
          switch (n.phase()) {
            case DEVICE_PLUGIN ->
                "a device plugin serves it: the scheduler sends pods asking for it to the plugin";
            case PLUGIN_STOPPED ->
                "allocatable is 0, so the scheduler sends pods asking for it to DRA; the kubelet"
                    + " still counts the device plugin's devices in capacity (a plugin stopped"
                    + " less than 5 minutes ago, the kubelet's endpointStopGracePeriod, or one"
                    + " whose devices are all unhealthy)";
            case DRA -> "no device plugin serves it here: DRA does";
          };
      log(
          Level.INFO,
          "extended resource "
              + n.resourceName()
              + " (DeviceClass "
              + n.deviceClass()
              + "): phase "
              + n.phase().json()
              + " (capacity "
              + n.capacity().map(Quantity::toString).orElse("absent")
              + ", allocatable "
              + n.allocatable().map(Quantity::toString).orElse("absent")
              + "): "
              + what);
    }
  }

  /**
   * Loudly, for a name that became allocatable again while devices of its class are out: the node
   * now serves it both ways until this driver's devices are withdrawn (wait, fail) or for as long
   * as both run (warn). Claims already allocated keep their devices either way.
   */
  private void logReturns(GuardEvaluator.Evaluation before) {
    Set<String> old = new HashSet<>();
    for (Conflict c : before.conflicts()) {
      old.add(c.resourceName());
    }
    for (Conflict c : evaluation.conflicts()) {
      long out = c.affectedDevices().stream().filter(letThrough::contains).count();
      if (old.contains(c.resourceName()) || out == 0) {
        continue;
      }
      String action =
          switch (policy) {
            case WAIT -> "withdrawing them from the ResourceSlices now";
            case WARN -> "publishing them anyway (policy warn)";
            case FAIL -> "stopping the driver (policy fail)";
          };
      log(
          Level.ERROR,
          "extended resource "
              + c.resourceName()
              + " is allocatable on node "
              + nodeName
              + " again (capacity "
              + c.capacity().map(Quantity::toString).orElse("absent")
              + ", allocatable "
              + c.allocatable().map(Quantity::toString).orElse("absent")
              + ") while "
              + out
              + " device(s) of DeviceClass "
              + String.join(", ", c.deviceClasses())
              + " are published: a device plugin serves it beside this driver; "
              + action
              + ". Pods that got these devices through DRA keep them, and new pods asking for "
              + c.resourceName()
              + " go to the device plugin, which may hand out the same hardware: drain the node"
              + " and remove either the device plugin or this driver");
    }
  }

  private String fatalReason() {
    return "driver "
        + driverName
        + ": "
        + evaluation.conflicts().stream().map(Conflict::describe).collect(Collectors.joining("; "))
        + " (--extended-resource-conflict=fail)";
  }

  /** Logs the conflicts and schedules the next reminder; called with the lock held. */
  private void logConflicts(Instant now) {
    Level level = policy == Policy.FAIL ? Level.ERROR : Level.WARN;
    for (Conflict c : evaluation.conflicts()) {
      log(level, conflictLine(c));
    }
    lastConflictLog = now;
    scheduleReminder(logInterval);
  }

  private String conflictLine(Conflict c) {
    String devicesText =
        c.affectedDevices().stream()
                .limit(LOGGED_DEVICES)
                .map(DeviceRef::toString)
                .collect(Collectors.joining(", "))
            + (c.affectedDevices().size() > LOGGED_DEVICES
                ? " and " + (c.affectedDevices().size() - LOGGED_DEVICES) + " more"
                : "");
    return switch (policy) {
      case WAIT ->
          "waiting"
              + waitingSince.map(t -> " since " + t).orElse("")
              + ": "
              + c.describe()
              + ". Not publishing "
              + devicesText
              + " until the node's allocatable for "
              + c.resourceName()
              + " is 0, when the scheduler hands the name to DRA (remove the device plugin from"
              + " this node)";
      case WARN -> c.describe() + ". Publishing " + devicesText + " anyway (policy warn)";
      case FAIL -> c.describe() + " (policy fail)";
    };
  }

  private void scheduleReminder(Duration delay) {
    cancelReminder();
    if (closed || policy == Policy.FAIL) {
      return;
    }
    reminder = executor.schedule(this::remind, delay.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void cancelReminder() {
    if (reminder != null) {
      reminder.cancel(false);
      reminder = null;
    }
  }

  /** Repeats the conflict log, at most once per log interval. */
  void remind() {
    synchronized (lock) {
      reminder = null;
      if (closed || evaluation.conflicts().isEmpty()) {
        return;
      }
      Instant now = clock.instant();
      Instant due = lastConflictLog.plus(logInterval);
      if (now.isBefore(due)) {
        scheduleReminder(Duration.between(now, due));
        return;
      }
      logConflicts(now);
    }
  }

  private void log(Level level, String message) {
    String line = "driver=" + driverName + " node=" + nodeName + ": " + message;
    LOG.atLevel(level).log(line);
    logTap.accept(level, line);
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

  /** Builds an {@link ExtendedResourceGuard}. */
  public static final class Builder {
    private final KubeClient client;
    private final String driverName;
    private final String nodeName;
    private Policy policy = DEFAULT_POLICY;
    private Duration logInterval = Duration.ofMinutes(1);
    private Clock clock = Clock.systemUTC();
    private DriverErrorHandler errorHandler = DriverErrorHandler.logging();
    private Optional<ScheduledExecutorService> executor = Optional.empty();
    private BiConsumer<Level, String> logTap = (l, m) -> {};

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
