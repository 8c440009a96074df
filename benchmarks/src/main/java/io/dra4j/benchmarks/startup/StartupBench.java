package io.dra4j.benchmarks.startup;

import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceClaim;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.proto.dra.v1.Claim;
import io.dra4j.proto.dra.v1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1.NodePrepareResourceResponse;
import io.dra4j.proto.dra.v1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.dra4j.proto.pluginregistration.InfoRequest;
import io.dra4j.proto.pluginregistration.RegistrationGrpc;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Start-up and footprint of the fake driver as a real process, the way a DaemonSet pod runs it.
 *
 * <p>Per run: an in-process fake API server; {@code java -jar fake-dra-driver.jar run} as a child
 * process; the harness acts as the kubelet over the real sockets. It measures the time from process
 * start until the registration socket answers GetInfo, the first NodePrepareResources after
 * registration against the median of the next ones, and the driver's RSS after start and after many
 * prepare/unprepare pairs. Each configuration (with and without the class-data-sharing archive,
 * with and without the driver's warm-up) runs in the same invocation, so the ratios compare like
 * with like.
 *
 * <p>The driver's plugin and CDI directories are on tmpfs (/dev/shm when present): a prepare makes
 * several fsyncs, and this benchmark is about the JVM, not the disk.
 */
public final class StartupBench {
  private static final String DRIVER = "gpu.example.com";
  private static final String NODE = "bench-node";

  /** -Ddra4j.bench.keep=true keeps each run's directory (driver log) for a look afterwards. */
  private static final boolean KEEP = Boolean.getBoolean("dra4j.bench.keep");

  private StartupBench() {}

  record Run(
      double startMs,
      double firstCallUs,
      double warmMedianUs,
      long rssStartKb,
      long rssEndKb,
      long rssEndFileKb) {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(arg(args, "--jar", "examples/fake-driver/target/fake-dra-driver.jar"));
    Path archive = Path.of(arg(args, "--archive", jar.toString().replace(".jar", ".jsa")));
    // The driver's JVM (default: this one). A JDK 25 AOT cache (a file ending in .aot) is passed
    // with -XX:AOTCache; a CDS archive with -XX:SharedArchiveFile.
    String java =
        arg(args, "--java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    int runs = Integer.parseInt(arg(args, "--runs", "5"));
    int calls = Integer.parseInt(arg(args, "--calls", "1000"));
    int pairs = Integer.parseInt(arg(args, "--pairs", "10000"));
    List<String> jvm =
        new ArrayList<>(
            List.of(
                // The container flags of examples/fake-driver/deploy/daemonset.yaml; MaxRAM
                // stands in for its 160Mi memory limit (the JVM sizes heap and more from the
                // cgroup limit).
                "-XX:MaxRAM=160m",
                "-XX:+UseSerialGC",
                "-XX:MaxRAMPercentage=50",
                "-XX:TieredStopAtLevel=1",
                "-Xss512k"));
    // Extra driver JVM flags, for a closer look: e.g. --jvm-arg -Xlog:class+load. (The driver's
    // log lines carry their time already: the launcher's LineLogging.)
    jvm.addAll(args(args, "--jvm-arg"));
    // Which configurations to run (default all): none, none+warm-up, archive, archive+warm-up.
    List<String> only = args(args, "--config");
    System.out.printf(
        "fake driver %s on %s, %d runs per configuration, %d warm calls, %d pairs for RSS%n",
        jar, java, runs, calls, pairs);
    System.out.println(
        "configuration                 start ms  first prepare us  warm median us  first/warm  RSS start MB  RSS end MB");
    double[] shipped = null;
    boolean aot = archive.toString().endsWith(".aot");
    // The harness is a JVM too: its first gRPC calls, and the first call on each new connection,
    // would be slow on its side and be counted against the driver's start and first prepare (a
    // kubelet is a long-running Go process). One discarded run warms it: it also prepares and
    // unprepares over many new connections.
    runOnce(java, jar, jvm, false, Math.min(calls, 100), 0, 300);
    for (boolean cds : new boolean[] {false, true}) {
      for (boolean warmUp : new boolean[] {false, true}) {
        String key = (cds ? "archive" : "none") + (warmUp ? "+warm-up" : "");
        if (!only.isEmpty() && !only.contains(key)) {
          continue;
        }
        List<String> flags = new ArrayList<>(jvm);
        if (cds) {
          if (aot) {
            flags.add("-XX:AOTCache=" + archive);
          } else {
            flags.add("-XX:SharedArchiveFile=" + archive);
            flags.add("-Xshare:auto");
          }
        }
        List<Run> results = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
          results.add(runOnce(java, jar, flags, warmUp, calls, i == runs - 1 ? pairs : 0, 0));
        }
        String name =
            (cds ? (aot ? "AOT cache" : "CDS archive") : "no archive")
                + (warmUp ? ", warm-up" : ", no warm-up");
        double start = median(results.stream().mapToDouble(Run::startMs).toArray());
        double first = median(results.stream().mapToDouble(Run::firstCallUs).toArray());
        double warm = median(results.stream().mapToDouble(Run::warmMedianUs).toArray());
        double rssStart = median(results.stream().mapToDouble(Run::rssStartKb).toArray()) / 1024;
        Run last = results.get(results.size() - 1);
        System.out.printf(
            "%-28s %9.0f %17.0f %15.0f %11.1f %13.1f %11s%n",
            name,
            start,
            first,
            warm,
            first / warm,
            rssStart,
            pairs > 0
                ? String.format(
                    "%.1f (file-backed %.1f)",
                    last.rssEndKb() / 1024.0, last.rssEndFileKb() / 1024.0)
                : "-");
        if (cds && warmUp) {
          shipped =
              new double[] {start, first / warm, Math.max(rssStart, last.rssEndKb() / 1024.0)};
        }
      }
    }
    // The configuration the examples ship (archive and warm-up) against the targets.
    if (shipped != null) {
      System.out.printf(
          "shipped configuration: start %.0f ms (target <= 300), first/warm %.1f (target <= 2),"
              + " RSS %.1f MB (target <= 80)%n",
          shipped[0], shipped[1], shipped[2]);
    }
  }

  private static Run runOnce(
      String java,
      Path jar,
      List<String> jvmFlags,
      boolean warmUp,
      int calls,
      int pairs,
      int newConnections)
      throws Exception {
    Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : null;
    Path dir =
        base == null
            ? Files.createTempDirectory("dra4j-bench-")
            : Files.createTempDirectory(base, "dra4j-bench-");
    MultiThreadIoEventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    Process driver = null;
    try (FakeApiServer api = FakeApiServer.start();
        HttpKubeClient client = api.clientBuilder().rateLimit(10_000, 10_000).build()) {
      api.putNode(NODE);
      Path kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
      Path registry = Files.createDirectories(dir.resolve("registry"));
      Path plugin = dir.resolve("plugin");
      Path cdi = Files.createDirectories(dir.resolve("cdi"));
      List<String> cmd = new ArrayList<>();
      cmd.add(java);
      cmd.addAll(jvmFlags);
      cmd.addAll(
          List.of(
              "-jar",
              jar.toString(),
              "run",
              "--node-name",
              NODE,
              "--kubeconfig",
              kubeconfig.toString(),
              "--registrar-dir",
              registry.toString(),
              "--plugin-dir",
              plugin.toString(),
              "--cdi-dir",
              cdi.toString(),
              "--health-port",
              "-1",
              // The client's rate limit (50 QPS) would pace the 2 API calls of each prepare and
              // measure the limiter, not the driver.
              "--kube-api-qps",
              "10000",
              "--kube-api-burst",
              "10000",
              "--devices",
              "8"));
      if (!warmUp) {
        cmd.add("--no-warm-up");
      }
      warmApiServer(api, client);
      // The claims exist before the driver starts, so that the first prepare follows the
      // registration at once, as when the kubelet has pods waiting for the driver.
      List<Claim> claims = new ArrayList<>();
      for (int i = 0; i < 1 + calls; i++) {
        ResourceClaim c = api.put(ResourceClaim.TYPE, claim("c-" + i, i % 8));
        claims.add(
            Claim.newBuilder()
                .setNamespace("default")
                .setName(c.metadata().name())
                .setUid(c.metadata().uid())
                .build());
      }
      long t0 = System.nanoTime();
      driver =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("driver.log").toFile())
              .start();
      Path regSocket = registry.resolve(DRIVER + "-reg.sock");
      while (true) {
        if (!driver.isAlive()) {
          throw new IllegalStateException(
              "driver exited: " + Files.readString(dir.resolve("driver.log")));
        }
        if (Files.exists(regSocket) && answers(regSocket, group)) {
          break;
        }
        Thread.sleep(1);
      }
      double startMs = (System.nanoTime() - t0) / 1e6;
      long rssStart = rssKb(driver.pid(), "VmRSS:");

      ManagedChannel channel = UdsChannels.open(plugin.resolve("dra.sock"), group);
      try {
        DRAPluginGrpc.DRAPluginBlockingStub stub = DRAPluginGrpc.newBlockingStub(channel);
        int total = claims.size();
        long[] prepareNanos = new long[total];
        for (int i = 0; i < total; i++) {
          Claim claim = claims.get(i);
          long t = System.nanoTime();
          NodePrepareResourceResponse r =
              stub.withDeadlineAfter(45, TimeUnit.SECONDS)
                  .nodePrepareResources(
                      NodePrepareResourcesRequest.newBuilder().addClaims(claim).build())
                  .getClaimsOrThrow(claim.getUid());
          prepareNanos[i] = System.nanoTime() - t;
          if (!r.getError().isEmpty()) {
            throw new IllegalStateException("prepare failed: " + r.getError());
          }
          stub.nodeUnprepareResources(
              NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build());
        }
        // Footprint after a long life: the same few claims prepared and unprepared again and
        // again (a repeated prepare after an unprepare is a fresh prepare).
        for (int i = 0; i < pairs; i++) {
          Claim claim = claims.get(i % 8);
          stub.nodePrepareResources(
              NodePrepareResourcesRequest.newBuilder().addClaims(claim).build());
          stub.nodeUnprepareResources(
              NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build());
        }
        for (int i = 0; i < newConnections; i++) {
          Claim claim = claims.get(i % 8);
          ManagedChannel fresh = UdsChannels.open(plugin.resolve("dra.sock"), group);
          try {
            DRAPluginGrpc.DRAPluginBlockingStub s = DRAPluginGrpc.newBlockingStub(fresh);
            s.nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder().addClaims(claim).build());
            s.nodeUnprepareResources(
                NodeUnprepareResourcesRequest.newBuilder().addClaims(claim).build());
          } finally {
            fresh.shutdownNow();
          }
        }
        long rssEnd = rssKb(driver.pid(), "VmRSS:");
        // Mapped files (the jar, the class-data archive, the JDK's modules) count in RSS but are
        // page cache the kernel can drop and other processes share.
        long rssEndFile = rssKb(driver.pid(), "RssFile:");
        double[] warm = new double[calls];
        for (int i = 0; i < calls; i++) {
          warm[i] = prepareNanos[i + 1] / 1e3;
        }
        return new Run(startMs, prepareNanos[0] / 1e3, median(warm), rssStart, rssEnd, rssEndFile);
      } finally {
        channel.shutdownNow();
      }
    } finally {
      if (driver != null) {
        driver.destroy();
        driver.waitFor(30, TimeUnit.SECONDS);
        driver.destroyForcibly();
      }
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      if (KEEP) {
        System.out.println("kept " + dir);
      } else {
        AtomicFiles.deleteTreeQuietly(dir);
      }
    }
  }

  /**
   * A real API server is a long-running, warm process. The fake one runs in this JVM, fresh for
   * each run: without this, the driver's first GET of a claim and first status apply would also
   * measure the fake server's own first requests. Same requests, other claims.
   */
  private static void warmApiServer(FakeApiServer api, HttpKubeClient client) throws Exception {
    for (int i = 0; i < 300; i++) {
      ResourceClaim c = api.put(ResourceClaim.TYPE, claim("server-warm-up-" + i, i % 8));
      client.get(ResourceClaim.TYPE, "default", c.metadata().name());
      client.apply(
          ResourceClaim.TYPE,
          "default",
          c.metadata().name(),
          "status",
          Map.of(
              "apiVersion",
              "resource.k8s.io/v1",
              "kind",
              "ResourceClaim",
              "metadata",
              Map.of("name", c.metadata().name(), "namespace", "default"),
              "status",
              Map.of(
                  "devices",
                  List.of(
                      Map.of(
                          "driver",
                          DRIVER,
                          "pool",
                          NODE,
                          "device",
                          "gpu-" + (i % 8),
                          "conditions",
                          List.of(
                              Map.of(
                                  "type",
                                  "Ready",
                                  "status",
                                  "True",
                                  "reason",
                                  "Ok",
                                  "message",
                                  "",
                                  "lastTransitionTime",
                                  "2026-01-01T00:00:00Z")))))),
          new ApplyOptions("bench-warm-up", true));
    }
  }

  private static boolean answers(Path socket, MultiThreadIoEventLoopGroup group) {
    ManagedChannel channel = UdsChannels.open(socket, group);
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(1, TimeUnit.SECONDS)
          .getInfo(InfoRequest.getDefaultInstance());
      return true;
    } catch (StatusRuntimeException e) {
      return false;
    } finally {
      channel.shutdownNow();
    }
  }

  private static ResourceClaim claim(String name, int device) {
    ObjectMeta meta = ObjectMeta.named("default", name);
    AllocationResult allocation =
        AllocationResult.of(
            DeviceAllocationResult.of(
                List.of(DeviceRequestAllocationResult.of("gpu", DRIVER, NODE, "gpu-" + device)),
                List.of()),
            null);
    return ResourceClaim.of(meta, ResourceClaimSpec.of(DeviceClaim.of(List.of())))
        .withStatus(new ResourceClaimStatus(Optional.of(allocation), null, null, null));
  }

  private static long rssKb(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static String arg(String[] args, String name, String defaultValue) {
    return args(args, name).stream().findFirst().orElse(defaultValue);
  }

  private static List<String> args(String[] args, String name) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < args.length - 1; i++) {
      if (args[i].equals(name)) {
        values.add(args[i + 1]);
      }
    }
    return values;
  }
}
