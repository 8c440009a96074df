package io.dra4j.benchmarks.slices;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.Pool;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.runtime.internal.slices.LayoutOptions;
import io.dra4j.runtime.internal.slices.SliceLayout;
import io.dra4j.runtime.internal.slices.SlicePublisher;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.validation.PoolValidator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * End-to-end cost of publishing a node's devices with {@link SlicePublisher} into an in-process
 * {@link FakeApiServer} over real HTTP (loopback): API writes of the initial publish, of an
 * unchanged re-publish (must be 0) and of a one-device change (must be 1), and wall time per device
 * of the initial publish at 1,000 and 10,000 devices (median of several repetitions, each on a
 * fresh server; the ratio should stay below 1.2).
 *
 * <p>The client's rate limit is raised explicitly ({@code --qps}, default 100,000), so that only
 * the publisher is measured. {@code --default-rate-limit} runs one extra publish of 10,000 devices
 * with the client's default (50 QPS, burst 100) to show what a driver sees.
 *
 * <p>Run: see {@code benchmarks/README.md}.
 */
public final class PublishBench {
  private static final String DRIVER = "gpu.example.com";
  private static final String NODE = "bench-node";
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final String NODELAY = "sun.net.httpserver.nodelay";

  private PublishBench() {}

  /** One initial publish and what followed it. */
  record Run(
      int devices,
      int slices,
      long initialWrites,
      long initialNanos,
      long republishWrites,
      long republishNanos,
      long changeWrites,
      long changeNanos,
      long pureNanos,
      long writeCallNanos,
      long cpuNanos,
      long gcCount,
      long gcNanos) {
    double nanosPerDevice() {
      return (double) initialNanos / devices;
    }
  }

  public static void main(String[] args) throws Exception {
    // The fake API server runs on the JDK's HttpServer, which leaves Nagle's algorithm on: a
    // response written in two parts then waits for the client's delayed ACK (40 ms on Linux), and
    // every slice write took ~48 ms. Real API servers (Go) set TCP_NODELAY. Read once, before the
    // first server starts.
    if (System.getProperty(NODELAY) == null) {
      System.setProperty(NODELAY, "true");
    }
    int reps = 7;
    int warmup = 3;
    double qps = 100_000;
    boolean defaultRateLimit = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--warmup" -> warmup = Integer.parseInt(args[++i]);
        case "--qps" -> qps = Double.parseDouble(args[++i]);
        case "--default-rate-limit" -> defaultRateLimit = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    int[] sizes = {1_000, 10_000};
    System.out.printf(
        Locale.ROOT,
        "SlicePublisher into an in-process fake API server; client rate limit %.0f QPS;"
            + " %s=%s; %d warm-up rounds, %d measured rounds%n",
        qps,
        NODELAY,
        System.getProperty(NODELAY),
        warmup,
        reps);
    for (int w = 0; w < warmup; w++) {
      for (int n : sizes) {
        run(n, qps);
      }
    }
    List<List<Run>> runs = new ArrayList<>();
    for (int n : sizes) {
      runs.add(new ArrayList<>());
    }
    for (int r = 0; r < reps; r++) {
      for (int s = 0; s < sizes.length; s++) {
        runs.get(s).add(run(sizes[s], qps));
      }
    }
    double[] medians = new double[sizes.length];
    double[] cpuMedians = new double[sizes.length];
    System.out.printf(
        Locale.ROOT,
        "%7s %6s %7s %9s %8s %8s %9s %9s %8s %7s %7s %7s %7s%n",
        "devices",
        "slices",
        "writes",
        "wall ms",
        "wall",
        "cpu",
        "in-write",
        "gc",
        "pure",
        "re-pub",
        "re-pub",
        "change",
        "change");
    System.out.printf(
        Locale.ROOT,
        "%7s %6s %7s %9s %8s %8s %9s %9s %8s %7s %7s %7s %7s%n",
        "",
        "",
        "initial",
        "initial",
        "us/dev",
        "us/dev",
        "ms",
        "n / ms",
        "us/dev",
        "writes",
        "ms",
        "writes",
        "ms");
    for (int s = 0; s < sizes.length; s++) {
      List<Run> rs = runs.get(s);
      medians[s] = median(rs.stream().map(Run::nanosPerDevice).toList());
      cpuMedians[s] = median(rs.stream().map(r -> (double) r.cpuNanos() / r.devices()).toList());
      System.out.printf(
          Locale.ROOT,
          "%7d %6d %7s %9.1f %8.1f %8.1f %9.1f %9s %8.1f %7s %7.1f %7s %7.1f%n",
          sizes[s],
          rs.get(0).slices(),
          distinct(rs.stream().map(Run::initialWrites).toList()),
          median(rs.stream().map(r -> r.initialNanos() / 1e6).toList()),
          medians[s] / 1e3,
          cpuMedians[s] / 1e3,
          median(rs.stream().map(r -> r.writeCallNanos() / 1e6).toList()),
          String.format(
              Locale.ROOT,
              "%.0f/%.0f",
              median(rs.stream().map(r -> (double) r.gcCount()).toList()),
              median(rs.stream().map(r -> r.gcNanos() / 1e6).toList())),
          median(rs.stream().map(r -> (double) r.pureNanos() / r.devices()).toList()) / 1e3,
          distinct(rs.stream().map(Run::republishWrites).toList()),
          median(rs.stream().map(r -> r.republishNanos() / 1e6).toList()),
          distinct(rs.stream().map(Run::changeWrites).toList()),
          median(rs.stream().map(r -> r.changeNanos() / 1e6).toList()));
    }
    System.out.printf(
        Locale.ROOT,
        "cost per device, 10,000 vs 1,000 devices (medians): wall %.2fx, cpu %.2fx (target <="
            + " 1.20)%n",
        medians[1] / medians[0],
        cpuMedians[1] / cpuMedians[0]);
    if (defaultRateLimit) {
      Run r = run(10_000, 0);
      System.out.printf(
          Locale.ROOT,
          "with the client's default rate limit (50 QPS, burst 100): 10,000 devices take %.1f s"
              + " (%.1f us/device)%n",
          r.initialNanos() / 1e9,
          r.nanosPerDevice() / 1e3);
    }
  }

