package io.dra4j.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceClaim;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ForwardingKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.kube.ResourceType;
import io.dra4j.proto.dra.v1.Claim;
import io.dra4j.proto.dra.v1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1.Device;
import io.dra4j.proto.dra.v1.NodePrepareResourceResponse;
import io.dra4j.proto.dra.v1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodePrepareResourcesResponse;
import io.dra4j.proto.dra.v1.NodeUnprepareResourceResponse;
import io.dra4j.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodeUnprepareResourcesResponse;
import io.dra4j.proto.pluginregistration.InfoRequest;
import io.dra4j.proto.pluginregistration.RegistrationGrpc;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.Threads;
import io.dra4j.runtime.internal.claims.ClaimListener;
import io.dra4j.runtime.internal.claims.ClaimPreparer;
import io.dra4j.runtime.internal.claims.DeviceLookup;
import io.dra4j.runtime.internal.kubelet.CallObserver;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * Warms the JVM on the whole prepare/unprepare path before the kubelet can call, while an older
 * instance of the driver still serves it (a rolling update).
 *
 * <p>The kubelet's first prepare after registration otherwise lands on a cold JVM: class loading,
 * static initialisation of gRPC, protobuf and Jackson, and interpreted code make it hundreds of
 * times slower than the next ones. This runs the real code (its own sockets, the real gRPC
 * services, the real claim pipeline with checkpoints and CDI files) against a synthetic claim and a
 * provider that does nothing, all inside a scratch directory that is deleted afterwards, so no side
 * effect reaches the host or the API server.
 *
 * <p>The HTTP path to the API server is warmed too, without touching any object: each round also
 * reads the synthetic claim from the real API server and applies its status there. The claim does
 * not exist, so the server answers 404 and changes nothing (a status subresource is never created
 * by an apply), but the client's request, connection and error paths have run.
 */
final class Warmup {
  // It runs only while an older instance serves the kubelet (a rolling update), so its time is
  // no pod's wait: enough rounds for the prepare path to get compiled, not only loaded. The
  // shipped flags compile a method with C1 after about 256 calls, so code that runs once per
  // kubelet call needs that many rounds; after 100 a round still took 15-20 ms against 6-8 ms
  // after 300, which took 4.7-7.1 s on the busy 2-core VM of the node benchmark. Each round also
  // costs the API server two cheap 404s; a roll-out goes node by node (maxSurge 1).
  static final int DEFAULT_ITERATIONS = 300;
  static final Duration DEFAULT_BUDGET = Duration.ofSeconds(8);
  static final int RECONNECT_EVERY = 3;
  private static final String SCRATCH_PREFIX = "dra4j-warm-";
  // The name only shows in the scratch sockets; a short one keeps their paths short.
  private static final String DRIVER_NAME = "warm-up.dra4j.io";
  private static final String NAMESPACE = "dra4j-warm-up";

  private Warmup() {}

  /** What the warm-up did. */
  record Result(
      int iterations, int apiProbes, Duration took, Duration firstCall, Duration lastCall) {
    @Override
    public String toString() {
      return iterations
          + " prepare/unprepare round trips in "
          + took.toMillis()
          + " ms (first "
          + firstCall.toNanos() / 1000
          + " µs, last "
          + lastCall.toNanos() / 1000
          + " µs), "
          + apiProbes
          + " API probes";
    }
  }

  static Result run(KubeClient api) throws IOException {
    return run(api, DEFAULT_ITERATIONS, DEFAULT_BUDGET);
  }

