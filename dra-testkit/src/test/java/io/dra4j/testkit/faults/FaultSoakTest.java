package io.dra4j.testkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Pool;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import io.dra4j.testkit.load.Resources;
import io.dra4j.testkit.slices.PublishedSlices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault soak: four drivers of one node pool set (node-1 to node-4, the fake provider, four
 * devices each) talk to the API server through one {@link FaultProxy} each, all following one
 * {@link FaultPlan} (throttling, errors, conflicts, slow answers, resets, cut watches, a 30 s
 * outage every 5 minutes). A kubelet per node prepares and unprepares every claim all the time,
 * retrying failures as the kubelet does, while devices flap between healthy and unhealthy.
 *
 * <p>Checks at the end: every prepare and unprepare succeeded, at once or on a retry; no claim
 * status was missing after a successful prepare; once the faults stop, every node's slices equal
 * its driver's inventory and are valid; no driver's requests ever went beyond its client's rate
 * limit; threads, file descriptors and heap are back to their baseline.
 *
 * <p>Off by default. {@code -Ddra4j.soak} runs 10 minutes, {@code -Ddra4j.soak=30m} the long mode,
 * {@code -Ddra4j.soak=2m} the CI run (see the README).
 */
@EnabledIfSystemProperty(named = "dra4j.soak", matches = ".*")
class FaultSoakTest {
  static final String DRIVER = "gpu.example.com";
  static final int NODES = 4;
  static final int DEVICES = 4;
  static final double QPS = 20;
  static final int BURST = 40;

  /**
   * How late a request may reach the proxy after it took its token: connection set-up and thread
   * scheduling on a busy 2-core machine. Arrivals bunched by that much look like a burst beyond the
   * bucket (at most {@code QPS * RATE_JITTER} requests) without the client having sent one.
   */
  static final Duration RATE_JITTER = Duration.ofMillis(500);

  static final Duration RECOVERY_DELAY = Duration.ofSeconds(1);
  static final Duration OUTAGE = Duration.ofSeconds(30);
  static final Duration OUTAGE_EVERY = Duration.ofMinutes(5);

  /** The kubelet gives up on one prepare or unprepare after this long (it never does; we must). */
  static final Duration GIVE_UP = Duration.ofSeconds(150);

  static final Duration SETTLE = Duration.ofSeconds(90);

  @TempDir Path tmp;

  /** One node: its proxy, client, driver and kubelet. */
  record NodeRig(
      String name,
      FaultProxy proxy,
      HttpKubeClient client,
      FakeDeviceProvider provider,
      DraDriver driver,
      KubeletSimulator kubelet,
      Path cdiDir,
      Path pluginDir) {}

  /** What the kubelets saw. */
  static final class Tally {
    final AtomicLong prepares = new AtomicLong();
    final AtomicLong prepareAttempts = new AtomicLong();
    final AtomicLong preparesRetried = new AtomicLong();
    final AtomicLong preparesSucceeded = new AtomicLong();
    final AtomicLong unprepares = new AtomicLong();
    final AtomicLong unprepareAttempts = new AtomicLong();
    final AtomicLong unpreparesRetried = new AtomicLong();
    final AtomicLong gaveUp = new AtomicLong();
    final AtomicLong statusMissing = new AtomicLong();
    final List<String> problems = new ArrayList<>();

    synchronized void problem(String p) {
      if (problems.size() < 20) {
        problems.add(p);
      }
    }
  }