  /**
   * Publishes {@code n} devices into a fresh server, then republishes and changes one device.
   *
   * @param qps the client rate limit; 0 for the client's default
   */
  static Run run(int n, double qps) throws Exception {
    List<Device> devices = devices(n);
    try (FakeApiServer server =
        FakeApiServer.builder().historyLimit(100_000).build().startServer()) {
      String uid =
          server.put(Node.TYPE, Node.of(ObjectMeta.named("", NODE), null)).metadata().uid();
      HttpKubeClient.Builder cb = server.clientBuilder().callTimeout(Duration.ofMinutes(1));
      if (qps > 0) {
        cb.rateLimit(qps, (int) Math.min(Integer.MAX_VALUE, qps));
      }
      try (HttpKubeClient http = cb.build();
          TimedClient client = new TimedClient(http);
          SlicePublisher publisher =
              SlicePublisher.builder(client, DRIVER).nodeName(NODE).ownerUid(uid).build()) {
        publisher.start();
        // The informer's first list and watch are not part of the publish.
        long until = System.nanoTime() + WAIT.toNanos();
        while (server.openWatches() == 0) {
          if (System.nanoTime() > until) {
            throw new IllegalStateException("the informer did not start");
          }
          Thread.sleep(1);
        }

        long w0 = server.writes("resourceslices");
        long cpu0 = processCpuNanos();
        long[] gc0 = gc();
        long t0 = System.nanoTime();
        publisher.publish(List.of(Pool.of(NODE, devices)));
        await(publisher);
        long t1 = System.nanoTime();
        long cpu1 = processCpuNanos();
        long[] gc1 = gc();
        long w1 = server.writes("resourceslices");
        long writeCalls = client.writeNanos();

        List<Device> again = devices(n); // equal, not the same objects
        long t1b = System.nanoTime();
        publisher.publish(List.of(Pool.of(NODE, again)));
        await(publisher);
        long t2 = System.nanoTime();
        long w2 = server.writes("resourceslices");

        List<Device> changed = new ArrayList<>(devices);
        changed.set(n / 2, changed.get(n / 2).toBuilder().attribute("healthy", false).build());
        long t3 = System.nanoTime();
        publisher.publish(List.of(Pool.of(NODE, changed)));
        await(publisher);
        long t4 = System.nanoTime();
        long w3 = server.writes("resourceslices");

        // The pure part alone (validation and layout), for comparison.
        Pool pool = Pool.of(NODE, devices(n));
        long p0 = System.nanoTime();
        PoolValidator.validate(DRIVER, List.of(pool));
        int slices = SliceLayout.layout(DRIVER, pool, LayoutOptions.node(NODE)).size();
        long p1 = System.nanoTime();
        return new Run(
            n,
            slices,
            w1 - w0,
            t1 - t0,
            w2 - w1,
            t2 - t1b,
            w3 - w2,
            t4 - t3,
            p1 - p0,
            writeCalls,
            cpu1 - cpu0,
            gc1[0] - gc0[0],
            gc1[1] - gc0[1]);
      }
    }
  }

  /** CPU time of the whole process (all threads: publisher, fake server, informer, GC). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Collections, and nanoseconds spent collecting, over all collectors. */
  private static long[] gc() {
    long count = 0;
    long millis = 0;
    for (java.lang.management.GarbageCollectorMXBean b :
        java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      count += Math.max(0, b.getCollectionCount());
      millis += Math.max(0, b.getCollectionTime());
    }
    return new long[] {count, millis * 1_000_000};
  }

  private static void await(SlicePublisher publisher) throws InterruptedException {
    if (!publisher.awaitIdle(WAIT)) {
      throw new IllegalStateException("the publisher did not finish within " + WAIT);
    }
  }

  /** GPU-like devices with the attributes a real driver publishes. */
  static List<Device> devices(int n) {
    return IntStream.range(0, n)
        .mapToObj(
            i ->
                Device.builder(String.format(Locale.ROOT, "gpu-%05d", i))
                    .attribute("model", "H200")
                    .attribute("index", i)
                    .attribute("uuid", String.format(Locale.ROOT, "GPU-%08x-0000-0000", i))
                    .attribute("healthy", true)
                    .attribute("driverVersion", DeviceAttribute.version("550.54.15"))
                    .attribute(
                        StandardAttributes.PCI_BUS_ID,
                        String.format(Locale.ROOT, "0000:%02x:%02x.0", (i >> 5) & 0xff, i & 0x1f))
                    .attribute(StandardAttributes.PCIE_ROOT, "pci0000:00")
                    .attribute(StandardAttributes.NUMA_NODE, i % 2)
                    .capacity("memory", Quantity.ofBytes(141L << 30))
                    .build())
        .toList();
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int m = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(m) : (sorted.get(m - 1) + sorted.get(m)) / 2;
  }

  private static String distinct(List<Long> values) {
    List<Long> d = values.stream().distinct().sorted().toList();
    return d.size() == 1 ? d.get(0).toString() : d.toString();
  }
}