  /**
   * Runs up to {@code iterations} round trips, at least one, stopping early when {@code budget} is
   * spent; each round also probes {@code api} until the budget is spent.
   */
  static Result run(KubeClient api, int iterations, Duration budget) throws IOException {
    String driverName = DRIVER_NAME;
    long start = System.nanoTime();
    // Not in the plugin directory: socket paths must stay under 108 bytes whatever the
    // deployment's directories are. On tmpfs when there is one, so the warm-up's fsyncs (the same
    // code as real prepares) cost no disk time.
    Path shm = Path.of("/dev/shm");
    boolean onShm = Files.isDirectory(shm) && Files.isWritable(shm);
    Path base = onShm ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    removeStale(base);
    Path scratch = Files.createTempDirectory(base, SCRATCH_PREFIX);
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    ManagedChannel channel = null;
    try {
      Path registrar = Files.createDirectories(scratch.resolve("r"));
      Path plugin = Files.createDirectories(scratch.resolve("p"));
      Path cdi = Files.createDirectories(scratch.resolve("c"));
      long deadline = start + budget.toNanos();
      try (WarmUpClient client = new WarmUpClient(api, deadline)) {
        // Configured like a real driver, so that the warm-up runs the driver's own wiring.
        DraDriver.Settings settings =
            DraDriver.builder()
                .driverName(driverName)
                .nodeName("warm-up")
                .provider(new NoopProvider())
                // Claims are read and their status applied as in a real prepare.
                .kubeClient(client)
                .registrarDirectory(registrar)
                .pluginDirectory(plugin)
                .cdiDirectory(cdi)
                .devRoot(scratch)
                .settings();
        ClaimPreparer preparer =
            PreparePath.preparer(
                settings, DeviceLookup.none(), true, ClaimListener.NONE, settings.errorHandler());
        try (KubeletPluginServer server =
            PreparePath.server(settings, preparer, true, CallObserver.NONE).build().start()) {
          preparer.recover();
          channel = UdsChannels.open(server.registrationSocket(), group);
          RegistrationGrpc.newBlockingStub(channel).getInfo(InfoRequest.getDefaultInstance());
          long first = 0;
          long last = 0;
          int done = 0;
          // At least one round: on a starved node the set-up alone can use up the budget, and the
          // first round is the one that loads most of the path.
          while (done < iterations && (done == 0 || System.nanoTime() < deadline)) {
            // Now and then a new connection: the kubelet's first prepare also arrives on a new
            // one, and accepting it (pipeline, HTTP/2 handshake) is server code that must be warm
            // too. Not every round: the kubelet keeps its connection, and the budget is for the
            // calls.
            if (done % RECONNECT_EVERY == 0) {
              channel.shutdownNow();
              channel = UdsChannels.open(server.draSocket(), group);
            }
            DRAPluginGrpc.DRAPluginBlockingStub stub = DRAPluginGrpc.newBlockingStub(channel);
            String uid = UUID.randomUUID().toString();
            // Unique, so that the API probes cannot meet a real claim.
            String name = "warm-up-" + uid;
            client.put(syntheticClaim(driverName, name, uid));
            Claim claim =
                Claim.newBuilder().setNamespace(NAMESPACE).setName(name).setUid(uid).build();
            long t0 = System.nanoTime();
            String error =
                stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                    .nodePrepareResources(
                        NodePrepareResourcesRequest.newBuilder().addClaims(claim).build())
                    .getClaimsOrThrow(uid)
                    .getError();
            if (!error.isEmpty()) {
              // Warming the error path would be worse than no warm-up: say so loudly.
              throw new IllegalStateException("warm-up prepare failed: " + error);
            }
            stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                .nodeUnprepareResources(
                    NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build());
            long t = System.nanoTime() - t0;
            if (done == 0) {
              first = t;
            }
            last = t;
            client.remove(name);
            done++;
          }
          return new Result(
              done,
              client.probes(),
              Duration.ofNanos(System.nanoTime() - start),
              Duration.ofNanos(first),
              Duration.ofNanos(last));
        }
      }
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      AtomicFiles.deleteTreeQuietly(scratch);
    }
  }

  /**
   * A driver killed while warming up leaves its scratch directory behind (in RAM on tmpfs). A
   * warm-up takes seconds, so one older than ten minutes belongs to no running driver.
   */
  private static void removeStale(Path base) {
    long cutoff = System.currentTimeMillis() - Duration.ofMinutes(10).toMillis();
    try (Stream<Path> entries = Files.list(base)) {
      entries
          .filter(p -> p.getFileName().toString().startsWith(SCRATCH_PREFIX))
          .filter(
              p -> {
                try {
                  return Files.getLastModifiedTime(p).toMillis() < cutoff;
                } catch (IOException e) {
                  return false;
                }
              })
          .forEach(AtomicFiles::deleteTreeQuietly);
    } catch (IOException e) {
      // Not ours to worry about: the scratch directory of this run still works.
    }
  }

