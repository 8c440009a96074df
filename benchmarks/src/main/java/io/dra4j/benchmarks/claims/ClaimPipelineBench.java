package io.dra4j.benchmarks.claims;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.runtime.cdi.CdiKind;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.CheckpointStore;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import io.dra4j.runtime.internal.claims.ClaimPreparer;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The claim preparation pipeline through the full stack: kubelet simulator → Unix socket →
 * KubeletPluginServer → ClaimPreparer (checkpoint, CDI spec) → fake API server over HTTP → a no-op
 * provider (one env edit per device, so a CDI spec is written).
 *
 * <ol>
 *   <li>Latency of prepare + unprepare of one claim with one device (median, p99).
 *   <li>Throughput with N concurrent kubelet callers, serialized provider vs thread-safe provider.
 *   <li>Prepare cost with 10 and with 10,000 claims already prepared (records written directly,
 *       then recovered), median of many prepares.
 * </ol>
 *
 * <p>Arguments (optional): {@code --cycles N} (latency, default 2000), {@code --callers N} (default
 * 8), {@code --per-caller N} (default 150), {@code --prepared N} (default 10000), {@code --samples
 * N} (default 400).
 */
public final class ClaimPipelineBench {

  static final String DRIVER = "bench.example.com";

  private ClaimPipelineBench() {}

  /** A provider that does nothing but return one env edit per device. */
  static final class NoOpProvider implements DeviceProvider {
    private final boolean threadSafe;

    NoOpProvider(boolean threadSafe) {
      this.threadSafe = threadSafe;
    }

    @Override
    public Inventory discover(ProviderContext context) {
      throw new UnsupportedOperationException();
    }

    @Override
    public PrepareResult prepare(ClaimAllocation allocation) {
      List<PreparedDevice> out = new ArrayList<>();
      for (AllocatedDevice d : allocation.devices()) {
        out.add(PreparedDevice.of(d, ContainerEdits.builder().env("DEV", d.device()).build()));
      }
      return PrepareResult.of(out);
    }

    @Override
    public void unprepare(PreparedClaim claim) {}

    @Override
    public boolean threadSafe() {
      return threadSafe;
    }
  }

  /** One driver stack in a fresh directory. */
  static final class Stack implements AutoCloseable {
    final Path root;
    final FakeApiServer api = FakeApiServer.start();
    final HttpKubeClient client;
    final KubeletSimulator kubelet;
    final ClaimPreparer preparer;
    final KubeletPluginServer server;
    final PluginInstance plugin;

    Stack(boolean threadSafe, int alreadyPrepared) throws Exception {
      root = Files.createTempDirectory("dra4j-claims-bench");
      Path pluginDir = root.resolve("plugins").resolve(DRIVER);
      Files.createDirectories(root.resolve("registry"));
      Path boot = root.resolve("boot_id");
      Files.writeString(boot, "bench-boot\n");
      if (alreadyPrepared > 0) {
        CheckpointStore store = CheckpointStore.open(pluginDir, boot);
        // Each claim already prepared has its record and its CDI spec, as on a busy node: the
        // CDI directory is as full as the checkpoint directory.
        Path cdi = Files.createDirectories(root.resolve("cdi"));
        CdiKind kind = CdiKind.forDriver(DRIVER);
        for (int i = 0; i < alreadyPrepared; i++) {
          String uid = String.format("00000000-0000-4000-8000-%012d", i);
          String device = uid + "-dev-" + i;
          Files.writeString(
              cdi.resolve(kind.transientSpecFileName(uid)),
              "{\"cdiVersion\":\"0.3.0\",\"kind\":\""
                  + kind
                  + "\",\"devices\":[{\"name\":\""
                  + device
                  + "\",\"containerEdits\":{\"env\":[\"DEV=1\"]}}]}\n");
          store.write(
              ClaimCheckpoint.started(
                      ClaimRef.of("old", "c" + i, uid),
                      DRIVER,
                      List.of(oldDevice(i, List.of())),
                      "bench-boot",
                      Instant.now())
                  .completed(
                      List.of(oldDevice(i, List.of(kind.qualify(device)))),
                      "bench-boot",
                      Instant.now()));
        }
      }
      client = api.newClient();
      kubelet = KubeletSimulator.start(root.resolve("registry"), Duration.ofMillis(20));
      preparer =
          ClaimPreparer.builder()
              .driverName(DRIVER)
              .provider(new NoOpProvider(threadSafe))
              .kubeClient(client)
              .pluginDataDirectory(pluginDir)
              .cdiDirectory(root.resolve("cdi"))
              .devRoot(root.resolve("dev"))
              .bootIdFile(boot)
              .build();
      preparer.recover();
      server =
          KubeletPluginServer.builder()
              .driverName(DRIVER)
              .registrarDirectory(root.resolve("registry"))
              .pluginDataDirectory(pluginDir)
              .nodeService(preparer)
              .start();
      plugin = kubelet.awaitPluginAt(server.registrationSocket(), Duration.ofSeconds(30));
    }

