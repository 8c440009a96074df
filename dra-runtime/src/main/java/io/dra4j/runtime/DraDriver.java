package io.dra4j.runtime;

import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.health.HealthReporting;
import io.dra4j.api.metadata.MetadataUpdating;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.KubeClient;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.errors.MissingSettingException;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.Threads;
import io.dra4j.runtime.internal.claims.ClaimPreparer;
import io.dra4j.runtime.internal.claims.DeviceMetadataStream;
import io.dra4j.runtime.internal.claims.RecoveryReport;
import io.dra4j.runtime.internal.health.HealthHub;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.OtherInstances;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import io.dra4j.runtime.internal.observe.DriverObserver;
import io.dra4j.runtime.internal.observe.DriverObservers;
import io.dra4j.runtime.internal.slices.SlicePublisher;
import io.dra4j.runtime.report.ClaimStats;
import io.dra4j.runtime.report.HealthView;
import io.dra4j.runtime.report.PublisherStats;
import io.dra4j.runtime.report.RegistrationStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A complete node driver around one {@link DeviceProvider}: discovery and enrichment, slice
 * publishing, the extended-resource guard, device health (kubelet stream and taints), the claim
 * preparation pipeline, and the kubelet plugin sockets.
 *
 * <pre>{@code
 * try (HttpKubeClient client = KubeClients.inCluster();
 *     DraDriver driver = DraDriver.builder()
 *         .driverName("gpu.example.com").nodeName(node)
 *         .provider(new MyProvider()).kubeClient(client)
 *         .build()) {
 *   driver.start();
 *   driver.awaitTermination();
 * }
 * }</pre>
 *
 * <p>Data flows: provider → enrichers → health taints → guard filter → publisher; kubelet → sockets
 * → claim preparer → provider.
 *
 * <h2>Lifecycle</h2>
 *
 * {@link Builder#build()} checks the settings and starts nothing; {@link #start()} runs once;
 * {@link #close()} ends it. A closed driver is not started again: build a new one.
 *
 * <p>Start order: recover claim state (interrupted prepares are rolled back), discover, start the
 * guard and the publisher (they talk to the API server on their own threads), warm the prepare path
 * when another instance serves the kubelet meanwhile (a rolling update), then open the kubelet
 * sockets (the kubelet may call at once), then start the provider's health monitoring. Nothing on
 * this path waits for the API server beyond the warm-up's budget, so a slow or unreachable API
 * server never holds up the registration. Close runs the other way: the registration socket goes
 * first, in-flight calls finish, then discovery, the guard, the publisher, the provider and the
 * health hub stop; published slices stay (the kubelet removes them if the driver does not come
 * back).
 *
 * <h2>Threads</h2>
 *
 * Everything that touches the inventory (discovery, a taint added or lifted, a guard decision, a
 * publish) runs on one thread, {@code dra4j-inventory}, so discoveries never overlap and publishes
 * are ordered and coalesced. The guard, the publisher and the health hub have threads of their own;
 * the kubelet's calls arrive on gRPC threads and go to the claim pipeline, which runs them one at a
 * time or in parallel as the provider's {@link DeviceProvider#threadSafe()} says. Every public
 * method may be called from any thread; {@link #close()} also while {@link #start()} runs (a
 * signal).
 *
 * <h2>Idempotency</h2>
 *
 * {@link #start()} a second time, or after {@link #close()}, throws {@link IllegalStateException};
 * {@link #close()} may be called any number of times. A new driver process on the same plugin
 * directory recovers from the checkpoint records: claims prepared in this boot stay prepared, and
 * the slices already on the API server are taken over without rewriting what did not change.
 *
 * <h2>What is retried</h2>
 *
 * Each of these goes on by itself and is reported as a {@linkplain DriverError.Severity#RECOVERABLE
 * recoverable} error to the {@linkplain Builder#errorHandler error handler}:
 *
 * <ul>
 *   <li>a failed discovery: again after 1 s, doubling to 60 s; what was published before stays (an
 *       empty inventory is never published for a failure);
 *   <li>a failed slice write: again after 100 ms, doubling to 30 s, with jitter; an invalid pool is
 *       not published and its slices on the API server stay as they are, until the provider
 *       discovers a valid one;
 *   <li>a registration the kubelet refused: the kubelet retries;
 *   <li>a failed enricher: that device is published without that enricher's attributes.
 * </ul>
 *
 * A failed prepare or unprepare is answered to the kubelet, which retries it; an API server that
 * cannot be reached fails the whole call, so that the kubelet retries it whole. A warm-up that
 * fails is skipped (logged): the driver registers anyway.
 *
 * <h2>What is fatal</h2>
 *
 * <ul>
 *   <li>{@link #start()} throws (a socket, directory or the checkpoint store cannot be set up, the
 *       provider's health monitoring does not start): everything started so far is closed again.
 *   <li>While running, only the extended-resource guard's {@code fail} policy: it reports a
 *       {@linkplain DriverError.Severity#FATAL fatal} error to the error handler, then the driver
 *       closes itself; {@link #fatalReason()} says why and {@link #awaitTermination()} returns.
 * </ul>
 *
 * The driver never exits the JVM; its launcher decides (dra-launcher's {@code run} exits 1).
 *
 * <h2>Defaults</h2>
 *
 * Four settings are required: driver name, node name, provider, API client. Every other setter of
 * the {@link Builder} names its default, the one place a driver's default is stated: a launcher
 * passes on only what its command line gave ({@code dra-launcher}'s {@code DriverSettings}), and
 * the driver hands the resolved {@code Settings} down to its parts.
 */
public final class DraDriver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DraDriver.class);

  private enum State {
    NEW,
    STARTING,
    RUNNING,
    CLOSED
  }

  private final Settings settings;
  private final DriverObserver observer;
  private final Object lifecycle = new Object();
  private final CountDownLatch terminated = new CountDownLatch(1);

  // Written under the lifecycle lock during start, read from any thread.
  private volatile State state = State.NEW;
  private volatile ProviderContext context;
  private volatile Optional<HealthHub> health = Optional.empty();
  private volatile ExtendedResourceGuard guard;
  private volatile SlicePublisher publisher;
  private volatile ClaimPreparer preparer;
  private volatile KubeletPluginServer server;
  private volatile InventoryLoop inventory;

  private volatile Optional<String> fatalReason = Optional.empty();

  private DraDriver(Settings settings) {
    this.settings = settings;
    this.observer = settings.observer;
    observer.bind(new MetricsSource());
  }

  /** A builder; driver name, node name, provider and client are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts everything; returns once the kubelet sockets are open. Publishing continues in the
   * background. On failure everything started so far is closed again.
   *
   * @throws IOException when a socket, directory or store cannot be set up
   * @throws IllegalStateException when the driver was already started or closed
   */
  public DraDriver start() throws IOException, InterruptedException {
    synchronized (lifecycle) {
      if (state != State.NEW) {
        throw new IllegalStateException("driver " + settings.driverName + " is " + state);
      }
      state = State.STARTING;
    }
    try {
      startSteps();
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      LOG.error("driver {} failed to start: {}", settings.driverName, e.toString());
      close();
      throw e;
    }
    synchronized (lifecycle) {
      if (state == State.CLOSED) {
        // Closed (a signal) while starting: close() already undid what existed then.
        throw new IllegalStateException("driver " + settings.driverName + " closed while starting");
      }
      state = State.RUNNING;
    }
    return this;
  }

  private void startSteps() throws IOException, InterruptedException {
    Settings s = settings;
    long t0 = System.nanoTime();
    Warmup.primeCodecsInBackground();
    AtomicFiles.createPrivateDirectory(s.pluginDirectory);
    context =
        ProviderContext.builder(s.driverName, s.nodeName)
            .config(s.config)
            .sysfsRoot(s.sysfsRoot)
            .devRoot(s.devRoot)
            .pluginDataDir(s.pluginDirectory)
            .inventoryListener(this::inventoryChanged)
            .build();
    for (DeviceEnricher e : s.enrichers) {
      e.init(context);
    }
    if (s.provider instanceof HealthReporting) {
      HealthHub hub =
          HealthHub.builder(s.driverName)
              .taintEffect(s.healthTaintEffect)
              .recoveryDelay(s.healthRecoveryDelay)
              .errorHandler(this::report)
              .build();
      hub.addTaintListener(this::requestPublish);
      health = Optional.of(hub);
    }
    guard =
        ExtendedResourceGuard.builder(s.kubeClient, s.driverName, s.nodeName)
            .policy(s.extendedResourcePolicy)
            .errorHandler(this::report)
            .build();
    guard.addChangeListener(this::requestPublish);
    publisher =
        SlicePublisher.builder(s.kubeClient, s.driverName)
            .nodeName(s.nodeName)
            .dynamicTaints(health.isPresent())
            .syncObserver(observer.publisherSyncs())
            .errorHandler(this::report)
            .build();
    inventory =
        new InventoryLoop(
            s, context, health, guard, publisher, this::report, () -> state == State.CLOSED);
    preparer = PreparePath.preparer(s, inventory::lookup, false, observer.claims(), this::report);
    RecoveryReport recovery = preparer.recover();
    LOG.info("driver {} on node {}: claim state recovered: {}", s.driverName, s.nodeName, recovery);
    if (s.provider instanceof MetadataUpdating updating) {
      // Before the kubelet can call: a provider never prepares a claim it could not update.
      updating.useMetadataWriter(preparer::updateRequestMetadata);
    }
    long tRecovered = System.nanoTime();

    // The SPI promises discover before any prepare, so it runs before the kubelet can call; on
    // the inventory thread, like every later discovery, so two never overlap.
    inventory.discover();
    long tDiscovered = System.nanoTime();
    // The API work starts before the warm-up, not after the registration: the guard's first
    // reads, the publisher's first writes and the client's TLS handshake then overlap with the
    // warm-up instead of competing with the kubelet's first prepare. Under the guard's fail
    // policy, a conflict now stops the driver before it ever registers.
    guard.start();
    publisher.start();
    inventory.publishOnceGuardSynced();
    // A warm-up before registering pays off only while another instance serves the kubelet (a
    // rolling update): the old one answers meanwhile, and no call meets this cold JVM. After a
    // crash or on a fresh node the kubelet's calls wait for this registration, and a warm-up
    // would delay it by about a second, then still leave most of the path cold: register at once.
    Optional<Path> serving =
        s.warmUp ? OtherInstances.answering(s.registrarDirectory, s.driverName) : Optional.empty();
    if (serving.isPresent()) {
      LOG.info(
          "driver {}: another instance answers at {}; warming up before registering",
          s.driverName,
          serving.get());
      long warmUpStart = System.nanoTime();
      try {
        LOG.info("prepare path warmed up: {}", Warmup.run(s.kubeClient));
        observer.warmedUp(Duration.ofNanos(System.nanoTime() - warmUpStart));
      } catch (IOException | RuntimeException e) {
        // An optimisation: a driver that cannot warm up still serves, just slower at first.
        LOG.warn("warm-up skipped: {}", e.toString());
      }
    } else if (s.warmUp) {
      LOG.info(
          "driver {}: no other instance answers in {}; registering at once, without a warm-up",
          s.driverName,
          s.registrarDirectory);
    }
    long tWarm = System.nanoTime();
    checkNotClosed();
    KubeletPluginServer.Builder sb =
        PreparePath.server(s, preparer, false, observer.kubeletCalls())
            .registrationListener(this::registrationChanged);
    health.ifPresent(sb::healthSource);
    server = sb.build().start();
    long tServing = System.nanoTime();

    if (health.isPresent()) {
      try {
        ((HealthReporting) s.provider).startHealthMonitoring(health.get());
      } catch (Exception e) {
        throw new IOException("provider " + s.provider.name() + ": health monitoring: " + e, e);
      }
    }
    LOG.info(
        "driver {} on node {} serving {} at {}, registered through {}; started in {} ms"
            + " (recovery {} ms, discovery {} ms, warm-up {} ms, sockets {} ms)",
        s.driverName,
        s.nodeName,
        server.supportedServices(),
        server.draSocket(),
        server.registrationSocket(),
        millis(t0, System.nanoTime()),
        millis(t0, tRecovered),
        millis(tRecovered, tDiscovered),
        millis(tDiscovered, tWarm),
        millis(tWarm, tServing));
  }

  private void checkNotClosed() {
    if (state == State.CLOSED) {
      throw new IllegalStateException("driver " + settings.driverName + " closed while starting");
    }
  }

  private static long millis(long from, long to) {
    return (to - from) / 1_000_000;
  }

  /** The provider said its devices changed (ignored before the loop exists: discovery follows). */
  private void inventoryChanged() {
    InventoryLoop l = inventory;
    if (l != null) {
      l.changed();
    }
  }

  /** The health hub's taints or the guard's decisions changed. */
  private void requestPublish() {
    InventoryLoop l = inventory;
    if (l != null) {
      l.requestPublish();
    }
  }

  private void registrationChanged(RegistrationStatus status) {
    if (!status.registered()) {
      report(
          DriverError.recoverable(
              DriverError.Source.KUBELET,
              "the kubelet rejected driver "
                  + settings.driverName
                  + ": "
                  + status.error()
                  + " (it retries with backoff)"));
    }
  }

  /**
   * The outlet every component of this driver reports to: the vendor's handler hears the error,
   * then a fatal one stops the driver (on a thread of its own: the reporting thread may be one that
   * {@link #close()} waits for).
   */
  private void report(DriverError error) {
    DriverErrorHandler.report(settings.errorHandler, error);
    if (error.isFatal()) {
      LOG.error("driver {} stops: {}", settings.driverName, error.message());
      fatalReason = Optional.of(error.message());
      Threads.daemon(this::close, "dra4j-fatal-stop").start();
    }
  }

  /** Blocks until {@link #close()} has finished (a signal, or a fatal error). */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /**
   * Why the driver stopped on its own (a {@linkplain DriverError.Severity#FATAL fatal} error: the
   * extended-resource guard's {@code fail} policy), if it did.
   */
  public Optional<String> fatalReason() {
    return fatalReason;
  }

  /** What the kubelet last said about the registration; empty before it said anything. */
  public Optional<RegistrationStatus> registrationStatus() {
    KubeletPluginServer s = server;
    return s == null ? Optional.empty() : s.registrationStatus();
  }

  /** Ready: serving, registered, and the inventory published at least once. */
  public boolean isReady() {
    SlicePublisher p = publisher;
    return isAlive()
        && registrationStatus().map(RegistrationStatus::registered).orElse(false)
        && p != null
        && p.stats().syncs() > 0;
  }

  /** Alive: starting, or serving the kubelet sockets. */
  public boolean isAlive() {
    KubeletPluginServer s = server;
    return state == State.STARTING || (state == State.RUNNING && s != null && s.isRunning());
  }

  public String driverName() {
    return settings.driverName;
  }

  public String nodeName() {
    return settings.nodeName;
  }

  /** The DRA service socket; empty until the sockets are open. */
  public Optional<Path> draSocket() {
    return Optional.ofNullable(server).map(KubeletPluginServer::draSocket);
  }

  /** The registration socket; empty until the sockets are open. */
  public Optional<Path> registrationSocket() {
    return Optional.ofNullable(server).map(KubeletPluginServer::registrationSocket);
  }

  /** Where checkpoints, sockets and locks live. */
  public Path pluginDirectory() {
    return settings.pluginDirectory;
  }

  /** What was handed to the publisher last: discovered, enriched, tainted, filtered. */
  public List<Pool> publishedInventory() {
    InventoryLoop l = inventory;
    return l == null ? List.of() : l.published();
  }

  /**
   * Waits until the latest inventory has been handed to the publisher and written.
   *
   * @return false on timeout
   */
  public boolean awaitPublished(Duration timeout) throws InterruptedException {
    InventoryLoop l = inventory;
    return l != null && l.awaitPublished(timeout);
  }

  /** Slice publishing counters; empty before start. */
  public Optional<PublisherStats> publisherStats() {
    return Optional.ofNullable(publisher).map(SlicePublisher::stats);
  }

  /** Claim pipeline counters; empty before start. */
  public Optional<ClaimStats> claimStats() {
    return Optional.ofNullable(preparer).map(ClaimPreparer::stats);
  }

  /** Device health as the hub sees it; empty when the provider reports no health. */
  public Optional<HealthView> healthView() {
    return health.map(HealthHub::view);
  }

  /** The extended-resource guard's decisions; empty before start. */
  public Optional<GuardReport> guardReport() {
    return Optional.ofNullable(guard).map(ExtendedResourceGuard::report);
  }

  /**
   * Stops: the registration socket goes first (the kubelet stops calling), in-flight calls finish,
   * then the rest. Published slices stay; the kubelet removes them if the driver does not come
   * back. Idempotent; safe while {@link #start()} runs on another thread.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
    }
    LOG.info("driver {} stopping", settings.driverName);
    closeQuietly(server);
    // Before the guard and the publisher it feeds; it also stops the binding controller.
    closeQuietly(inventory);
    closeQuietly(guard);
    closeQuietly(publisher);
    // The provider first: its health monitor still reports into the hub until it stops.
    closeQuietly(settings.provider);
    health.ifPresent(DraDriver::closeQuietly);
    terminated.countDown();
  }

  /** What the metrics read at scrape time: this driver's own accessors. */
  private final class MetricsSource implements DriverObserver.Source {
    @Override
    public String driverName() {
      return settings.driverName;
    }

    @Override
    public String nodeName() {
      return settings.nodeName;
    }

    @Override
    public boolean isAlive() {
      return DraDriver.this.isAlive();
    }

    @Override
    public boolean isReady() {
      return DraDriver.this.isReady();
    }

    @Override
    public boolean isRegistered() {
      return registrationStatus().map(RegistrationStatus::registered).orElse(false);
    }

    @Override
    public List<Pool> publishedInventory() {
      return DraDriver.this.publishedInventory();
    }

    @Override
    public int pendingPools() {
      SlicePublisher p = publisher;
      return p == null ? 0 : p.pendingPools();
    }

    @Override
    public Optional<PublisherStats> publisherStats() {
      return DraDriver.this.publisherStats();
    }

    @Override
    public Optional<ClaimStats> claimStats() {
      return DraDriver.this.claimStats();
    }

    @Override
    public Optional<HealthView> healthView() {
      return DraDriver.this.healthView();
    }

    @Override
    public Optional<GuardReport> guardReport() {
      return DraDriver.this.guardReport();
    }
  }

  static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("closing {}: {}", c.getClass().getSimpleName(), e.toString());
    }
  }

  /** The settings, copied when {@link Builder#build()} runs; every default resolved. */
  record Settings(
      String driverName,
      String nodeName,
      DeviceProvider provider,
      List<DeviceEnricher> enrichers,
      KubeClient kubeClient,
      Path registrarDirectory,
      Path pluginDirectory,
      Path cdiDirectory,
      Path sysfsRoot,
      Path devRoot,
      Map<String, String> config,
      Optional<String> podUid,
      TaintEffect healthTaintEffect,
      Duration healthRecoveryDelay,
      ExtendedResourceGuard.Policy extendedResourcePolicy,
      boolean deviceMetadata,
      List<String> deviceMetadataVersions,
      boolean warmUp,
      DriverErrorHandler errorHandler,
      DriverObserver observer) {}

  /**
   * Builds a {@link DraDriver}. Four settings are required (driver name, node name, provider, API
   * client); every other one has a default that follows the kubelet's layout and the Go helper,
   * named on its setter and held by the class that owns the concept.
   */
  public static final class Builder {
    private String driverName;
    private String nodeName;
    private DeviceProvider provider;
    private final List<DeviceEnricher> enrichers = new ArrayList<>();
    private KubeClient kubeClient;
    private Path registrarDirectory = SocketNames.DEFAULT_REGISTRAR_DIRECTORY;
    private Optional<Path> pluginDirectory = Optional.empty();
    private Path cdiDirectory = CdiSpecWriter.DEFAULT_DIRECTORY;
    private Path sysfsRoot = ProviderContext.DEFAULT_SYSFS_ROOT;
    private Path devRoot = ProviderContext.DEFAULT_DEV_ROOT;
    private final Map<String, String> config = new TreeMap<>();
    private Optional<String> podUid = Optional.empty();
    private TaintEffect healthTaintEffect = HealthHub.DEFAULT_TAINT_EFFECT;
    private Duration healthRecoveryDelay = HealthHub.DEFAULT_RECOVERY_DELAY;
    private ExtendedResourceGuard.Policy extendedResourcePolicy =
        ExtendedResourceGuard.DEFAULT_POLICY;
    private boolean deviceMetadata;
    private List<String> deviceMetadataVersions = DeviceMetadataStream.DEFAULT_VERSIONS;
    private boolean warmUp = true;
    private DriverErrorHandler errorHandler = DriverErrorHandler.logging();
    private DriverObserver observer = DriverObserver.NONE;

    static {
      DriverObservers.install((builder, observer) -> builder.observer = observer);
    }

    private Builder() {}

    /** Required: the DRA driver name, a lower-case DNS subdomain such as gpu.example.com. */
    public Builder driverName(String value) {
      driverName = Objects.requireNonNull(value, "driverName");
      return this;
    }

    /** Required: this node's name. */
    public Builder nodeName(String value) {
      nodeName = Objects.requireNonNull(value, "nodeName");
      return this;
    }

    /** Required: the device provider. The driver closes it. */
    public Builder provider(DeviceProvider value) {
      provider = Objects.requireNonNull(value, "provider");
      return this;
    }

    /**
     * Adds attributes to every discovered device (e.g. spi-numa's topology attributes), in the
     * order added. Default: none.
     */
    public Builder enricher(DeviceEnricher value) {
      enrichers.add(Objects.requireNonNull(value, "enricher"));
      return this;
    }

    /** {@link #enricher} for each of {@code values}, in order. */
    public Builder enrichers(List<DeviceEnricher> values) {
      values.forEach(this::enricher);
      return this;
    }

    /** Required: the API client. The driver does not close it. */
    public Builder kubeClient(KubeClient value) {
      kubeClient = Objects.requireNonNull(value, "kubeClient");
      return this;
    }

    /**
     * Where the kubelet looks for registration sockets. Default: {@code
     * /var/lib/kubelet/plugins_registry}.
     */
    public Builder registrarDirectory(Path value) {
      registrarDirectory = Objects.requireNonNull(value, "registrarDirectory");
      return this;
    }

    /**
     * This driver's own directory: sockets, checkpoints, lock file. It must have the same path
     * inside and outside the driver container and must not be shared with another driver. Default:
     * {@code /var/lib/kubelet/plugins/<driver>}.
     */
    public Builder pluginDirectory(Path value) {
      pluginDirectory = Optional.of(Objects.requireNonNull(value, "pluginDirectory"));
      return this;
    }

    /**
     * Where CDI specs are written; the container runtime must read it. Default: {@link
     * CdiSpecWriter#DEFAULT_DIRECTORY} ({@code /var/run/cdi}).
     */
    public Builder cdiDirectory(Path value) {
      cdiDirectory = Objects.requireNonNull(value, "cdiDirectory");
      return this;
    }

    /**
     * Where the host's /sys is visible. Default: {@link ProviderContext#DEFAULT_SYSFS_ROOT} ({@code
     * /sys}).
     */
    public Builder sysfsRoot(Path value) {
      sysfsRoot = Objects.requireNonNull(value, "sysfsRoot");
      return this;
    }

    /**
     * Where the host's /dev is visible (required device nodes are checked here). Default: {@link
     * ProviderContext#DEFAULT_DEV_ROOT} ({@code /dev}).
     */
    public Builder devRoot(Path value) {
      devRoot = Objects.requireNonNull(value, "devRoot");
      return this;
    }

    /** Provider settings, added to those set before. Default: none. */
    public Builder config(Map<String, String> values) {
      config.putAll(values);
      return this;
    }

    /** One provider setting. */
    public Builder config(String key, String value) {
      config.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Enables seamless rolling updates: per-pod socket names, and prepares serialized with the
     * other driver process through the plugin directory's lock file. Needs a 1.33+ kubelet.
     * Default: off.
     */
    public Builder podUid(String value) {
      podUid = Optional.of(Objects.requireNonNull(value, "podUid"));
      return this;
    }

    /**
     * The effect of the taint on an unhealthy device (a provider that reports health). Default:
     * {@code NoSchedule}.
     */
    public Builder healthTaintEffect(TaintEffect value) {
      healthTaintEffect = Objects.requireNonNull(value, "healthTaintEffect");
      return this;
    }

    /** How long a device must stay healthy before its taint is lifted. Default: 60 s. */
    public Builder healthRecoveryDelay(Duration value) {
      healthRecoveryDelay = Objects.requireNonNull(value, "healthRecoveryDelay");
      return this;
    }

    /**
     * What to do when a device plugin on this node still serves an extended resource name that one
     * of this driver's DeviceClasses maps. Default: {@link ExtendedResourceGuard#DEFAULT_POLICY}
     * ({@code wait}).
     */
    public Builder extendedResourcePolicy(ExtendedResourceGuard.Policy value) {
      extendedResourcePolicy = Objects.requireNonNull(value, "extendedResourcePolicy");
      return this;
    }

    /**
     * Writes KEP-5304 device metadata files for prepared claims, in the versions of {@link
     * #deviceMetadataVersions}. Default: off.
     */
    public Builder deviceMetadata(boolean value) {
      deviceMetadata = value;
      return this;
    }

    /**
     * Which versions of {@code metadata.resource.k8s.io} the device metadata files hold, in this
     * order (the Go helper's {@code EnableDeviceMetadata}, k8s.io/dynamic-resource-allocation
     * v0.37.2 {@code kubeletplugin/draplugin.go:661-697}): the latest, {@code
     * metadata.resource.k8s.io/v1beta1}, must be among them; {@code
     * metadata.resource.k8s.io/v1alpha1} after it serves readers of Kubernetes 1.36. Default:
     * {@code metadata.resource.k8s.io/v1beta1} alone. Name them explicitly to keep what a newer
     * dra4j writes by default from changing which readers can read your files.
     *
     * @throws IllegalArgumentException when none is given, one is unknown, or v1beta1 is missing
     */
    public Builder deviceMetadataVersions(List<String> value) {
      deviceMetadataVersions = DeviceMetadataStream.checkVersions(value);
      return this;
    }

    /**
     * Exercise the prepare path on scratch sockets before registering when another instance of the
     * driver is registered and answering, i.e. in a rolling update; otherwise register at once.
     * Default: on.
     */
    public Builder warmUp(boolean value) {
      warmUp = value;
      return this;
    }

    /**
     * Hears every error of the driver's background work, from discovery, the slice publisher, the
     * extended-resource guard, the health hub, the claim pipeline and the kubelet registration (see
     * {@link DriverError.Source}). After a {@linkplain DriverError.Severity#FATAL fatal} one (the
     * guard's {@code fail} policy) the driver closes itself once the handler returns; the driver
     * never exits the JVM, its launcher decides (dra-launcher's {@code run} exits 1). Errors a
     * caller receives (a failed claim goes back to the kubelet, {@link DraDriver#start()} throws)
     * are not reported here. Default: {@link DriverErrorHandler#logging()}.
     */
    public Builder errorHandler(DriverErrorHandler value) {
      errorHandler = Objects.requireNonNull(value, "errorHandler");
      return this;
    }

    /**
     * Checks the settings and copies them.
     *
     * @throws MissingSettingException naming a required setting that was not given
     * @throws IllegalArgumentException naming an invalid setting
     */
    public DraDriver build() {
      return new DraDriver(settings());
    }

    /** The checked settings, every default resolved. */
    Settings settings() {
      require(driverName, "driverName");
      require(nodeName, "nodeName");
      require(provider, "provider");
      require(kubeClient, "kubeClient");
      KubeletPluginServer.checkDriverName(driverName);
      return new Settings(
          driverName,
          nodeName,
          provider,
          List.copyOf(enrichers),
          kubeClient,
          registrarDirectory,
          pluginDirectory.orElse(SocketNames.defaultPluginDataDirectory(driverName)),
          cdiDirectory,
          sysfsRoot,
          devRoot,
          Map.copyOf(config),
          podUid,
          healthTaintEffect,
          healthRecoveryDelay,
          extendedResourcePolicy,
          deviceMetadata,
          deviceMetadataVersions,
          warmUp,
          errorHandler,
          observer);
    }

    private static void require(Object value, String name) {
      MissingSettingException.require(value, "DraDriver", name);
    }
  }
}