  /**
   * A claim as the scheduler leaves it for this node, in the API server's JSON: the shapes a
   * prepare decodes (the claim GET) and encodes (the status apply).
   */
  private static final String ALLOCATED_CLAIM =
      """
      {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"warm-up",\
      "namespace":"dra4j-warm-up","uid":"00000000-0000-0000-0000-000000000000",\
      "resourceVersion":"1","generation":1,"creationTimestamp":"2026-01-01T00:00:00Z",\
      "managedFields":[{"manager":"kube-scheduler","operation":"Apply",\
      "apiVersion":"resource.k8s.io/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1",\
      "fieldsV1":{"f:status":{"f:allocation":{}}}}]},"spec":{"devices":{"requests":[{\
      "name":"r","exactly":{"deviceClassName":"c","allocationMode":"ExactCount","count":1,\
      "selectors":[{"cel":{"expression":"true"}}]}}],"config":[{"requests":["r"],\
      "opaque":{"driver":"warm-up.dra4j.io","parameters":{}}}]}},"status":{"allocation":{\
      "devices":{"results":[{"request":"r","driver":"warm-up.dra4j.io","pool":"p",\
      "device":"d"}],"config":[{"source":"FromClaim","requests":["r"],\
      "opaque":{"driver":"warm-up.dra4j.io","parameters":{}}}]},"nodeSelector":{\
      "nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In",\
      "values":["n"]}]}]}},"reservedFor":[{"resource":"pods","name":"p",\
      "uid":"00000000-0000-0000-0000-000000000001"}]}}
      """;

  /**
   * Builds the kubelet's message codecs and the JSON codecs of a claim on a thread of its own, for
   * a driver that registers at once (a crash restart, a fresh node), where the kubelet's first
   * prepare may follow the registration at once. Jackson builds a type's codec on its first use: on
   * a cold JVM about 120-160 ms to decode a claim and 100-120 ms to encode one, which that prepare
   * would otherwise pay. Here it overlaps with the driver's own start (recovery, discovery, the
   * sockets). Pure computation on a synthetic claim: nothing reaches the host or the API server.
   */
  static void primeCodecsInBackground() {
    Threads.daemon(
            () -> {
              try {
                primeKubeletMessages();
                primeCodecs();
              } catch (IOException | RuntimeException e) {
                // An optimisation only: the first prepare builds them instead.
                LoggerFactory.getLogger(Warmup.class)
                    .debug("codec warm-up skipped: {}", e.toString());
              }
            },
            "dra4j-codec-warm-up")
        .start();
  }

  /**
   * Encodes and decodes the kubelet's v1 prepare and unprepare messages once. Their map of claims
   * makes protobuf build the file's descriptors on first use: on a cold JVM about 20 ms for a
   * response, which the first call otherwise paid between its prepare and its answer. Returns the
   * prepare response as read back.
   */
  static NodePrepareResourcesResponse primeKubeletMessages() throws IOException {
    Claim claim = Claim.newBuilder().setNamespace(NAMESPACE).setName("warm-up").setUid("u").build();
    NodePrepareResourcesRequest.parseFrom(
        NodePrepareResourcesRequest.newBuilder().addClaims(claim).build().toByteArray());
    NodeUnprepareResourcesRequest.parseFrom(
        NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build().toByteArray());
    NodeUnprepareResourcesResponse.parseFrom(
        NodeUnprepareResourcesResponse.newBuilder()
            .putClaims("u", NodeUnprepareResourceResponse.getDefaultInstance())
            .build()
            .toByteArray());
    Device device =
        Device.newBuilder()
            .addRequestNames("r")
            .setPoolName("p")
            .setDeviceName("d")
            .addCdiDeviceIds("warm-up.dra4j.io/claim=u-d")
            .setShareId("s")
            .build();
    return NodePrepareResourcesResponse.parseFrom(
        NodePrepareResourcesResponse.newBuilder()
            .putClaims("u", NodePrepareResourceResponse.newBuilder().addDevices(device).build())
            .build()
            .toByteArray());
  }

  /** Decodes the synthetic claim and encodes it again; returns it. */
  static ResourceClaim primeCodecs() throws IOException {
    ObjectMapper json = KubeJson.mapper();
    ResourceClaim claim =
        json.readValue(ALLOCATED_CLAIM.getBytes(StandardCharsets.UTF_8), ResourceClaim.class);
    json.writeValueAsBytes(claim);
    return claim;
  }

  private static ResourceClaim syntheticClaim(String driver, String name, String uid) {
    ObjectMeta meta =
        new ObjectMeta(
            name,
            "",
            NAMESPACE,
            uid,
            "1",
            1,
            "",
            Optional.empty(),
            Map.of(),
            Map.of(),
            List.of(),
            List.of(),
            Map.of());
    AllocationResult allocation =
        AllocationResult.of(
            DeviceAllocationResult.of(
                List.of(DeviceRequestAllocationResult.of("warm-up", driver, "warm-up", "dev-0")),
                List.of()),
            null);
    return ResourceClaim.of(meta, ResourceClaimSpec.of(DeviceClaim.of(List.of())))
        .withStatus(new ResourceClaimStatus(Optional.of(allocation), null, null, null));
  }