    ClaimRef seed(String name, String device) {
      ResourceClaim c =
          ResourceClaim.of(ObjectMeta.named("bench", name), null)
              .withStatus(
                  new ResourceClaimStatus(
                      Optional.of(
                          AllocationResult.of(
                              DeviceAllocationResult.of(
                                  List.of(
                                      DeviceRequestAllocationResult.of(
                                          "gpu", DRIVER, "pool", device)),
                                  List.of()),
                              null)),
                      null,
                      null,
                      null));
      return ClaimRef.of("bench", name, api.put(ResourceClaim.TYPE, c).metadata().uid());
    }

    void prepare(ClaimRef c) {
      var r = plugin.prepare(List.of(c)).get(c.uid());
      if (!r.isOk()) {
        throw new IllegalStateException("prepare failed: " + r.error().get());
      }
    }

    void unprepare(ClaimRef c) {
      var r = plugin.unprepare(List.of(c)).get(c.uid());
      if (r.isPresent()) {
        throw new IllegalStateException("unprepare failed: " + r.get());
      }
    }

    /** An already-prepared claim's device in the old pool, with its CDI ids. */
    private static CheckpointDevice oldDevice(int i, List<String> cdiIds) {
      return new CheckpointDevice(
          "gpu",
          "old-pool",
          "dev-" + i,
          Optional.empty(),
          false,
          cdiIds,
          Map.of(),
          Optional.empty());
    }

    @Override
    public void close() throws Exception {
      server.close();
      kubelet.close();
      client.close();
      api.close();
      AtomicFiles.deleteTree(root);
    }
  }

  public static void main(String[] args) throws Exception {
    int cycles = intArg(args, "--cycles", 2000);
    int callers = intArg(args, "--callers", 8);
    int perCaller = intArg(args, "--per-caller", 150);
    int prepared = intArg(args, "--prepared", 10000);
    int samples = intArg(args, "--samples", 400);

    try (Stack s = new Stack(false, 0)) {
      ClaimRef c = s.seed("latency", "dev-0");
      for (int i = 0; i < Math.max(200, cycles / 5); i++) {
        s.prepare(c);
        s.unprepare(c);
      }
      long[] ns = new long[cycles];
      for (int i = 0; i < cycles; i++) {
        long t0 = System.nanoTime();
        s.prepare(c);
        s.unprepare(c);
        ns[i] = System.nanoTime() - t0;
      }
      System.out.printf(
          "latency prepare+unprepare (1 claim, 1 device, %d cycles): median %.3f ms, p99 %.3f ms%n",
          cycles, pct(ns, 50) / 1e6, pct(ns, 99) / 1e6);
    }

    for (boolean threadSafe : new boolean[] {false, true}) {
      try (Stack s = new Stack(threadSafe, 0)) {
        List<ClaimRef> claims = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
          claims.add(s.seed("t" + i, "dev-" + i));
        }
        runCallers(s, claims, Math.max(20, perCaller / 5)); // warm-up
        long t0 = System.nanoTime();
        runCallers(s, claims, perCaller);
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
            "throughput %s, %d callers x %d prepare+unprepare: %.0f claims/s (%.2f s)%n",
            threadSafe ? "parallel (threadSafe provider)" : "serialized",
            callers,
            perCaller,
            callers * perCaller / secs,
            secs);
      }
    }

    int[] sizes = {10, prepared};
    double[] medians = new double[sizes.length];
    for (int k = 0; k < sizes.length; k++) {
      int already = sizes[k];
      long t0 = System.nanoTime();
      try (Stack s = new Stack(false, already)) {
        double setup = (System.nanoTime() - t0) / 1e9;
        ClaimRef warm = s.seed("warm", "dev-w");
        for (int i = 0; i < 100; i++) {
          s.prepare(warm);
          s.unprepare(warm);
        }
        long[] ns = new long[samples];
        for (int i = 0; i < samples; i++) {
          ClaimRef c = s.seed("scale-" + i, "dev-s" + i);
          long t = System.nanoTime();
          s.prepare(c);
          ns[i] = System.nanoTime() - t;
        }
        System.out.printf(
            "prepare with %d claims already prepared (%d samples, setup %.1f s): median %.3f ms,"
                + " p99 %.3f ms%n",
            already, samples, setup, pct(ns, 50) / 1e6, pct(ns, 99) / 1e6);
        medians[k] = pct(ns, 50);
      }
    }
    System.out.printf(
        "per-claim prepare cost, %d vs %d claims already prepared: median ratio %.2f (target:"
            + " within 0.80-1.20)%n",
        sizes[1], sizes[0], medians[1] / medians[0]);
  }

  private static void runCallers(Stack s, List<ClaimRef> claims, int each) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(claims.size());
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (ClaimRef c : claims) {
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    s.prepare(c);
                    s.unprepare(c);
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static long pct(long[] values, int p) {
    long[] v = values.clone();
    Arrays.sort(v);
    return v[Math.min(v.length - 1, (int) Math.ceil(p / 100.0 * v.length) - 1)];
  }

  private static int intArg(String[] args, String name, int def) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return Integer.parseInt(args[i + 1]);
      }
    }
    return def;
  }
}
