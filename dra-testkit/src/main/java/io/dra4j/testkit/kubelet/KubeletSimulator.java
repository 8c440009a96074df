package io.dra4j.testkit.kubelet;

import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.proto.pluginregistration.InfoRequest;
import io.dra4j.proto.pluginregistration.PluginInfo;
import io.dra4j.proto.pluginregistration.RegistrationGrpc;
import io.dra4j.proto.pluginregistration.RegistrationStatus;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the kubelet for DRA drivers: watches a registration directory and registers every plugin
 * socket in it the way the kubelet's plugin manager and DRA handler do, then lets tests (or a
 * person, through {@link #main}) call the plugin.
 *
 * <p>Per socket (recursively, skipping names that start with '.', ignoring everything that is not a
 * socket): {@code GetInfo} with a 1 s deadline; checks type {@code DRAPlugin}, a name, and picks
 * the first entry of {@code supported_versions} that the kubelet supports ({@code v1.DRAPlugin},
 * {@code v1beta1.DRAPlugin}); prefers {@code v1.DRAResourceHealth} over {@code
 * v1alpha1.DRAResourceHealth}; sends {@code NotifyRegistrationStatus} (true, or false with the
 * reason) with a 5 s deadline; dials the endpoint at once. A socket that disappears, or is
 * re-created (new inode), deregisters that instance.
 *
 * <p>Differences from the kubelet, all deliberate: the directory is polled (default every 100 ms)
 * instead of watched with inotify, which is simpler, recursive by nature, sees a socket re-created
 * between two polls as a new inode, and works on file systems where inotify misses events (overlay,
 * bind mounts); failed calls are retried with a shorter backoff (100 ms doubling to 5 s, the
 * kubelet uses 500 ms to about 2 min); a relative endpoint is rejected (the kubelet would dial it
 * relative to its own working directory); a rejected plugin is not retried until its socket is
 * re-created; the rejection reasons are worded by the simulator.
 *
 * <p>The e2e tests {@code RealKubelet*IT} run the same stories against the real kubelet's plugin
 * manager and DRA manager (v1.37.2). What they showed is here too: {@link #plugin} picks the newest
 * connected instance; {@link #wipeSlices} deletes the node's ResourceSlices as the kubelet does at
 * its start and 30 s after a driver's last instance de-registered; {@link #draManager} prepares and
 * unprepares whole pods with the kubelet's checks, sharing and restart behaviour; a {@link
 * HealthWatch} keeps the DRA manager's health cache ({@link KubeletHealthCache}: a device's report
 * trusted for its timeout from receipt, cleared when the stream ends). Still different, on purpose:
 * the kubelet also wipes a driver's slices 30 s after the connection to its last instance broke
 * while the registration socket stays (a driver killed with SIGKILL), where the simulator waits for
 * the socket to go; and the kubelet opens every registered plugin's health stream itself (reopening
 * it every 5 s), where the simulator opens one when a test calls {@link
 * PluginInstance#watchHealth()}.
 *
 * <p>From JUnit: {@code try (KubeletSimulator kubelet = KubeletSimulator.start(registryDir)) {
 * PluginInstance p = kubelet.awaitPlugin("gpu.example.com", Duration.ofSeconds(10));
 * p.prepare(claims); }}. From a shell (run it without arguments for help):
 *
 * <pre>
 * ./mvnw -q -pl dra-testkit -am package -DskipTests \
 *     dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime
 * java -cp dra-testkit/target/classes:$(cat dra-testkit/target/classpath.txt) \
 *     io.dra4j.testkit.kubelet.KubeletSimulator watch --registry /var/lib/kubelet/plugins_registry
 * </pre>
 *
 * Other commands: {@code list}, {@code prepare --driver NAME NS/NAME/UID...}, {@code unprepare
 * ...}, {@code health --driver NAME}.
 */
public final class KubeletSimulator implements AutoCloseable {

  /** The kubelet's {@code servicesSupportedByKubelet} (1.34+), in its order. */
  public static final List<String> SERVICES_SUPPORTED_BY_KUBELET =
      List.of(DraVersion.V1.service(), DraVersion.V1BETA1.service());

  /** The kubelet's GetInfo deadline. */
  public static final Duration GET_INFO_TIMEOUT = Duration.ofSeconds(1);

  /** The kubelet's NotifyRegistrationStatus deadline. */
  public static final Duration NOTIFY_TIMEOUT = Duration.ofSeconds(5);

  /**
   * The kubelet's {@code defaultWipingDelay}: how long a driver may have no instance before the
   * kubelet deletes the node's ResourceSlices of that driver.
   */
  public static final Duration WIPING_DELAY = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(KubeletSimulator.class);
  private static final Duration FIRST_RETRY = Duration.ofMillis(100);
  private static final Duration MAX_RETRY = Duration.ofSeconds(5);

  private final Path registryDirectory;
  private final ScheduledExecutorService poller;
  private final EventLoopGroup group;
  private final Map<Path, Tracked> tracked = new HashMap<>(); // poller thread only
  private final List<PluginInstance> registered = new ArrayList<>(); // guarded by this
  private final List<SimulatorEvent> events = new ArrayList<>(); // guarded by this
  private final List<Consumer<SimulatorEvent>> listeners = new CopyOnWriteArrayList<>();
  private volatile ContainerRuntime runtime = (driver, results) -> {};
  private boolean closed; // guarded by this
  private SliceWiper wiper; // guarded by this; null: slices are left alone
  private final Map<String, ScheduledFuture<?>> pendingWipes = new HashMap<>(); // guarded by this

  private record SliceWiper(KubeClient client, String nodeName, Duration delay) {}

  private KubeletSimulator(Path registryDirectory) {
    if (!Epoll.isAvailable()) {
      throw new IllegalStateException(
          "the kubelet simulator needs Netty's native epoll transport: "
              + Epoll.unavailabilityCause(),
          Epoll.unavailabilityCause());
    }
    this.registryDirectory = registryDirectory.toAbsolutePath().normalize();
    this.poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kubelet-simulator");
              t.setDaemon(true);
              return t;
            });
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("kubelet-simulator-io", true), EpollIoHandler.newFactory());
  }

  /** Starts watching {@code registryDirectory}, polling every 100 ms. */
  public static KubeletSimulator start(Path registryDirectory) {
    return start(registryDirectory, Duration.ofMillis(100));
  }

  /** Starts watching {@code registryDirectory}, polling every {@code pollInterval}. */
  public static KubeletSimulator start(Path registryDirectory, Duration pollInterval) {
    KubeletSimulator simulator = new KubeletSimulator(registryDirectory);
    simulator.poller.scheduleWithFixedDelay(
        simulator::poll, 0, Math.max(1, pollInterval.toMillis()), TimeUnit.MILLISECONDS);
    return simulator;
  }

  /** The watched directory. */
  public Path registryDirectory() {
    return registryDirectory;
  }

  /** Registered instances, oldest first. */
  public synchronized List<PluginInstance> plugins() {
    return List.copyOf(registered);
  }

  /**
   * The instance of {@code driverName} the kubelet would call: the newest connected one, else the
   * newest (during a rolling update the newest may not be connected yet).
   */
  public synchronized Optional<PluginInstance> plugin(String driverName) {
    PluginInstance newest = null;
    for (int i = registered.size() - 1; i >= 0; i--) {
      PluginInstance p = registered.get(i);
      if (p.driverName().equals(driverName)) {
        if (p.isConnected()) {
          return Optional.of(p);
        }
        newest = newest == null ? p : newest;
      }
    }
    return Optional.ofNullable(newest);
  }

  /**
   * Treats the ResourceSlices of {@code nodeName} as that node's kubelet does: deletes all of them
   * now, as a starting kubelet does before any driver registered, and from then on deletes a
   * driver's slices {@code delay} after its last instance de-registered (the kubelet's delay is
   * {@link #WIPING_DELAY}), unless an instance of it registers meanwhile. Each wipe is a {@link
   * SimulatorEvent.Kind#SLICES_WIPED} event. Off by default: the simulator then leaves slices
   * alone.
   */
  public KubeletSimulator wipeSlices(KubeClient client, String nodeName, Duration delay) {
    synchronized (this) {
      wiper =
          new SliceWiper(
              Objects.requireNonNull(client, "client"),
              Objects.requireNonNull(nodeName, "nodeName"),
              Objects.requireNonNull(delay, "delay"));
    }
    poller.execute(() -> wipe(""));
    return this;
  }

  /**
   * The kubelet's DRA manager on top of this simulator: prepares and unprepares whole pods, reading
   * their claims through {@code client}, with the kubelet's checks and bookkeeping.
   */
  public DraManager draManager(KubeClient client) {
    return draManager(client, false);
  }

  /**
   * {@link #draManager(KubeClient)} with the kubelet's feature gate {@code
   * DRAWorkloadResourceClaims} (beta, off by default in 1.37) as given: on, a pod may use a claim
   * reserved for its PodGroup.
   */
  public DraManager draManager(KubeClient client, boolean workloadResourceClaims) {
    return new DraManager(this, Objects.requireNonNull(client, "client"), workloadResourceClaims);
  }

  /** Everything that happened so far, oldest first. */
  public synchronized List<SimulatorEvent> events() {
    return List.copyOf(events);
  }

  /**
   * Calls {@code listener} with every event so far, then with each new one, in order and exactly
   * once. Runs on the simulator's thread while it holds its lock: keep it short.
   */
  public synchronized void addListener(Consumer<SimulatorEvent> listener) {
    events.forEach(listener);
    listeners.add(listener);
  }

  /**
   * What the kubelet does next with a prepared claim: it hands the CDI device ids to the container
   * runtime, which loads the CDI specs and injects them. A test plugs in a runtime stand-in (for
   * example the reference CDI library) to check every successful NodePrepareResources the way a
   * node would; an exception it throws fails that prepare call.
   */
  @FunctionalInterface
  public interface ContainerRuntime {
    /** Called with the claims that prepared without error, by claim UID. */
    void devicesPrepared(String driverName, Map<String, ClaimResult> prepared) throws Exception;
  }

  /** Sets the container runtime stand-in for all plugins (default: accepts everything). */
  public void containerRuntime(ContainerRuntime value) {
    this.runtime = Objects.requireNonNull(value, "containerRuntime");
  }

  /**
   * Waits until {@code driverName} is registered and returns its newest instance.
   *
   * @throws IllegalStateException on timeout, listing what happened meanwhile
   */
  public PluginInstance awaitPlugin(String driverName, Duration timeout)
      throws InterruptedException {
    return await(() -> plugin(driverName), timeout, "no plugin for driver " + driverName);
  }

  /** Waits until the plugin behind {@code registrationSocket} is registered. */
  public PluginInstance awaitPluginAt(Path registrationSocket, Duration timeout)
      throws InterruptedException {
    Path socket = registrationSocket.toAbsolutePath().normalize();
    return await(
        () -> {
          synchronized (this) {
            return registered.stream()
                .filter(p -> p.registrationSocket().equals(socket))
                .findFirst();
          }
        },
        timeout,
        "no plugin registered at " + socket);
  }

  /** Waits for the first event (past or future) that matches. */
  public SimulatorEvent awaitEvent(Predicate<SimulatorEvent> matches, Duration timeout)
      throws InterruptedException {
    return await(
        () -> {
          synchronized (this) {
            return events.stream().filter(matches).findFirst();
          }
        },
        timeout,
        "no matching event");
  }

  private synchronized <T> T await(
      java.util.function.Supplier<Optional<T>> condition, Duration timeout, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<T> value = condition.get();
      if (value.isPresent()) {
        return value.get();
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || closed) {
        throw new IllegalStateException(
            what + " within " + timeout + " in " + registryDirectory + "; events: " + events);
      }
      wait(Math.max(1, Math.min(left / 1_000_000, 100)));
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      notifyAll();
    }
    poller.shutdownNow();
    try {
      poller.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      registered.forEach(PluginInstance::shutdown);
      registered.clear();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
  }

  // ---- the reconciler (poller thread) ----

  private enum State {
    PENDING,
    REGISTERED,
    REJECTED
  }

  private static final class Tracked {
    final Path path;
    final Object fileKey;
    State state = State.PENDING;
    PluginInstance instance;
    long nextAttempt = System.nanoTime();
    Duration backoff = FIRST_RETRY;

    Tracked(Path path, Object fileKey) {
      this.path = path;
      this.fileKey = fileKey;
    }

    void retryLater() {
      nextAttempt = System.nanoTime() + backoff.toNanos();
      backoff =
          backoff.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : backoff.multipliedBy(2);
    }
  }

  private void poll() {
    try {
      Map<Path, Object> sockets = scan();
      for (Iterator<Tracked> it = tracked.values().iterator(); it.hasNext(); ) {
        Tracked t = it.next();
        Object key = sockets.get(t.path);
        if (key == null || !key.equals(t.fileKey)) {
          it.remove();
          if (t.instance != null) {
            deregister(t, key == null ? "socket removed" : "socket re-created");
          }
        }
      }
      sockets.forEach((path, key) -> tracked.computeIfAbsent(path, p -> new Tracked(p, key)));
      for (Tracked t : tracked.values()) {
        if (t.state == State.PENDING && System.nanoTime() - t.nextAttempt >= 0) {
          register(t);
        }
      }
    } catch (RuntimeException | Error e) {
      LOG.warn("kubelet simulator: polling {} failed", registryDirectory, e);
    }
  }

  /** Sockets under the registry directory, by path, with their file identity (inode). */
  private Map<Path, Object> scan() {
    Map<Path, Object> found = new HashMap<>();
    if (!Files.isDirectory(registryDirectory)) {
      return found;
    }
    try {
      Files.walkFileTree(
          registryDirectory,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
              return !dir.equals(registryDirectory) && hidden(dir)
                  ? FileVisitResult.SKIP_SUBTREE
                  : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (!hidden(file) && attrs.isOther() && isSocket(file)) {
                found.put(file, attrs.fileKey() == null ? file : attrs.fileKey());
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              return FileVisitResult.CONTINUE; // vanished while walking
            }
          });
    } catch (IOException e) {
      LOG.warn("kubelet simulator: cannot list {}: {}", registryDirectory, e.toString());
    }
    return found;
  }

  private static boolean hidden(Path p) {
    return p.getFileName().toString().startsWith(".");
  }

  private static boolean isSocket(Path p) {
    try {
      int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return (mode & 0170000) == 0140000;
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  private void register(Tracked t) {
    ManagedChannel registration = UdsChannels.open(t.path, group);
    try {
      PluginInfo info;
      try {
        info =
            RegistrationGrpc.newBlockingStub(registration)
                .withDeadlineAfter(GET_INFO_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .getInfo(InfoRequest.getDefaultInstance());
      } catch (StatusRuntimeException e) {
        t.retryLater();
        emit(SimulatorEvent.Kind.FAILED, t.path, "", "GetInfo failed: " + e.getStatus());
        return;
      }
      String name = info.getName();
      Optional<DraVersion> dra = pickDraVersion(info.getSupportedVersionsList());
      String problem = validate(info, dra);
      Path endpoint =
          info.getEndpoint().isEmpty() ? t.path : Path.of(info.getEndpoint()).normalize();
      if (problem == null) {
        synchronized (this) {
          for (PluginInstance p : registered) {
            if (p.driverName().equals(name) && p.endpoint().equals(endpoint)) {
              problem = "endpoint " + endpoint + " already registered for driver " + name;
            }
          }
        }
      }
      if (problem != null) {
        t.state = State.REJECTED;
        // Record the rejection before telling the plugin: whoever learns of it from the plugin
        // must find the event already there.
        emit(SimulatorEvent.Kind.REJECTED, t.path, name, problem);
        try {
          notify(registration, false, problem);
        } catch (StatusRuntimeException e) {
          // The Go helper answers a rejection with an error; the kubelet only adds it to its own
          // (operation_generator.go:171-189).
          LOG.debug("{}: {}: {}", t.path, problem, e.getStatus());
        }
        return;
      }
      ManagedChannel dial = UdsChannels.open(endpoint, group);
      dial.getState(true); // connect now, as the kubelet does
      PluginInstance instance =
          new PluginInstance(
              name,
              info.getType(),
              t.path,
              endpoint,
              info.getSupportedVersionsList(),
              dra.get(),
              pickHealthVersion(info.getSupportedVersionsList()),
              Instant.now(),
              dial,
              (driver, results) -> runtime.devicesPrepared(driver, results));
      try {
        notify(registration, true, "");
      } catch (StatusRuntimeException e) {
        instance.shutdown();
        t.retryLater();
        emit(
            SimulatorEvent.Kind.FAILED,
            t.path,
            name,
            "NotifyRegistrationStatus failed: " + e.getStatus());
        return;
      }
      t.state = State.REGISTERED;
      t.instance = instance;
      synchronized (this) {
        registered.add(instance);
        ScheduledFuture<?> wipe = pendingWipes.remove(name);
        if (wipe != null) {
          wipe.cancel(false);
        }
      }
      emit(SimulatorEvent.Kind.REGISTERED, t.path, name, describe(instance));
    } finally {
      registration.shutdownNow();
    }
  }

  private static String validate(PluginInfo info, Optional<DraVersion> dra) {
    if (!"DRAPlugin".equals(info.getType())) {
      return "no handler registered for plugin type: " + info.getType();
    }
    if (info.getName().isEmpty()) {
      return "plugin name is empty";
    }
    if (info.getSupportedVersionsCount() == 0) {
      return "plugin " + info.getName() + " advertises no services (supported_versions is empty)";
    }
    if (dra.isEmpty()) {
      return "none of services supported by the plugin "
          + info.getSupportedVersionsList()
          + " are supported by the kubelet "
          + SERVICES_SUPPORTED_BY_KUBELET;
    }
    if (!info.getEndpoint().isEmpty() && !Path.of(info.getEndpoint()).isAbsolute()) {
      return "endpoint \"" + info.getEndpoint() + "\" is not an absolute path";
    }
    return null;
  }

  /** The first advertised service, in the plugin's order, that the kubelet supports. */
  static Optional<DraVersion> pickDraVersion(List<String> advertised) {
    for (String service : advertised) {
      for (DraVersion v : DraVersion.values()) {
        if (v.service().equals(service)) {
          return Optional.of(v);
        }
      }
    }
    return Optional.empty();
  }

  /** v1 when advertised, else v1alpha1 when advertised, whatever the order. */
  static Optional<HealthVersion> pickHealthVersion(List<String> advertised) {
    if (advertised.contains(HealthVersion.V1.service())) {
      return Optional.of(HealthVersion.V1);
    }
    if (advertised.contains(HealthVersion.V1ALPHA1.service())) {
      return Optional.of(HealthVersion.V1ALPHA1);
    }
    return Optional.empty();
  }

  private static void notify(ManagedChannel registration, boolean ok, String error) {
    RegistrationGrpc.newBlockingStub(registration)
        .withDeadlineAfter(NOTIFY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .notifyRegistrationStatus(
            RegistrationStatus.newBuilder().setPluginRegistered(ok).setError(error).build());
  }

  private void deregister(Tracked t, String why) {
    String driver = t.instance.driverName();
    synchronized (this) {
      registered.remove(t.instance);
      if (wiper != null
          && !closed
          && registered.stream().noneMatch(p -> p.driverName().equals(driver))
          && !pendingWipes.containsKey(driver)) {
        pendingWipes.put(
            driver,
            poller.schedule(() -> wipe(driver), wiper.delay().toMillis(), TimeUnit.MILLISECONDS));
      }
    }
    t.instance.shutdown();
    emit(SimulatorEvent.Kind.DEREGISTERED, t.path, driver, why);
  }

  /** Deletes the node's slices of {@code driver} (all drivers when empty), on the poller thread. */
  private void wipe(String driver) {
    SliceWiper w;
    synchronized (this) {
      pendingWipes.remove(driver);
      w = wiper;
      if (w == null || closed) {
        return;
      }
    }
    String selector =
        "spec.nodeName=" + w.nodeName() + (driver.isEmpty() ? "" : ",spec.driver=" + driver);
    int deleted = 0;
    try {
      for (ResourceSlice slice :
          w.client().list(ResourceSlice.TYPE, "", ListOptions.fields(selector)).items()) {
        try {
          w.client().delete(ResourceSlice.TYPE, "", slice.metadata().name(), Preconditions.NONE);
          deleted++;
        } catch (KubeException e) {
          if (!e.isNotFound()) {
            throw e;
          }
        }
      }
    } catch (KubeException e) {
      // The kubelet retries with backoff; a test sees the failure as an event instead.
      emit(
          SimulatorEvent.Kind.FAILED,
          registryDirectory,
          driver,
          "deleting ResourceSlices " + selector + " failed: " + e.getMessage());
      return;
    }
    emit(
        SimulatorEvent.Kind.SLICES_WIPED,
        registryDirectory,
        driver,
        deleted + " ResourceSlices with " + selector);
  }

  private static String describe(PluginInstance p) {
    return "endpoint "
        + p.endpoint()
        + ", services "
        + p.supportedVersions()
        + ", using "
        + p.draVersion().service()
        + p.healthVersion().map(h -> " and " + h.service()).orElse("");
  }

  private void emit(SimulatorEvent.Kind kind, Path socket, String driver, String detail) {
    SimulatorEvent event = new SimulatorEvent(kind, socket, driver, detail, Instant.now());
    if (kind == SimulatorEvent.Kind.FAILED) {
      LOG.debug("kubelet simulator: {}", event);
    } else {
      LOG.info("kubelet simulator: {}", event);
    }
    synchronized (this) {
      events.add(event);
      notifyAll();
      for (Consumer<SimulatorEvent> listener : listeners) {
        try {
          listener.accept(event);
        } catch (RuntimeException e) {
          LOG.warn("kubelet simulator: listener failed", e);
        }
      }
    }
  }

  /** Command-line use; run without arguments for help. */
  public static void main(String[] args) throws Exception {
    System.exit(SimulatorCli.run(args, System.out, System.err));
  }
}