  /**
   * The warm-up's API client: serves the synthetic claims from memory and sends the same reads and
   * status applies to the real API server, where the claims do not exist, so every probe is
   * answered 404 and changes nothing. An apply is probed only after a GET of the same claim
   * answered 404, and the first other answer (a claim that exists after all, RBAC, an unreachable
   * server) ends the probing: the warm-up never changes an object and never fails because of the
   * API server. A probe runs on its own thread and is waited for only until the warm-up's deadline,
   * so a slow or unreachable server cannot hold up the registration either. The claim pipeline only
   * reads claims and applies their status; nothing else reaches the real client.
   */
  private static final class WarmUpClient extends ForwardingKubeClient {
    // JSON bytes, as the API server answers: the HTTP client decodes bytes, and decoding a String
    // would warm another parser.
    private final Map<String, byte[]> claims = new ConcurrentHashMap<>();
    private final long deadline;
    private final ExecutorService probeThread = Threads.single("dra4j-warm-up-probe");
    private int probes;
    private String absent = "";
    private boolean stopped;

    WarmUpClient(KubeClient api, long deadline) {
      super(api);
      this.deadline = deadline;
    }

    void put(ResourceClaim claim) throws IOException {
      claims.put(claim.metadata().name(), KubeJson.mapper().writeValueAsBytes(claim));
    }

    void remove(String name) {
      claims.remove(name);
    }

    @Override
    public synchronized <T> T get(ResourceType<T> type, String namespace, String name) {
      absent = "";
      if (!stopped) {
        boolean notFound = probe(() -> delegate().get(type, namespace, name));
        stopped = !notFound;
        absent = notFound ? namespace + "/" + name : "";
      }
      return stored(type, name);
    }

    @Override
    public synchronized <T> T apply(
        ResourceType<T> type,
        String namespace,
        String name,
        String subresource,
        Map<String, Object> patch,
        ApplyOptions options) {
      if (!stopped && absent.equals(namespace + "/" + name)) {
        stopped =
            !probe(() -> delegate().apply(type, namespace, name, subresource, patch, options));
      }
      absent = "";
      try {
        KubeJson.mapper().writeValueAsBytes(patch);
      } catch (IOException e) {
        throw new IllegalStateException("warm-up status apply: " + e, e);
      }
      return stored(type, name);
    }

    /** Sends one probe; true when the server answered 404 before the warm-up's deadline. */
    private boolean probe(Callable<?> call) {
      probes++;
      Future<?> answer = probeThread.submit(call);
      try {
        answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        return false;
      } catch (ExecutionException e) {
        return e.getCause() instanceof KubeException k && k.status() == 404;
      } catch (TimeoutException e) {
        answer.cancel(true);
        return false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        answer.cancel(true);
        return false;
      }
    }

    private <T> T stored(ResourceType<T> type, String name) {
      try {
        return KubeJson.mapper().readValue(claims.get(name), type.javaType());
      } catch (IOException e) {
        throw new IllegalStateException("warm-up claim " + name + ": " + e, e);
      }
    }

    synchronized int probes() {
      return probes;
    }

    /** Stops the probe thread; the real client is the driver's and stays open. */
    @Override
    public void close() {
      probeThread.shutdownNow();
    }
  }

  /**
   * Prepares nothing real: one env variable, so the CDI writer does its full work, and a status, so
   * the status path does too.
   */
  private static final class NoopProvider implements DeviceProvider {
    @Override
    public Inventory discover(ProviderContext context) {
      return Inventory.empty();
    }

    @Override
    public PrepareResult prepare(ClaimAllocation allocation) {
      return PrepareResult.of(
          allocation.devices().stream()
              .map(
                  (AllocatedDevice d) ->
                      PreparedDevice.builder(d)
                          .edits(ContainerEdits.builder().env("DRA4J_WARM_UP", d.device()).build())
                          .status(DeviceStatus.ready("WarmUp", "warm-up"))
                          .build())
              .toList());
    }

    @Override
    public void unprepare(PreparedClaim claim) {}

    @Override
    public boolean threadSafe() {
      return true;
    }
  }
}
