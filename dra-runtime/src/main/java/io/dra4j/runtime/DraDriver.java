package io.dra4j.runtime;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.health.HealthReporting;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.runtime.claims.ClaimPreparer;
import io.dra4j.runtime.claims.ClaimStats;
import io.dra4j.runtime.claims.RecoveryReport;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.health.HealthHub;
import io.dra4j.runtime.health.HealthView;
import io.dra4j.runtime.kube.KubeClient;
import io.dra4j.runtime.kubelet.KubeletPluginServer;
import io.dra4j.runtime.kubelet.RegistrationStatus;
import io.dra4j.runtime.slices.PublisherStats;
import io.dra4j.runtime.slices.SlicePublisher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A complete node driver around one {@link DeviceProvider}: discovery and enrichment, slice
 * publishing, the extended-resource guard, device health (kubelet stream and taints), the claim
 * preparation pipeline, and the kubelet plugin sockets.
 *
 * <p>Data flows: provider → enrichers → health taints → guard filter → publisher; kubelet → sockets
 * → claim preparer → provider. Everything that changes the published inventory (a rediscovery, a
 * taint added or lifted, a guard decision) funnels through one thread, so publishes are ordered and
 * coalesced.
 *
 * <pre>{@code
 * try (DraDriver driver = DraDriver.builder()
 *     .driverName("gpu.example.com").nodeName(node)
 *     .provider(new MyProvider()).kubeClient(KubeClients.inCluster())
 *     .build().start()) {
 *   driver.awaitTermination();
 * }
 * }</pre>
 */
