package io.dra4j.runtime.internal.health;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthSink;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.api.provider.Pool;
import io.dra4j.kube.KubeNames;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.internal.Threads;
import io.dra4j.runtime.internal.kubelet.HealthProto;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import io.dra4j.runtime.internal.kubelet.HealthSource;
import io.dra4j.runtime.report.HealthView;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's health hub: takes the provider's health reports ({@link HealthSink}), feeds the
 * kubelet's health streams ({@link HealthSource}) and taints unhealthy devices in the driver's
 * pools ({@link #applyTaints}), lifting a taint only after the device stayed healthy for the
 * recovery delay.
 *
 * <p>How the driver composes it:
 *
 * <pre>{@code
 * HealthHub hub = HealthHub.builder("gpu.example.com").build();
 * server = KubeletPluginServer.builder()...healthSource(hub).start();
 * hub.addTaintListener(driver::republish);          // a taint was added or lifted
 * provider.startHealthMonitoring(hub);              // the provider reports into the hub
 * // on every publish:
 * hub.setDevices(pools);                            // the stream's device list
 * publisher.publish(guard.filter(hub.applyTaints(pools)));
 * }</pre>
 *
 * <h2>Kubelet stream</h2>
 *
 * As the Go helper ({@code k8s.io/dynamic-resource-allocation@v0.37.2/kubeletplugin/health.go}):
 * each report of the provider goes to every open stream as it is, naming exactly its devices, with
 * the provider's last-updated time and health check timeout, messages cut to the kubelet's 1024
 * bytes. The hub never repeats a report: a device the provider stops reporting shows as unknown at
 * the kubelet once its timeout passed ({@code
 * k8s.io/kubernetes@v1.37.2/pkg/kubelet/cm/dra/healthinfo.go:137-169}), so a monitor that hangs is
 * seen. A new stream (the kubelet restarted or reconnected) starts with the devices whose last
 * report is still within its timeout, each with the rest of its timeout ({@link
 * HealthLedger#replay}), since the provider is not asked again per stream as a Go driver is. When
 * no report came within the smallest timeout of the last one, the error handler is told once, as
 * the Go helper's staleness check does ({@code health.go:137-169}).
 *
 * <h2>Taints</h2>
 *
 * A device reported UNHEALTHY gets the taint {@code <taintKey>=<reason>:<effect>} at once (the
 * reason turned into a valid label value, possibly empty). When it is reported HEALTHY the recovery
 * starts; a new UNHEALTHY report during the recovery restarts it later, so a flapping device stays
 * tainted; an UNKNOWN report pauses it (nobody knows the device recovered). The taint is lifted
 * exactly {@link Builder#recoveryDelay} after the first healthy report of an unbroken healthy run,
 * and {@link #addTaintListener taint listeners} are told. UNKNOWN alone never taints. The taint's
 * {@code timeAdded} is the time of the first unhealthy report, so republishing never resets the
 * tolerationSeconds clock of NoExecute.
 *
 * <p>Thread-safe. Stream subscribers are called with the hub's lock held (so snapshots arrive in
 * order) and must not block, as the {@link HealthSource} contract says; taint listeners are called
 * without it, from the reporting thread or the hub's timer.
 */
public final class HealthHub implements HealthSink, HealthSource, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HealthHub.class);

  /** Default name part of the taint key: {@code <driver>/unhealthy}. */
  public static final String DEFAULT_TAINT_NAME = "unhealthy";

  /** Default effect of the taint on an unhealthy device: new claims keep off it. */
  public static final TaintEffect DEFAULT_TAINT_EFFECT = TaintEffect.NO_SCHEDULE;

  /** Default time a device must stay healthy before its taint is lifted. */
  public static final Duration DEFAULT_RECOVERY_DELAY = Duration.ofSeconds(60);

  /** The API's limit of taints per device (Kubernetes 1.35+). */
  static final int MAX_TAINTS_PER_DEVICE = 16;

  private final String driverName;
  private final String taintKey;
  private final TaintEffect taintEffect;
  private final Duration recoveryDelay;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private final boolean ownsExecutor;
  private final DriverErrorHandler errorHandler;

  private final Object lock = new Object();
  private final HealthLedger ledger; // guarded by lock
  private ScheduledFuture<?> staleCheck; // guarded by lock
  private Instant lastReport; // guarded by lock
  private ScheduledFuture<?> liftTimer; // guarded by lock
  private Instant liftTimerAt; // guarded by lock
  private final Set<HealthLedger.Key> warnedFull = new HashSet<>(); // guarded by lock
  private boolean closed; // guarded by lock

  private final CopyOnWriteArrayList<Consumer<HealthSnapshot>> subscribers =
      new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Runnable> taintListeners = new CopyOnWriteArrayList<>();

  private HealthHub(Builder b) {
    this.driverName = b.driverName;
    this.taintKey = b.taintKey.orElseGet(() -> defaultTaintKey(b.driverName));
    this.taintEffect = b.taintEffect;
    this.recoveryDelay = b.recoveryDelay;
    this.clock = b.clock;
    this.ownsExecutor = b.executor.isEmpty();
    this.errorHandler = b.errorHandler;
    this.executor = b.executor.orElseGet(() -> Threads.single("dra4j-health-" + driverName));
    this.ledger = new HealthLedger(recoveryDelay);
    synchronized (lock) {
      // The provider's first report is due within the kubelet's default timeout, as the Go helper
      // counts from the stream's start (health.go:139-140).
      lastReport = clock.instant();
      armStaleCheck(DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT);
    }
    LOG.info(
        "driver={}: health hub: taint {}:{} (recovery after {} healthy)",
        driverName,
        taintKey,
        taintEffect.apiName(),
        recoveryDelay);
  }

  /** A builder for the hub of {@code driverName}. */
  public static Builder builder(String driverName) {
    return new Builder(driverName);
  }

  /** {@code <driver in lower case>/unhealthy}: taint key prefixes must be lower case. */
  static String defaultTaintKey(String driverName) {
    return driverName.toLowerCase(Locale.ROOT) + "/" + DEFAULT_TAINT_NAME;
  }

  /** The key of the health taint. */
  public String taintKey() {
    return taintKey;
  }

  /** The effect of the health taint. */
  public TaintEffect taintEffect() {
    return taintEffect;
  }

  /**
   * Sets the driver's full device list (for the taints and the view; the kubelet stream carries
   * what the provider reports). Devices that are no longer in the list vanish (with their health
   * and taint); a device that comes back starts UNKNOWN and untainted.
   */
  public void setDevices(List<Pool> pools) {
    List<HealthLedger.Key> keys = new ArrayList<>();
    for (Pool p : pools) {
      for (Device d : p.devices()) {
        keys.add(new HealthLedger.Key(p.name(), d.name()));
      }
    }
    synchronized (lock) {
      if (closed) {
        return;
      }
      ledger.setDevices(keys);
      warnedFull.retainAll(new HashSet<>(keys));
    }
  }

  /**
   * Records the provider's reports and sends them to the kubelet's streams; devices not named keep
   * their last health. A device reported UNHEALTHY is tainted at once and taint listeners are told
   * before this method returns.
   */
  @Override
  public void report(List<DeviceHealth> health) {
    Objects.requireNonNull(health, "health");
    HealthLedger.Change change;
    synchronized (lock) {
      if (closed || health.isEmpty()) {
        return;
      }
      Instant now = clock.instant();
      for (DeviceHealth h : health) {
        log(h, ledger.isNews(h), ledger.statusOf(h.pool(), h.device()));
      }
      change = ledger.report(health, now);
      deliver(HealthLedger.message(health, now));
      scheduleLift(now);
      lastReport = now;
      armStaleCheck(
          health.stream()
              .map(DeviceHealth::effectiveHealthCheckTimeout)
              .min(Duration::compareTo)
              .orElseThrow());
    }
    if (change.overlay()) {
      notifyTaintListeners();
    }
  }

  /**
   * Delivers the devices whose last report is still within its timeout at once ({@link
   * HealthLedger#replay}), then every report, until the subscription is closed.
   */
  @Override
  public Subscription subscribe(Consumer<HealthSnapshot> listener) {
    Objects.requireNonNull(listener, "listener");
    synchronized (lock) {
      subscribers.add(listener);
      HealthSnapshot fresh = ledger.replay(clock.instant());
      if (!fresh.devices().isEmpty()) {
        listener.accept(fresh);
      }
    }
    return () -> subscribers.remove(listener);
  }

  /**
   * The pools with the health taint added to every device that is unhealthy or not yet recovered.
   * Pure with respect to its input: devices that need no taint (and pools without such devices) are
   * returned as they are. A device that already carries a taint with the same key and effect (the
   * provider set it) gets no second one; a device that already has 16 taints (the API limit) gets
   * none, with a warning logged once.
   */
  public List<Pool> applyTaints(List<Pool> pools) {
    Map<HealthLedger.Key, HealthLedger.Taint> taints;
    synchronized (lock) {
      taints = ledger.taints();
    }
    if (taints.isEmpty()) {
      return List.copyOf(pools);
    }
    List<Pool> out = new ArrayList<>(pools.size());
    for (Pool pool : pools) {
      List<Device> devices = null;
      for (int i = 0; i < pool.devices().size(); i++) {
        Device d = pool.devices().get(i);
        HealthLedger.Key key = new HealthLedger.Key(pool.name(), d.name());
        HealthLedger.Taint t = taints.get(key);
        Device tainted = t == null ? d : taint(key, d, t);
        if (tainted != d) {
          if (devices == null) {
            devices = new ArrayList<>(pool.devices());
          }
          devices.set(i, tainted);
        }
      }
      out.add(devices == null ? pool : pool.withDevices(devices));
    }
    return List.copyOf(out);
  }

  private Device taint(HealthLedger.Key key, Device d, HealthLedger.Taint t) {
    for (DeviceTaint existing : d.taints()) {
      if (existing.key().equals(taintKey) && existing.effect() == taintEffect) {
        return d;
      }
    }
    if (d.taints().size() >= MAX_TAINTS_PER_DEVICE) {
      boolean first;
      synchronized (lock) {
        first = warnedFull.add(key);
      }
      if (first) {
        reportError(
            "driver="
                + driverName
                + " device "
                + key
                + ": unhealthy, but it already has "
                + d.taints().size()
                + " taints (the API limit is "
                + MAX_TAINTS_PER_DEVICE
                + "): the health taint "
                + taintKey
                + " is not added",
            Optional.empty());
      }
      return d;
    }
    DeviceTaint health =
        DeviceTaint.of(taintKey, t.value(), taintEffect)
            .withTimeAdded(
                DateTimeFormatter.ISO_INSTANT.format(t.since().truncatedTo(ChronoUnit.SECONDS)));
    return d.toBuilder().taint(health).build();
  }

  /**
   * Calls {@code listener} whenever the taint overlay changes: a device was tainted, its taint's
   * value changed, or a taint was lifted after the recovery delay. The driver then republishes
   * (with {@link #applyTaints}). Called without the hub's lock; must not throw.
   */
  public void addTaintListener(Runnable listener) {
    taintListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** What the hub knows now, per device. */
  public HealthView view() {
    synchronized (lock) {
      return new HealthView(taintKey, taintEffect, recoveryDelay, ledger.view(clock.instant()));
    }
  }

  /**
   * Stops lifting and the staleness check. Open subscriptions stay (the kubelet server ends its
   * streams itself) but get nothing more; reports are ignored. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (staleCheck != null) {
        staleCheck.cancel(false);
      }
      if (liftTimer != null) {
        liftTimer.cancel(false);
      }
    }
    if (ownsExecutor) {
      executor.shutdownNow();
    }
  }

  // ------------------------------------------------------------------------------------------

  /** (Re)starts the staleness check: due {@code timeout} after the last report. Lock held. */
  private void armStaleCheck(Duration timeout) {
    if (staleCheck != null) {
      staleCheck.cancel(false);
    }
    Instant of = lastReport;
    staleCheck =
        executor.schedule(() -> checkStale(of, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Tells the error handler once that the provider let its reports go stale, when no report came
   * since {@code of}: the kubelet shows the devices as unknown now. Nothing is sent: re-reporting
   * is the provider's job.
   */
  private void checkStale(Instant of, Duration timeout) {
    synchronized (lock) {
      if (closed || !of.equals(lastReport)) {
        return;
      }
    }
    reportError(
        "driver="
            + driverName
            + ": no device health report for "
            + timeout.toSeconds()
            + " s, the smallest health check timeout of the last report: the kubelet now shows"
            + " those devices' health as unknown. The provider must report every device again"
            + " within its timeout (HealthSink), even when nothing changed",
        Optional.empty());
  }

  /** Called with the lock held. */
  private void deliver(HealthSnapshot snapshot) {
    for (Consumer<HealthSnapshot> s : subscribers) {
      try {
        s.accept(snapshot);
      } catch (RuntimeException e) {
        reportError("driver=" + driverName + ": a health subscriber failed: " + e, Optional.of(e));
      }
    }
  }

  /** Keeps one timer at the earliest pending recovery; called with the lock held. */
  private void scheduleLift(Instant now) {
    Optional<Instant> next = ledger.nextLift();
    if (next.isPresent() && next.get().equals(liftTimerAt)) {
      return;
    }
    if (liftTimer != null) {
      liftTimer.cancel(false);
      liftTimer = null;
      liftTimerAt = null;
    }
    if (next.isEmpty() || closed) {
      return;
    }
    // A timer may fire a little before the clock reaches the instant: liftDue() then finds nothing
    // due and this reschedules for the rest.
    long nanos = Math.max(1, Duration.between(now, next.get()).toNanos());
    liftTimerAt = next.get();
    liftTimer = executor.schedule(this::liftDue, nanos, TimeUnit.NANOSECONDS);
  }

  private void liftDue() {
    HealthLedger.Change change;
    synchronized (lock) {
      if (closed) {
        return;
      }
      liftTimer = null;
      liftTimerAt = null;
      Instant now = clock.instant();
      change = ledger.liftDue(now);
      scheduleLift(now);
      if (change.overlay()) {
        LOG.info("driver={}: health taint lifted after {} healthy", driverName, recoveryDelay);
      }
    }
    if (change.overlay()) {
      notifyTaintListeners();
    }
  }

  private void notifyTaintListeners() {
    for (Runnable l : taintListeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        reportError("driver=" + driverName + ": a taint listener failed: " + e, Optional.of(e));
      }
    }
  }

  private void reportError(String message, Optional<Throwable> cause) {
    DriverErrorHandler.report(
        errorHandler,
        new DriverError(
            DriverError.Source.HEALTH, DriverError.Severity.RECOVERABLE, message, cause));
  }

  /** Changes at info or warn; repeats of the same state (providers may repeat) at debug. */
  private void log(DeviceHealth h, boolean news, HealthStatus before) {
    if (!news || (h.status() == HealthStatus.HEALTHY && before == HealthStatus.UNKNOWN)) {
      LOG.debug(
          "driver={} device {}/{}: still {} {}",
          driverName,
          h.pool(),
          h.device(),
          h.status(),
          h.reason());
      return;
    }
    switch (h.status()) {
      case UNHEALTHY ->
          LOG.warn(
              "driver={} device {}/{}: unhealthy ({}): {}",
              driverName,
              h.pool(),
              h.device(),
              h.reason(),
              HealthProto.truncate(h.message()));
      case HEALTHY ->
          LOG.info("driver={} device {}/{}: healthy again", driverName, h.pool(), h.device());
      case UNKNOWN ->
          LOG.info(
              "driver={} device {}/{}: health unknown {}",
              driverName,
              h.pool(),
              h.device(),
              HealthProto.truncate(h.message()));
    }
  }

  /** Builds a {@link HealthHub}. */
  public static final class Builder {
    private final String driverName;
    private Optional<String> taintKey = Optional.empty();
    private TaintEffect taintEffect = DEFAULT_TAINT_EFFECT;
    private Duration recoveryDelay = DEFAULT_RECOVERY_DELAY;
    private Clock clock = Clock.systemUTC();
    private Optional<ScheduledExecutorService> executor = Optional.empty();
    private DriverErrorHandler errorHandler = DriverErrorHandler.logging();

    private Builder(String driverName) {
      this.driverName = Objects.requireNonNull(driverName, "driverName");
      if (driverName.isEmpty()) {
        throw new IllegalArgumentException("HealthHub: driverName must not be empty");
      }
    }

    /**
     * The taint key, label-name syntax (optional lower-case DNS prefix of at most 253 characters,
     * '/', a name of at most 63); not in a kubernetes.io domain. Default {@code
     * <driver>/unhealthy}.
     */
    public Builder taintKey(String value) {
      taintKey = Optional.of(Objects.requireNonNull(value, "taintKey"));
      return this;
    }

    /**
     * The taint's effect: {@code NoSchedule} (the default) keeps new claims off a sick device,
     * {@code NoExecute} also evicts the pods using it, {@code None} is a dry run that only shows
     * the taint (Kubernetes 1.35+).
     */
    public Builder taintEffect(TaintEffect value) {
      taintEffect = Objects.requireNonNull(value, "taintEffect");
      return this;
    }

    /**
     * How long a device must stay healthy before its taint is lifted (flap suppression); default 60
     * s, zero lifts at the first healthy report.
     */
    public Builder recoveryDelay(Duration value) {
      recoveryDelay = Objects.requireNonNull(value, "recoveryDelay");
      return this;
    }

    /** The clock for report times and recovery (tests use a manual one). */
    public Builder clock(Clock value) {
      clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Where the staleness check and recovery timers run; default a daemon thread of the hub's own.
     * A supplied executor is not shut down by {@link HealthHub#close()}. Tests pass one driven by a
     * manual clock.
     */
    public Builder executor(ScheduledExecutorService value) {
      executor = Optional.of(Objects.requireNonNull(value, "executor"));
      return this;
    }

    /**
     * Where a failed subscriber or taint listener, a device whose health taint does not fit (16
     * taints already) and reports gone stale go, all {@linkplain DriverError.Severity#RECOVERABLE
     * recoverable}. Default: {@link DriverErrorHandler#logging()}.
     */
    public Builder errorHandler(DriverErrorHandler value) {
      errorHandler = Objects.requireNonNull(value, "errorHandler");
      return this;
    }

    /**
     * Builds the hub and starts its staleness check.
     *
     * @throws IllegalArgumentException naming the setting and the rule it breaks
     */
    public HealthHub build() {
      String key = taintKey.orElseGet(() -> defaultTaintKey(driverName));
      List<String> problems = KubeNames.qualifiedName(key);
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(
            "HealthHub taintKey \""
                + key
                + "\""
                + (taintKey.isEmpty() ? " (the default, from the driver name)" : "")
                + " is not a valid label name: "
                + String.join("; ", problems)
                + (taintKey.isEmpty() ? "; set taintKey explicitly" : ""));
      }
      if (KubeNames.isKubernetesDomain(KubeNames.domainOf(key))) {
        throw new IllegalArgumentException(
            "HealthHub taintKey \""
                + key
                + "\": the kubernetes.io domains are reserved for Kubernetes; use the driver's own"
                + " domain");
      }
      if (recoveryDelay.isNegative()) {
        throw new IllegalArgumentException(
            "HealthHub recoveryDelay must not be negative, got " + recoveryDelay);
      }
      return new HealthHub(this);
    }
  }
}
