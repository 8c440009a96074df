package io.dra4j.runtime.internal.kubelet;

import io.dra4j.kube.KubeNames;
import io.dra4j.proto.pluginregistration.PluginInfo;
import io.dra4j.runtime.errors.MissingSettingException;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.claims.NodeService;
import io.dra4j.runtime.report.RegistrationStatus;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet side of a DRA driver: the registration socket and the DRA service socket, each with
 * its own gRPC server.
 *
 * <p>What it guarantees (Kubernetes 1.34–1.37 kubelets):
 *
 * <ul>
 *   <li>the DRA socket listens before the registration socket appears (the kubelet dials the
 *       endpoint as soon as it registers the plugin); on {@link #close()} the registration socket
 *       goes first, then in-flight calls finish (bounded by {@link Builder#shutdownTimeout}) and
 *       the DRA socket goes;
 *   <li>a socket another process still listens on is never taken over; stale socket files are
 *       replaced; anything that is not a socket is left alone; paths over 107 bytes are refused;
 *   <li>v1 and v1beta1 {@code DRAPlugin} from one {@link NodeService}, one implementation with an
 *       adapter per older version; {@code share_id} only on v1; subrequest suffixes stripped; an
 *       entry for every requested claim;
 *   <li>{@code v1.DRAResourceHealth} and {@code v1alpha1.DRAResourceHealth} only with a {@link
 *       HealthSource} (otherwise not advertised, and calls get UNIMPLEMENTED);
 *   <li>prepare and unprepare reach the {@link NodeService} as they arrive, concurrently; which of
 *       them may overlap is the service's to decide (see {@link NodeService}).
 * </ul>
 *
 * <pre>{@code
 * try (KubeletPluginServer server =
 *     KubeletPluginServer.builder()
 *         .driverName("gpu.example.com")
 *         .nodeService(myNodeService)
 *         .build()
 *         .start()) {
 *   ...
 * }
 * }</pre>
 */
public final class KubeletPluginServer implements AutoCloseable {

  /** {@code PluginInfo.type} of a DRA driver. */
  public static final String PLUGIN_TYPE = "DRAPlugin";

  public static final String SERVICE_DRA_V1 = "v1.DRAPlugin";
  public static final String SERVICE_DRA_V1BETA1 = "v1beta1.DRAPlugin";
  public static final String SERVICE_HEALTH_V1 = "v1.DRAResourceHealth";
  public static final String SERVICE_HEALTH_V1ALPHA1 = "v1alpha1.DRAResourceHealth";

  private static final Logger LOG = LoggerFactory.getLogger(KubeletPluginServer.class);

  /**
   * Netty logs "Unknown channel option 'SO_KEEPALIVE'" for every Unix-socket connection. Harmless.
   * The server drops the option (see {@link #serverFor}); when Netty logs through JUL, clients in
   * the same JVM are silenced here too. JUL holds loggers weakly, so the reference must stay in a
   * static field.
   */
  private static final java.util.logging.Logger NETTY_BOOTSTRAP_LOGGER =
      java.util.logging.Logger.getLogger("io.grpc.netty.shaded.io.netty.bootstrap");

  static {
    NETTY_BOOTSTRAP_LOGGER.setLevel(java.util.logging.Level.SEVERE);
  }

  private static final Pattern POD_UID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final int MAX_DRIVER_NAME = 63;

  private enum State {
    NEW,
    RUNNING,
    CLOSED
  }

  private final String driverName;
  private final Path registrarDirectory;
  private final Path pluginDataDirectory;
  private final Optional<String> podUid;
  private final Path registrationSocket;
  private final Path draSocket;
  private final List<String> supportedServices;
  private final boolean nodeV1;
  private final boolean nodeV1beta1;
  private final Logger callLogger;
  private final CallObserver callObserver;
  private final Optional<HealthSource> healthSource;
  private final NodeService nodeService;
  private final List<ServerInterceptor> interceptors;
  private final List<Consumer<RegistrationStatus>> registrationListeners;
  private final Duration shutdownTimeout;
  private final Runnable beforeRegistrationSocket;

  private volatile Optional<RegistrationStatus> registrationStatus = Optional.empty();
  private State state = State.NEW; // guarded by this
  private EventLoopGroup boss;
  private EventLoopGroup workers;
  private Server draServer;
  private Server registrationServer;
  private HealthStreams healthStreams;
  private NodeCalls calls;
  private Optional<Object> draSocketKey = Optional.empty();
  private Optional<Object> registrationSocketKey = Optional.empty();

  private KubeletPluginServer(Builder b) {
    this.driverName = b.driverName;
    this.registrarDirectory = SocketNames.clean(b.registrarDirectory);
    this.pluginDataDirectory =
        SocketNames.clean(
            b.pluginDataDirectory.orElse(SocketNames.defaultPluginDataDirectory(driverName)));
    this.podUid = b.podUid;
    this.registrationSocket =
        SocketNames.registrationSocket(registrarDirectory, driverName, podUid);
    this.draSocket = SocketNames.draSocket(pluginDataDirectory, podUid);
    this.nodeV1 = b.nodeV1;
    this.nodeV1beta1 = b.nodeV1beta1;
    this.callLogger = b.callLogger;
    this.callObserver = b.callObserver;
    this.healthSource = b.healthSource;
    this.nodeService = b.nodeService;
    List<String> services = new ArrayList<>();
    if (nodeV1) {
      services.add(SERVICE_DRA_V1);
    }
    if (nodeV1beta1) {
      services.add(SERVICE_DRA_V1BETA1);
    }
    if (healthSource.isPresent()) {
      services.add(SERVICE_HEALTH_V1);
      services.add(SERVICE_HEALTH_V1ALPHA1);
    }
    this.supportedServices = List.copyOf(services);
    List<ServerInterceptor> reversed = new ArrayList<>(b.interceptors);
    // ServerInterceptors.intercept runs the last one first; the builder's order is outermost first.
    Collections.reverse(reversed);
    this.interceptors = List.copyOf(reversed);
    this.registrationListeners = List.copyOf(b.registrationListeners);
    this.shutdownTimeout = b.shutdownTimeout;
    this.beforeRegistrationSocket = b.beforeRegistrationSocket;
  }

  /** A builder with the kubelet's default directories and both DRA versions. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Opens the DRA socket, then the registration socket.
   *
   * @throws IOException when a socket path is in use by another process, is not a socket, or cannot
   *     be bound
   * @throws IllegalStateException when epoll is unavailable or the server was started before
   */
  public synchronized KubeletPluginServer start() throws IOException {
    if (state != State.NEW) {
      throw new IllegalStateException(
          "KubeletPluginServer for " + driverName + " was already started");
    }
    requireEpoll();
    state = State.RUNNING;
    try {
      // The registry is shared with the kubelet and every other plugin: 0755, the mode the kubelet
      // itself uses. The plugin data directory is the driver's alone (0700).
      UnixSockets.ensureDirectory(registrarDirectory, "rwxr-xr-x", "rwxr-xr-x");
      UnixSockets.ensureDirectory(
          pluginDataDirectory,
          PosixFilePermissions.toString(AtomicFiles.PRIVATE_DIRECTORY),
          "rwxr-xr-x");
      boss = new MultiThreadIoEventLoopGroup(1, threads("boss"), EpollIoHandler.newFactory());
      workers = new MultiThreadIoEventLoopGroup(2, threads("worker"), EpollIoHandler.newFactory());

      UnixSockets.claimPath("DRA socket", draSocket);
      NettyServerBuilder dra = serverFor(draSocket);
      calls = new NodeCalls(driverName, nodeService, callLogger, callObserver);
      DraPluginV1Service node = new DraPluginV1Service(calls);
      if (nodeV1) {
        dra.addService(intercepted(node));
      }
      if (nodeV1beta1) {
        dra.addService(intercepted(new DraPluginV1beta1Service(node)));
      }
      if (healthSource.isPresent()) {
        healthStreams = new HealthStreams(driverName, healthSource.get());
        HealthV1Service health = new HealthV1Service(healthStreams);
        dra.addService(intercepted(health));
        dra.addService(intercepted(new HealthV1alpha1Service(health)));
      }
      draServer = bind(dra, "DRA socket", draSocket);
      draSocketKey = UnixSockets.restrict(draSocket);

      beforeRegistrationSocket.run();

      UnixSockets.claimPath("registration socket", registrationSocket);
      PluginInfo info =
          PluginInfo.newBuilder()
              .setType(PLUGIN_TYPE)
              .setName(driverName)
              .setEndpoint(draSocket.toString())
              .addAllSupportedVersions(supportedServices)
              .build();
      NettyServerBuilder registration =
          serverFor(registrationSocket)
              .addService(
                  intercepted(new RegistrationService(info, this::recordRegistration, callLogger)));
      registrationServer = bind(registration, "registration socket", registrationSocket);
      registrationSocketKey = UnixSockets.restrict(registrationSocket);
    } catch (IOException | RuntimeException | Error e) {
      stop();
      state = State.CLOSED;
      throw e;
    }
    LOG.info(
        "driver={}: listening on {} (services {}), registration socket {}",
        driverName,
        draSocket,
        supportedServices,
        registrationSocket);
    return this;
  }

  /**
   * Removes the registration socket (the kubelet deregisters the plugin), lets in-flight calls
   * finish for up to the shutdown timeout, ends health streams and removes the DRA socket.
   * Idempotent.
   */
  @Override
  public synchronized void close() {
    if (state != State.RUNNING) {
      state = State.CLOSED;
      return;
    }
    state = State.CLOSED;
    stop();
    LOG.info("driver={}: stopped", driverName);
  }

  private void stop() {
    long deadline = System.nanoTime() + shutdownTimeout.toNanos();
    if (registrationServer != null) {
      // Delete first so the kubelet deregisters the plugin before anything stops answering.
      UnixSockets.deleteIfOurs(registrationSocket, registrationSocketKey);
      registrationServer.shutdown();
      await(registrationServer, Duration.ofSeconds(2));
    }
    if (draServer != null) {
      // Let running prepare/unprepare calls finish while the DRA socket still listens: stopping
      // the server unlinks the socket file at once, even with calls in flight.
      while (calls != null
          && calls.inFlight() > 0
          && System.nanoTime() - deadline < 0
          && !Thread.currentThread().isInterrupted()) {
        sleep(Duration.ofMillis(5));
      }
      draServer.shutdown();
      if (healthStreams != null) {
        healthStreams.closeAll();
      }
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      if (!await(
          draServer, left.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : left)) {
        LOG.warn(
            "driver={}: calls still running after {}; cancelling them",
            driverName,
            shutdownTimeout);
        draServer.shutdownNow();
        await(draServer, Duration.ofSeconds(2));
      }
      UnixSockets.deleteIfOurs(draSocket, draSocketKey);
    }
    // A short quiet period: a handler thread that just completed a call may still hand a write
    // listener to its event loop; a loop that refuses it logs a SEVERE stack trace for nothing.
    // Both groups shut down at once; only the workers get the quiet period (the boss loop accepts
    // connections and is handed no writes).
    if (boss != null) {
      boss.shutdownGracefully(0, 1000, TimeUnit.MILLISECONDS);
    }
    if (workers != null) {
      workers
          .shutdownGracefully(50, 1000, TimeUnit.MILLISECONDS)
          .awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
    if (boss != null) {
      boss.terminationFuture().awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean await(Server server, Duration timeout) {
    try {
      return server.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
      return false;
    }
  }

  private NettyServerBuilder serverFor(Path socket) {
    return NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollServerDomainSocketChannel.class)
        .bossEventLoopGroup(boss)
        .workerEventLoopGroup(workers)
        // gRPC always asks for SO_KEEPALIVE, which Unix sockets lack, and Netty then warns on every
        // connection; a null value removes the option again.
        .withChildOption(ChannelOption.SO_KEEPALIVE, null);
  }

  private static Server bind(NettyServerBuilder builder, String what, Path socket)
      throws IOException {
    Server server = builder.build();
    try {
      return server.start();
    } catch (IOException e) {
      server.shutdownNow();
      throw new IOException("cannot listen on " + what + " " + socket + ": " + e.getMessage(), e);
    }
  }

  private ServerServiceDefinition intercepted(BindableService service) {
    return UnparseableRequests.around(ServerInterceptors.intercept(service, interceptors));
  }

  private static DefaultThreadFactory threads(String role) {
    return new DefaultThreadFactory("dra4j-kubelet-" + role, true);
  }

  private static void requireEpoll() {
    if (!Epoll.isAvailable()) {
      throw new IllegalStateException(
          "the kubelet plugin sockets need Netty's native epoll transport (Linux x86_64 or"
              + " aarch64, a writable java.io.tmpdir, libdl and librt), which is unavailable: "
              + Epoll.unavailabilityCause(),
          Epoll.unavailabilityCause());
    }
  }

  private void recordRegistration(RegistrationStatus status) {
    registrationStatus = Optional.of(status);
    for (Consumer<RegistrationStatus> listener : registrationListeners) {
      try {
        listener.accept(status);
      } catch (RuntimeException e) {
        LOG.warn("driver={}: registration listener failed", driverName, e);
      }
    }
  }

  /** The driver name, as the kubelet knows the plugin. */
  public String driverName() {
    return driverName;
  }

  /** Absolute path of the registration socket. */
  public Path registrationSocket() {
    return registrationSocket;
  }

  /** Absolute path of the DRA service socket (the {@code endpoint} sent to the kubelet). */
  public Path draSocket() {
    return draSocket;
  }

  /** The plugin data directory. */
  public Path pluginDataDirectory() {
    return pluginDataDirectory;
  }

  /** {@code supported_versions} as sent to the kubelet, in order. */
  public List<String> supportedServices() {
    return supportedServices;
  }

  /** The kubelet's last {@code NotifyRegistrationStatus}, if any arrived. */
  public Optional<RegistrationStatus> registrationStatus() {
    return registrationStatus;
  }

  /** True between {@link #start()} and {@link #close()}. */
  public synchronized boolean isRunning() {
    return state == State.RUNNING;
  }

  /**
   * Builds a {@link KubeletPluginServer}; {@link #driverName} and {@link #nodeService} are
   * required.
   */
  public static final class Builder {
    private String driverName;
    private Path registrarDirectory = SocketNames.DEFAULT_REGISTRAR_DIRECTORY;
    private Optional<Path> pluginDataDirectory = Optional.empty();
    private Optional<String> podUid = Optional.empty();
    private Logger callLogger = NodeCalls.DEFAULT_LOG;
    private CallObserver callObserver = CallObserver.NONE;
    private boolean nodeV1 = true;
    private boolean nodeV1beta1 = true;
    private Optional<HealthSource> healthSource = Optional.empty();
    private NodeService nodeService;
    private final List<ServerInterceptor> interceptors = new ArrayList<>();
    private final List<Consumer<RegistrationStatus>> registrationListeners = new ArrayList<>();
    private Duration shutdownTimeout = Duration.ofSeconds(10);
    private Runnable beforeRegistrationSocket = () -> {};

    private Builder() {}

    /** The DRA driver name: a lower-case DNS subdomain of at most 63 characters. Required. */
    public Builder driverName(String value) {
      driverName = Objects.requireNonNull(value, "driverName");
      return this;
    }

    /**
     * Where the kubelet looks for registration sockets; default {@code
     * /var/lib/kubelet/plugins_registry}.
     */
    public Builder registrarDirectory(Path value) {
      registrarDirectory = Objects.requireNonNull(value, "registrarDirectory");
      return this;
    }

    /**
     * This driver's own directory (DRA socket, lock file); default {@code
     * /var/lib/kubelet/plugins/<driver>}. It must have the same path inside and outside the driver
     * container, and must not be shared with other drivers.
     */
    public Builder pluginDataDirectory(Path value) {
      pluginDataDirectory = Optional.of(Objects.requireNonNull(value, "pluginDataDirectory"));
      return this;
    }

    /**
     * Enables rolling updates: per-pod socket names, so that the old and the new driver process can
     * listen side by side. Needs a 1.33+ kubelet. (Serializing their calls is the {@link
     * NodeService}'s: the claim pipeline's serializer does it with the same pod UID.)
     */
    public Builder rollingUpdate(String podUidValue) {
      podUid = Optional.of(Objects.requireNonNull(podUidValue, "podUid"));
      return this;
    }

    /** Serve and advertise {@code v1.DRAPlugin} (default true). */
    public Builder nodeV1(boolean value) {
      nodeV1 = value;
      return this;
    }

    /**
     * Where the line per GetInfo, NodePrepareResources and NodeUnprepareResources call goes
     * (default: the logger {@code io.dra4j.runtime.internal.kubelet.NodeCalls}, info for success,
     * error for failure).
     */
    public Builder callLogger(Logger value) {
      callLogger = Objects.requireNonNull(value, "callLogger");
      return this;
    }

    /**
     * Hears how each NodePrepareResources and NodeUnprepareResources call ended and how long it
     * took, e.g. a driver's metrics. Default: {@link CallObserver#NONE}.
     */
    public Builder callObserver(CallObserver value) {
      callObserver = Objects.requireNonNull(value, "callObserver");
      return this;
    }

    /**
     * Serve and advertise {@code v1beta1.DRAPlugin} (default true; kubelets before 1.34 need it).
     */
    public Builder nodeV1beta1(boolean value) {
      nodeV1beta1 = value;
      return this;
    }

    /** Serve and advertise the health services, fed by {@code source}. Off by default. */
    public Builder healthSource(HealthSource source) {
      healthSource = Optional.of(Objects.requireNonNull(source, "healthSource"));
      return this;
    }

    /** Prepares and unprepares claims. Required. */
    public Builder nodeService(NodeService service) {
      nodeService = Objects.requireNonNull(service, "nodeService");
      return this;
    }

    /** Extra interceptors for both servers; the first added sees a call first. */
    public Builder interceptor(ServerInterceptor value) {
      interceptors.add(Objects.requireNonNull(value, "interceptor"));
      return this;
    }

    /** Called on every {@code NotifyRegistrationStatus}. */
    public Builder registrationListener(Consumer<RegistrationStatus> listener) {
      registrationListeners.add(Objects.requireNonNull(listener, "registrationListener"));
      return this;
    }

    /** How long {@link #close()} waits for in-flight calls (default 10 s). */
    public Builder shutdownTimeout(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("shutdownTimeout must not be negative, got " + value);
      }
      shutdownTimeout = value;
      return this;
    }

    /** Test hook: runs after the DRA socket listens and before the registration socket exists. */
    Builder beforeRegistrationSocket(Runnable hook) {
      beforeRegistrationSocket = Objects.requireNonNull(hook);
      return this;
    }

    /**
     * Checks the configuration and builds the server (not started).
     *
     * @throws MissingSettingException naming a required setting that was not given
     * @throws IllegalArgumentException naming the setting and the rule that failed
     */
    public KubeletPluginServer build() {
      MissingSettingException.require(driverName, "KubeletPluginServer", "driverName");
      checkDriverName(driverName);
      MissingSettingException.require(
          nodeService, "KubeletPluginServer of driver " + driverName, "nodeService");
      if (!nodeV1 && !nodeV1beta1) {
        throw new IllegalArgumentException(
            "driver "
                + driverName
                + ": nodeV1 and nodeV1beta1 are both off; the kubelet needs at least one DRA"
                + " service (v1.DRAPlugin for 1.34+, v1beta1.DRAPlugin for older kubelets)");
      }
      podUid.ifPresent(KubeletPluginServer::checkPodUid);
      KubeletPluginServer server = new KubeletPluginServer(this);
      SocketNames.checkLength("DRA socket", server.draSocket);
      SocketNames.checkLength("registration socket", server.registrationSocket);
      return server;
    }

    /** {@code build().start()}. */
    public KubeletPluginServer start() throws IOException {
      return build().start();
    }
  }

  /**
   * Checks a DRA driver name against the rules the kubelet and the API server apply.
   *
   * @throws IllegalArgumentException naming the rule
   */
  public static void checkDriverName(String name) {
    String rule =
        "must be a lower-case DNS subdomain (labels of a-z, 0-9 and '-', separated by '.') of at"
            + " most "
            + MAX_DRIVER_NAME
            + " characters, e.g. gpu.example.com";
    if (name.isEmpty() || name.length() > MAX_DRIVER_NAME) {
      throw new IllegalArgumentException(
          "driverName \"" + name + "\" has " + name.length() + " characters: it " + rule);
    }
    if (!name.equals(name.toLowerCase(java.util.Locale.ROOT))) {
      throw new IllegalArgumentException(
          "driverName \""
              + name
              + "\" has upper-case letters: the kubelet matches driver names exactly and the API"
              + " server warns about them; it "
              + rule);
    }
    if (!KubeNames.hasDnsSubdomainSyntax(name)) {
      throw new IllegalArgumentException("driverName \"" + name + "\": it " + rule);
    }
  }

  static void checkPodUid(String uid) {
    if (!POD_UID.matcher(uid).matches()) {
      throw new IllegalArgumentException(
          "rollingUpdate pod UID \""
              + uid
              + "\" must be non-empty and contain only letters, digits, '.', '_' and '-' (it becomes"
              + " part of socket file names); pass the pod's metadata.uid");
    }
  }
}