public final class DraDriver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DraDriver.class);

  private final Builder settings;
  private final Path pluginDirectory;
  private final ScheduledExecutorService inventoryThread;
  private final AtomicBoolean publishQueued = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Object terminated = new Object();

  private ProviderContext context;
  private Optional<HealthHub> health = Optional.empty();
  private ExtendedResourceGuard guard;
  private SlicePublisher publisher;
  private ClaimPreparer preparer;
  private KubeletPluginServer server;
  private volatile List<Pool> discovered = List.of();
  private volatile List<Pool> published = List.of();
  private volatile Optional<String> fatalReason = Optional.empty();
  private volatile boolean guardSynced;
  private int discoveryFailures;

  private DraDriver(Builder b) {
    this.settings = b;
    this.pluginDirectory =
        b.pluginDirectory.orElse(Path.of("/var/lib/kubelet/plugins", b.driverName));
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "dra4j-inventory");
              t.setDaemon(true);
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
    this.inventoryThread = executor;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts everything and registers with the kubelet last, once the prepare path is ready.
   *
   * @throws IOException when a socket, directory or store cannot be set up
   */
  public synchronized DraDriver start() throws Exception {
    Builder b = settings;
    long t0 = System.nanoTime();
    Files.createDirectories(pluginDirectory);
    context =
        ProviderContext.builder(b.driverName, b.nodeName)
            .config(b.config)
            .sysfsRoot(b.sysfsRoot)
            .devRoot(b.devRoot)
            .pluginDataDir(pluginDirectory)
            .inventoryListener(this::inventoryChanged)
            .build();
    for (DeviceEnricher e : b.enrichers) {
      e.init(context);
    }
    if (b.provider instanceof HealthReporting) {
      HealthHub hub =
          HealthHub.builder(b.driverName)
              .taintEffect(b.healthTaintEffect)
              .recoveryDelay(b.healthRecoveryDelay)
              .build();
      hub.addTaintListener(this::requestPublish);
      health = Optional.of(hub);
    }
    guard =
        ExtendedResourceGuard.builder(b.kubeClient, b.driverName, b.nodeName)
            .policy(b.extendedResourcePolicy)
            .fatalHandler(this::fatal)
            .build();
    guard.addChangeListener(this::requestPublish);
    publisher =
        SlicePublisher.builder(b.kubeClient, b.driverName)
            .nodeName(b.nodeName)
            .dynamicTaints(health.isPresent())
            .build();
    preparer =
        ClaimPreparer.builder()
            .driverName(b.driverName)
            .provider(b.provider)
            .kubeClient(b.kubeClient)
            .pluginDataDirectory(pluginDirectory)
            .cdiDirectory(b.cdiDirectory)
            .devRoot(b.devRoot)
            .deviceMetadata(b.deviceMetadata)
            .inventory(this::lookup)
            .build();
    RecoveryReport recovery = preparer.recover();
    LOG.info("driver {} on node {}: claim state recovered: {}", b.driverName, b.nodeName, recovery);
    long tRecovered = System.nanoTime();

    // The SPI promises discover before any prepare, so it runs before the kubelet can call.
    discover();
    long tDiscovered = System.nanoTime();
    if (b.warmUp) {
      Warmup.Result w = Warmup.run();
      LOG.info("prepare path warmed up: {}", w);
    }
    long tWarm = System.nanoTime();
    KubeletPluginServer.Builder sb =
        KubeletPluginServer.builder()
            .driverName(b.driverName)
            .registrarDirectory(b.registrarDirectory)
            .pluginDataDirectory(pluginDirectory)
            .nodeService(preparer)
            .registrationListener(this::registrationChanged);
    b.podUid.ifPresent(sb::rollingUpdate);
    health.ifPresent(sb::healthSource);
    server = sb.build().start();
    long tServing = System.nanoTime();

    // Publishing talks to the API server: it must not delay the kubelet's first call, and the
    // guard must know the DeviceClasses and the Node before anything is published (it waits for
    // them on the inventory thread).
    if (health.isPresent()) {
      ((HealthReporting) b.provider).startHealthMonitoring(health.get());
    }
    guard.start();
    publisher.start();
    inventoryThread.execute(this::awaitGuardThenPublish);
    LOG.info(
        "driver {} on node {} serving {} at {}, registered through {}; started in {} ms"
            + " (recovery {} ms, discovery {} ms, warm-up {} ms, sockets {} ms)",
        b.driverName,
        b.nodeName,
        server.supportedServices(),
        server.draSocket(),
        server.registrationSocket(),
        millis(t0, System.nanoTime()),
        millis(t0, tRecovered),
        millis(tRecovered, tDiscovered),
        millis(tDiscovered, tWarm),
        millis(tWarm, tServing));
    return this;
  }

  private static long millis(long from, long to) {
    return (to - from) / 1_000_000;
  }

  private void awaitGuardThenPublish() {
    try {
      while (!closed.get() && !guard.awaitSynced(Duration.ofSeconds(10))) {
        LOG.info("waiting for the DeviceClasses and node {} before publishing", settings.nodeName);
      }
      guardSynced = true;
      publishNow();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The provider said its devices changed: discover again, then republish. */
  private void inventoryChanged() {
    if (closed.get()) {
      return;
    }
    inventoryThread.execute(
        () -> {
          discover();
          publishNow();
        });
  }

  private void discover() {
    Inventory inventory;
    try {
      inventory = settings.provider.discover(context);
      discoveryFailures = 0;
    } catch (Exception e) {
      // Keep serving what was published before; a transient failure (a GPU driver still
      // loading) must not wipe the node's inventory.
      long delay = Math.min(60, 1L << Math.min(discoveryFailures++, 6));
      LOG.error(
          "discovery by provider {} failed (retrying in {} s): {}",
          settings.provider.name(),
          delay,
          e.toString(),
          e);
      if (!closed.get()) {
        inventoryThread.schedule(this::inventoryChanged, delay, TimeUnit.SECONDS);
      }
      return;
    }
    List<Pool> pools = new ArrayList<>();
    for (Pool pool : inventory.pools()) {
      List<Device> devices = new ArrayList<>(pool.devices().size());
      for (Device d : pool.devices()) {
        devices.add(enrich(pool.name(), d));
      }
      pools.add(pool.withDevices(devices));
    }
    discovered = List.copyOf(pools);
    health.ifPresent(h -> h.setDevices(discovered));
    LOG.info(
        "discovered {} devices in {} pools",
        pools.stream().mapToInt(p -> p.devices().size()).sum(),
        pools.size());
  }

  private Device enrich(String pool, Device device) {
    Device d = device;
    for (DeviceEnricher e : settings.enrichers) {
      try {
        d = e.enrich(pool, d);
      } catch (RuntimeException ex) {
        // One device's enrichment failure never costs the others their attributes.
        LOG.warn(
            "enricher {} failed on device {}/{}: {}",
            e.getClass().getSimpleName(),
            pool,
            device.name(),
            ex.toString());
      }
    }
    return d;
  }

  private void requestPublish() {
    if (closed.get() || !publishQueued.compareAndSet(false, true)) {
      return;
    }
    inventoryThread.execute(
        () -> {
          publishQueued.set(false);
          if (guardSynced) {
            publishNow();
          }
        });
  }

  private void publishNow() {
    if (closed.get()) {
      return;
    }
    List<Pool> pools = discovered;
    guard.setDevices(pools);
    if (health.isPresent()) {
      pools = health.get().applyTaints(pools);
    }
    pools = guard.filter(pools);
    published = pools;
    publisher.publish(pools);
  }

  private Optional<Device> lookup(String pool, String device) {
    for (Pool p : discovered) {
      if (p.name().equals(pool)) {
        for (Device d : p.devices()) {
          if (d.name().equals(device)) {
            return Optional.of(d);
          }
        }
      }
    }
    return Optional.empty();
  }

  private void registrationChanged(RegistrationStatus status) {
    if (!status.registered()) {
      LOG.error(
          "the kubelet rejected driver {}: {} (it retries with backoff)",
          settings.driverName,
          status.error());
    }
  }

  private void fatal(String reason) {
    LOG.error("driver {} stops: {}", settings.driverName, reason);
    fatalReason = Optional.of(reason);
    settings.fatalHandler.accept(reason);
    Thread t = new Thread(this::close, "dra4j-fatal-stop");
    t.setDaemon(true);
    t.start();
  }

  /** Blocks until {@link #close()} ran (a signal, or a fatal guard decision). */
  public void awaitTermination() throws InterruptedException {
    synchronized (terminated) {
      while (!closed.get()) {
        terminated.wait();
      }
    }
  }

  /** Why the driver stopped on its own (the guard's {@code fail} policy), if it did. */
  public Optional<String> fatalReason() {
    return fatalReason;
  }

  /** Whether the kubelet accepted the registration. */
  public Optional<RegistrationStatus> registrationStatus() {
    return server == null ? Optional.empty() : server.registrationStatus();
  }

  /** Ready: serving, registered, and the inventory published at least once. */
  public boolean isReady() {
    return server != null
        && server.isRunning()
        && registrationStatus().map(RegistrationStatus::registered).orElse(false)
        && publisher != null
        && publisher.stats().syncs() > 0;
  }

  /** Alive: the sockets are served. */
  public boolean isAlive() {
    return server != null && server.isRunning() && !closed.get();
  }

  public String driverName() {
    return settings.driverName;
  }

  public String nodeName() {
    return settings.nodeName;
  }

  public Path draSocket() {
    return server.draSocket();
  }

  public Path registrationSocket() {
    return server.registrationSocket();
  }

  public Path pluginDirectory() {
    return pluginDirectory;
  }

  /** What was handed to the publisher last: discovered, enriched, tainted, filtered. */
  public List<Pool> publishedInventory() {
    return published;
  }

  /**
   * Waits until the slice publisher has written the latest inventory.
   *
   * @return false on timeout
   */
  public boolean awaitPublished(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!guardSynced || publishQueued.get()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    // Let the inventory thread hand its latest state to the publisher first.
    java.util.concurrent.CountDownLatch drained = new java.util.concurrent.CountDownLatch(1);
    inventoryThread.execute(drained::countDown);
    if (!drained.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      return false;
    }
    return publisher.awaitIdle(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
  }

  public PublisherStats publisherStats() {
    return publisher.stats();
  }

  public ClaimStats claimStats() {
    return preparer.stats();
  }

  public Optional<HealthView> healthView() {
    return health.map(HealthHub::view);
  }

  public GuardReport guardReport() {
    return guard.report();
  }

  /**
   * Stops: the registration socket goes first (the kubelet stops calling), in-flight calls finish,
   * then the rest. Published slices stay; the kubelet removes them if the driver does not come
   * back.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    LOG.info("driver {} stopping", settings.driverName);
    closeQuietly(server);
    inventoryThread.shutdownNow();
    closeQuietly(guard);
    closeQuietly(publisher);
    health.ifPresent(DraDriver::closeQuietly);
    closeQuietly(preparer);
    closeQuietly(settings.provider);
    synchronized (terminated) {
      terminated.notifyAll();
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("closing {}: {}", c.getClass().getSimpleName(), e.toString());
    }
  }

  /** Builds a {@link DraDriver}; defaults match the Go helper's. */
  public static final class Builder {
    private String driverName;
    private String nodeName;
    private DeviceProvider provider;
    private final List<DeviceEnricher> enrichers = new ArrayList<>();
    private KubeClient kubeClient;
    private Path registrarDirectory = Path.of("/var/lib/kubelet/plugins_registry");
    private Optional<Path> pluginDirectory = Optional.empty();
    private Path cdiDirectory = Path.of("/var/run/cdi");
    private Path sysfsRoot = Path.of("/sys");
    private Path devRoot = Path.of("/dev");
    private final Map<String, String> config = new TreeMap<>();
    private Optional<String> podUid = Optional.empty();
    private TaintEffect healthTaintEffect = TaintEffect.NO_SCHEDULE;
    private Duration healthRecoveryDelay = Duration.ofSeconds(60);
    private ExtendedResourceGuard.Policy extendedResourcePolicy = ExtendedResourceGuard.Policy.WAIT;
    private boolean deviceMetadata;
    private boolean warmUp = true;
    private Consumer<String> fatalHandler = reason -> {};

    private Builder() {}

    public Builder driverName(String value) {
      driverName = value;
      return this;
    }

    public Builder nodeName(String value) {
      nodeName = value;
      return this;
    }

    public Builder provider(DeviceProvider value) {
      provider = value;
      return this;
    }

    public Builder enricher(DeviceEnricher value) {
      enrichers.add(value);
      return this;
    }

    public Builder enrichers(List<DeviceEnricher> values) {
      enrichers.addAll(values);
      return this;
    }

    public Builder kubeClient(KubeClient value) {
      kubeClient = value;
      return this;
    }

    /** Default {@code /var/lib/kubelet/plugins_registry}. */
    public Builder registrarDirectory(Path value) {
      registrarDirectory = value;
      return this;
    }

    /**
     * Default {@code /var/lib/kubelet/plugins/<driver>}; must not be shared with another driver.
     */
    public Builder pluginDirectory(Path value) {
      pluginDirectory = Optional.of(value);
      return this;
    }

    /** Default {@code /var/run/cdi}. */
    public Builder cdiDirectory(Path value) {
      cdiDirectory = value;
      return this;
    }

    /** Where the host's /sys is visible; default {@code /sys}. */
    public Builder sysfsRoot(Path value) {
      sysfsRoot = value;
      return this;
    }

    /** Where the host's /dev is visible (required device nodes are checked here). */
    public Builder devRoot(Path value) {
      devRoot = value;
      return this;
    }

    /** Provider settings. */
    public Builder config(Map<String, String> values) {
      config.putAll(values);
      return this;
    }

    public Builder config(String key, String value) {
      config.put(key, value);
      return this;
    }

    /** Enables seamless rolling updates (per-pod socket names, cross-process serialization). */
    public Builder podUid(String value) {
      podUid = Optional.of(value);
      return this;
    }

    public Builder healthTaintEffect(TaintEffect value) {
      healthTaintEffect = value;
      return this;
    }

    public Builder healthRecoveryDelay(Duration value) {
      healthRecoveryDelay = value;
      return this;
    }

    public Builder extendedResourcePolicy(ExtendedResourceGuard.Policy value) {
      extendedResourcePolicy = value;
      return this;
    }

    public Builder deviceMetadata(boolean value) {
      deviceMetadata = value;
      return this;
    }

    /** Exercise the prepare path on scratch sockets before registering (default on). */
    public Builder warmUp(boolean value) {
      warmUp = value;
      return this;
    }

    /** Called when the driver must stop (the guard's fail policy), before it closes itself. */
    public Builder fatalHandler(Consumer<String> value) {
      fatalHandler = value;
      return this;
    }

    /**
     * Checks the settings.
     *
     * @throws IllegalArgumentException naming the missing setting
     */
    public DraDriver build() {
      require(driverName, "driverName");
      require(nodeName, "nodeName");
      require(provider, "provider");
      require(kubeClient, "kubeClient");
      return new DraDriver(this);
    }

    private static void require(Object value, String name) {
      if (value == null || (value instanceof String s && s.isBlank())) {
        throw new IllegalArgumentException("DraDriver: " + name + " is required");
      }
      Objects.requireNonNull(value);
    }
  }
}