  @Test
  void driversSurviveTheFaultPlan() throws Exception {
    Duration duration = duration(System.getProperty("dra4j.soak", ""));
    long seed = Long.getLong("dra4j.soak.seed", System.nanoTime());
    FaultPlan.Builder pb =
        FaultPlan.builder(seed)
            .rate(Fault.THROTTLE, 0.03)
            .rate(Fault.SERVER_ERROR, 0.02)
            .rate(Fault.UNAVAILABLE, 0.02)
            .rate(Fault.CONFLICT, 0.04)
            .rate(Fault.SLOW, 0.02)
            .rate(Fault.RESET, 0.01)
            .rate(Fault.RESET_AFTER, 0.01)
            .rate(Fault.WATCH_DROP, 0.3);
    // An outage 30 s in, then every 5 minutes, each ending well before the quiet period.
    for (Duration at = Duration.ofSeconds(30);
        at.plus(OUTAGE).plusSeconds(30).compareTo(duration) <= 0;
        at = at.plus(OUTAGE_EVERY)) {
      pb.outage(at, OUTAGE);
    }
    FaultPlan plan = pb.build();
    System.out.println("soak: " + duration.toSeconds() + " s, " + plan);

    try (FakeApiServer api = FakeApiServer.start();
        HttpKubeClient direct = api.newClient()) {
      List<NodeRig> rigs = new ArrayList<>();
      ExecutorService kubelets = Executors.newCachedThreadPool();
      try {
        for (int n = 1; n <= NODES; n++) {
          rigs.add(startNode(api, plan, "node-" + n));
        }
        Map<NodeRig, List<ClaimRef>> claims = new java.util.LinkedHashMap<>();
        for (NodeRig rig : rigs) {
          List<ClaimRef> refs = new ArrayList<>();
          for (int d = 0; d < DEVICES; d++) {
            refs.add(seedClaim(api, rig.name(), "gpu-" + d));
          }
          claims.put(rig, refs);
        }
        // Warm-up without faults: every claim once, then the baseline.
        Tally warm = new Tally();
        for (NodeRig rig : rigs) {
          PluginInstance plugin = rig.kubelet().awaitPlugin(DRIVER, Duration.ofSeconds(60));
          for (ClaimRef ref : claims.get(rig)) {
            cycle(plugin, direct, rig.name(), ref, warm);
          }
        }
        assertThat(warm.gaveUp).hasValue(0);
        Resources baseline = Resources.now();
        System.out.println("soak: baseline " + baseline);

        AtomicBoolean running = new AtomicBoolean(true);
        Tally tally = new Tally();
        List<Future<?>> loops = new ArrayList<>();
        for (NodeRig rig : rigs) {
          PluginInstance plugin = rig.kubelet().awaitPlugin(DRIVER, Duration.ofSeconds(60));
          for (ClaimRef ref : claims.get(rig)) {
            loops.add(
                kubelets.submit(
                    () -> {
                      while (running.get()) {
                        cycle(plugin, direct, rig.name(), ref, tally);
                        pause(50);
                      }
                      return null;
                    }));
          }
          Random random = new Random(seed + rigs.indexOf(rig));
          loops.add(kubelets.submit(() -> flap(rig, running, random)));
        }
        plan.start();
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
          Thread.sleep(1000); // the point: the soak lasts its duration
        }
        running.set(false);
        for (Future<?> f : loops) {
          f.get();
        }
        plan.stop();
        for (NodeRig rig : rigs) {
          for (int d = 0; d < DEVICES; d++) {
            rig.provider().health().markHealthy("gpu-" + d);
          }
        }

        report(rigs, tally);
        assertThat(tally.problems).as("problems").isEmpty();
        assertThat(tally.gaveUp).as("prepares or unprepares that never succeeded").hasValue(0);
        assertThat(tally.statusMissing).as("claim statuses lost").hasValue(0);
        assertThat(tally.preparesSucceeded.get()).isEqualTo(tally.prepares.get());

        for (NodeRig rig : rigs) {
          // Every claim ended unprepared: nothing may be left on the node.
          assertThat(files(rig.cdiDir())).as(rig.name() + " CDI specs").isEmpty();
          assertThat(files(rig.pluginDir().resolve("checkpoints")))
              .as(rig.name() + " checkpoint records")
              .isEmpty();
          double excess = rig.proxy().rateExcess(QPS, BURST);
          assertThat(excess)
              .as(rig.name() + ": requests beyond " + QPS + " QPS, burst " + BURST)
              .isLessThanOrEqualTo(QPS * RATE_JITTER.toMillis() / 1000.0);
        }
        for (NodeRig rig : rigs) {
          Await.until(
              rig.name() + "'s slices equal its inventory", SETTLE, () -> slicesMatch(direct, rig));
          String nodeUid = direct.get(io.dra4j.kube.Node.TYPE, "", rig.name()).metadata().uid();
          PublishedSlices.onNode(api, DRIVER, rig.name())
              .assertValid(Optional.of(rig.name()), nodeUid);
        }
        Resources after = Resources.settled(baseline, SETTLE);
        System.out.println("soak: after " + after);
        assertThat(after.threads())
            .as("threads")
            .isLessThanOrEqualTo(baseline.threads() + Resources.THREAD_SLACK);
        assertThat(after.fds())
            .as("file descriptors")
            .isLessThanOrEqualTo(baseline.fds() + Resources.FD_SLACK);
        assertThat(after.heapBytes())
            .as("heap after GC")
            .isLessThanOrEqualTo(Resources.heapLimit(baseline));
      } finally {
        kubelets.shutdownNow();
        for (NodeRig rig : rigs) {
          rig.driver().close();
          rig.kubelet().close();
          rig.client().close();
          rig.proxy().close();
          rig.provider().close();
        }
      }
    }
  }

  private NodeRig startNode(FakeApiServer api, FaultPlan plan, String node) throws Exception {
    api.putNode(node);
    FaultProxy proxy = FaultProxy.builder(api.url()).plan(plan).name(node).build().start();
    HttpKubeClient client =
        HttpKubeClient.builder(
                KubeConfig.builder(proxy.url()).token(api.token()).source(node + " proxy").build())
            .rateLimit(QPS, BURST)
            .build();
    Path root = Files.createDirectories(tmp.resolve(node));
    Path registry = Files.createDirectories(root.resolve("registry"));
    Path cdi = Files.createDirectories(root.resolve("cdi"));
    Path plugin = root.resolve("plugin");
    KubeletSimulator kubelet = KubeletSimulator.start(registry);
    FakeDeviceProvider provider = new FakeDeviceProvider();
    DraDriver driver =
        DraDriver.builder()
            .driverName(DRIVER)
            .nodeName(node)
            .provider(provider)
            .kubeClient(client)
            .config(FakeDeviceProvider.CONFIG_DEVICES, String.valueOf(DEVICES))
            .registrarDirectory(registry)
            .pluginDirectory(plugin)
            .cdiDirectory(cdi)
            .healthRecoveryDelay(RECOVERY_DELAY)
            .warmUp(false)
            .build();
    driver.start();
    assertThat(driver.awaitPublished(Duration.ofSeconds(60))).as(node + " published").isTrue();
    return new NodeRig(node, proxy, client, provider, driver, kubelet, cdi, plugin);
  }

  private static ClaimRef seedClaim(FakeApiServer api, String node, String device) {
    String name = node + "-" + device;
    ResourceClaim claim =
        ResourceClaim.of(ObjectMeta.named("soak", name), null)
            .withStatus(
                new ResourceClaimStatus(
                    Optional.of(
                        AllocationResult.of(
                            DeviceAllocationResult.of(
                                List.of(
                                    DeviceRequestAllocationResult.of("gpu", DRIVER, node, device)),
                                List.of()),
                            null)),
                    null,
                    null,
                    null));
    ResourceClaim stored = api.put(ResourceClaim.TYPE, claim);
    return ClaimRef.of("soak", name, stored.metadata().uid());
  }

  /** One prepare then one unprepare, each retried until it succeeds, as the kubelet does. */
  private static void cycle(
      PluginInstance plugin, HttpKubeClient direct, String node, ClaimRef ref, Tally t) {
    t.prepares.incrementAndGet();
    int attempts = retry(() -> prepared(plugin, ref), t.prepareAttempts);
    if (attempts < 0) {
      t.gaveUp.incrementAndGet();
      t.problem("prepare of " + ref + " never succeeded");
      return;
    }
    t.preparesSucceeded.incrementAndGet();
    if (attempts > 1) {
      t.preparesRetried.incrementAndGet();
    }
    String device = ref.name().substring(node.length() + 1);
    try {
      ResourceClaim stored = direct.get(ResourceClaim.TYPE, ref.namespace(), ref.name());
      boolean present =
          stored.status().devices().stream()
              .anyMatch(
                  s ->
                      s.driver().equals(DRIVER)
                          && s.pool().equals(node)
                          && s.device().equals(device)
                          && !s.conditions().isEmpty());
      if (!present) {
        t.statusMissing.incrementAndGet();
        t.problem("claim " + ref + " prepared, but its status is missing: " + stored.status());
      }
    } catch (Exception e) {
      t.problem("reading claim " + ref + " directly failed: " + e);
    }
    t.unprepares.incrementAndGet();
    int u = retry(() -> unprepared(plugin, ref), t.unprepareAttempts);
    if (u < 0) {
      t.gaveUp.incrementAndGet();
      t.problem("unprepare of " + ref + " never succeeded");
    } else if (u > 1) {
      t.unpreparesRetried.incrementAndGet();
    }
  }

  private static boolean prepared(PluginInstance plugin, ClaimRef ref) {
    ClaimResult r = plugin.prepare(List.of(ref)).get(ref.uid());
    return r != null && r.isOk();
  }

  private static boolean unprepared(PluginInstance plugin, ClaimRef ref) {
    return plugin
        .unprepare(List.of(ref))
        .getOrDefault(ref.uid(), Optional.of("no answer"))
        .isEmpty();
  }

  /** Attempts until {@code call} succeeds; returns the attempts, or -1 after {@link #GIVE_UP}. */
  private static int retry(BooleanSupplier call, AtomicLong attempts) {
    long deadline = System.nanoTime() + GIVE_UP.toNanos();
    long backoff = 100;
    for (int n = 1; ; n++) {
      attempts.incrementAndGet();
      try {
        if (call.getAsBoolean()) {
          return n;
        }
      } catch (RuntimeException e) {
        // UNAVAILABLE, DEADLINE_EXCEEDED: the kubelet retries those too
      }
      if (System.nanoTime() > deadline) {
        return -1;
      }
      pause(backoff);
      backoff = Math.min(2000, backoff * 2);
    }
  }

  /** Marks a random device unhealthy and healthy again, every second or two. */
  private static Void flap(NodeRig rig, AtomicBoolean running, Random random) {
    while (running.get()) {
      String device = "gpu-" + random.nextInt(DEVICES);
      rig.provider().health().markUnhealthy(device, "SoakFlap", "flapping in the soak");
      pause(500 + random.nextInt(1500));
      rig.provider().health().markHealthy(device);
      pause(500 + random.nextInt(1500));
    }
    return null;
  }

  /** The node's slices in the API server hold exactly its driver's published devices. */
  private static boolean slicesMatch(HttpKubeClient direct, NodeRig rig) {
    List<Device> expected = new ArrayList<>();
    for (Pool p : rig.driver().publishedInventory()) {
      expected.addAll(p.devices());
    }
    try {
      List<Device> actual = new ArrayList<>();
      for (ResourceSlice s :
          direct
              .list(
                  ResourceSlice.TYPE,
                  "",
                  ListOptions.fields("spec.driver=" + DRIVER + ",spec.nodeName=" + rig.name()))
              .items()) {
        actual.addAll(s.spec().devices());
      }
      return actual.size() == expected.size()
          && actual.containsAll(expected)
          && expected.stream().allMatch(d -> d.taints().isEmpty());
    } catch (Exception e) {
      return false;
    }
  }

  private static void report(List<NodeRig> rigs, Tally t) {
    Map<Fault, Long> faults = new EnumMap<>(Fault.class);
    long requests = 0;
    long watches = 0;
    for (NodeRig rig : rigs) {
      rig.proxy().injected().forEach((k, v) -> faults.merge(k, v, Long::sum));
      requests += rig.proxy().requests();
      watches += rig.proxy().watches();
      System.out.printf(
          "soak: %s: %d requests (%d not answered by the server), peak %d/s, rate excess %.2f,"
              + " client retries %d, throttled %d%n",
          rig.name(),
          rig.proxy().requests(),
          rig.proxy().upstreamFailures(),
          rig.proxy().peakPerSecond(),
          rig.proxy().rateExcess(QPS, BURST),
          rig.client().retriedAttempts(),
          rig.client().throttledCalls());
    }
    // Outages are counted by each proxy; they are one event of the plan.
    faults.put(Fault.OUTAGE, faults.get(Fault.OUTAGE) / rigs.size());
    System.out.println(
        "soak: requests " + requests + ", watches " + watches + ", faults " + faults);
    System.out.printf(
        "soak: prepares %d (attempts %d, succeeded %d, retried %d), unprepares %d (attempts %d,"
            + " retried %d), gave up %d, statuses missing %d%n",
        t.prepares.get(),
        t.prepareAttempts.get(),
        t.preparesSucceeded.get(),
        t.preparesRetried.get(),
        t.unprepares.get(),
        t.unprepareAttempts.get(),
        t.unpreparesRetried.get(),
        t.gaveUp.get(),
        t.statusMissing.get());
  }

  static Duration duration(String value) {
    // A bare -Ddra4j.soak on Maven's command line arrives as "true".
    if (value.isBlank() || value.equals("true")) {
      return Duration.ofMinutes(10);
    }
    String v = value.trim();
    long n = Long.parseLong(v.substring(0, v.length() - 1));
    return switch (v.charAt(v.length() - 1)) {
      case 's' -> Duration.ofSeconds(n);
      case 'm' -> Duration.ofMinutes(n);
      case 'h' -> Duration.ofHours(n);
      default ->
          throw new IllegalArgumentException(
              "dra4j.soak: a duration such as 90s, 10m or 1h, not " + value);
    };
  }

  private static List<Path> files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  /** Paces the load (the kubelet's retries, the flapping devices): the point, not a wait. */
  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
