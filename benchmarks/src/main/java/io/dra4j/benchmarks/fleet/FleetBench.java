package io.dra4j.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dra4j.benchmarks.fleet.QpsPlot.Marker;
import io.dra4j.benchmarks.fleet.QpsPlot.Series;
import io.dra4j.benchmarks.fleet.RequestCounter.Clock;
import io.dra4j.benchmarks.fleet.ServerMetrics.Sample;
import io.dra4j.benchmarks.fleet.SliceMirror.NodeView;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Pod;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceSlice;
import java.awt.Color;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;

/**
 * The fleet benchmark: N simulated nodes in this JVM, each with its own dra4j driver and kubelet
 * simulator, against the real kube-apiserver, kube-scheduler and kube-controller-manager of {@code
 * e2e/cluster.sh}. Phases, in order: roll-out (for each jitter, on fresh nodes), steady state, an
 * API server outage, health churn, pod bursts with the scheduler's defaults and with {@code
 * SchedulerPreQueueingHints}; then the table on stdout, the figures as JSON and the QPS plots as
 * PNG files. {@code benchmarks/fleet/run.sh} starts the cluster and runs it; see
 * benchmarks/README.md.
 */
public final class FleetBench {
  private static final String USAGE =
      """
      usage: FleetBench --cluster-dir DIR [--nodes 100] [--devices 8] [--jitter 0,30]
          [--steady 120s] [--outage 60s] [--churn 3m] [--flap-rate 0.01] [--flap-hold 5s]
          [--recovery-delay 10s] [--bursts 50,500] [--no-gate-run] [--script e2e/cluster.sh]
          [--work DIR] [--out benchmarks/fleet/target] [--kubelet-poll 500ms] [--seed 1]
          [--phases steady,outage,churn,bursts]   (the roll-outs always run)
      """;

  static final String NAMESPACE = "fleet-burst";
  static final String GATE = "SchedulerPreQueueingHints";
  static final String TAINTED_DEVICE = "gpu-1";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  // Options.
  int nodes = 100;
  int devices = 8;
  List<Integer> jitters = List.of(0, 30);
  Duration steady = Duration.ofSeconds(120);
  Duration outage = Duration.ofSeconds(60);
  Duration churn = Duration.ofMinutes(3);
  double flapRate = 0.01;
  Duration flapHold = Duration.ofSeconds(5);
  Duration recoveryDelay = Duration.ofSeconds(10);
  List<Integer> bursts = List.of(50, 500);
  boolean gateRun = true;
  Path clusterDir;
  Path script = Path.of("e2e/cluster.sh");
  Path work;
  Path out = Path.of("benchmarks/fleet/target");
  Duration kubeletPoll = Duration.ofMillis(500);
  long seed = 1;
  Set<String> phases = Set.of("steady", "outage", "churn", "bursts");

  // Run state.
  private final Clock clock = new Clock(System.nanoTime());
  private final AtomicLongArray driverPerSecond = new AtomicLongArray(4 * 3600);
  private final AtomicLongArray driverFailedPerSecond = new AtomicLongArray(4 * 3600);
  private final List<Long> restarts = Collections.synchronizedList(new ArrayList<>());
  private final List<Marker> markers = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Object> figures = new LinkedHashMap<>();
  private final List<String[]> table = new ArrayList<>();
  private final List<String> details = new ArrayList<>();
  private ControlPlane cp;
  private HttpKubeClient admin;
  private HttpKubeClient kubeletClient;
  private ServerMetrics metrics;
  private SliceMirror mirror;
  private List<SimNode> fleet = List.of();
  private Random random;
  private double rolloutDriverPeak;
  private double rolloutServerPeak;

  public static void main(String[] args) throws Throwable {
    FleetBench b = new FleetBench();
    try {
      b.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("FleetBench: " + e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
    }
    try {
      b.run();
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(1);
    }
    // Netty's and the HTTP clients' threads of closed nodes are daemons, but a stuck one must
    // not keep the run from ending.
    System.exit(0);
  }

  void parse(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--no-gate-run")) {
        gateRun = false;
        continue;
      }
      if (a.equals("--help") || a.equals("-h")) {
        System.out.print(USAGE);
        System.exit(0);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value");
      }
      String v = args[++i];
      switch (a) {
        case "--nodes" -> nodes = positive(a, Integer.parseInt(v));
        case "--devices" -> devices = positive(a, Integer.parseInt(v));
        case "--jitter" -> jitters = ints(v);
        case "--steady" -> steady = duration(v);
        case "--outage" -> outage = duration(v);
        case "--churn" -> churn = duration(v);
        case "--flap-rate" -> flapRate = Double.parseDouble(v);
        case "--flap-hold" -> flapHold = duration(v);
        case "--recovery-delay" -> recoveryDelay = duration(v);
        case "--bursts" -> bursts = v.isEmpty() ? List.of() : ints(v);
        case "--cluster-dir" -> clusterDir = Path.of(v);
        case "--script" -> script = Path.of(v);
        case "--work" -> work = Path.of(v);
        case "--out" -> out = Path.of(v);
        case "--kubelet-poll" -> kubeletPoll = duration(v);
        case "--seed" -> seed = Long.parseLong(v);
        case "--phases" -> phases = Set.of(v.split(","));
        default -> throw new IllegalArgumentException("unknown flag " + a);
      }
    }
    if (clusterDir == null) {
      throw new IllegalArgumentException(
          "--cluster-dir is required (a cluster from cluster.sh up)");
    }
    if (jitters.isEmpty()) {
      throw new IllegalArgumentException("--jitter needs at least one value");
    }
  }

  private static int positive(String flag, int v) {
    if (v < 1) {
      throw new IllegalArgumentException(flag + " must be at least 1, not " + v);
    }
    return v;
  }

  private static List<Integer> ints(String v) {
    List<Integer> out = new ArrayList<>();
    for (String s : v.split(",")) {
      out.add(Integer.parseInt(s.strip()));
    }
    return out;
  }

  static Duration duration(String v) {
    String s = v.strip().toLowerCase(Locale.ROOT);
    if (s.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
    }
    long n = Long.parseLong(s.substring(0, s.length() - 1));
    return switch (s.charAt(s.length() - 1)) {
      case 's' -> Duration.ofSeconds(n);
      case 'm' -> Duration.ofMinutes(n);
      case 'h' -> Duration.ofHours(n);
      default -> throw new IllegalArgumentException("a duration like 500ms, 60s or 3m, not " + v);
    };
  }

  // ------------------------------------------------------------------------------------------
  // The run

  void run() throws Throwable {
    random = new Random(seed);
    long wallStart = System.nanoTime();
    Throwable failure = null;
    setUp();
    try {
      Memory base = Memory.now();
      baselineWatches = watchesOfInformed(metrics.sampleNow());
      for (int i = 0; i < jitters.size(); i++) {
        boolean last = i == jitters.size() - 1;
        rollout(jitters.get(i), "r" + i);
        if (i == 0) {
          memory(base);
        }
        if (!last) {
          tearDownFleet();
        }
      }
      if (phases.contains("steady")) {
        steadyState();
      }
      if (phases.contains("outage")) {
        outage();
      }
      if (phases.contains("churn")) {
        healthChurn();
      }
      if (phases.contains("bursts")) {
        podBursts();
      }
    } catch (Exception | Error e) {
      // What was measured up to here is still worth having.
      row("the run stopped early", "-", e.toString().replace('|', '/').replace('\n', ' '));
      failure = e;
    } finally {
      figures.put("wall_seconds", Math.round((System.nanoTime() - wallStart) / 1e9));
      tearDown();
    }
    writeResults();
    if (failure != null) {
      throw failure;
    }
  }

  private double baselineWatches;

  private void setUp() throws Exception {
    cp = new ControlPlane(clusterDir, script);
    admin = cp.adminClient("dra4j-fleet-harness");
    kubeletClient = cp.adminClient("dra4j-fleet-kubelets");
    if (work == null) {
      work = Files.createTempDirectory("dra4j-fleet-");
    }
    metrics = new ServerMetrics(clusterDir, cp.apiserverPort, 2000).start();
    log("cluster %s, %d nodes x %d devices, work %s", clusterDir, nodes, devices, work);
    int old = ControlPlane.deleteFleetNodes(admin);
    deleteFleetSlices();
    if (old > 0) {
      log("removed %d nodes an earlier run left", old);
    }
    if (phases.contains("bursts")) {
      createIfMissing(
          ControlPlane.NAMESPACES,
          JSON.readTree(
              "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
                  + NAMESPACE
                  + "\"}}"));
      deletePods();
    }
    // The deployment's DeviceClass (examples/fake-driver/deploy/deviceclass.yaml): unchanged pods
    // asking for example.com/gpu are served by DRA.
    createIfMissing(
        ControlPlane.DEVICE_CLASSES,
        JSON.readTree(
            """
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": "gpu.example.com"},
             "spec": {"selectors": [{"cel": {"expression":
                 "device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].type == 'gpu'"}}],
               "extendedResourceName": "example.com/gpu"}}
            """));
    long t = System.nanoTime();
    parallel(
        16,
        names().stream()
            .map(
                n ->
                    (Callable<Void>)
                        () -> {
                          ControlPlane.createNode(admin, n);
                          return null;
                        })
            .toList());
    log("%d Nodes created in %.1f s", nodes, secs(System.nanoTime() - t));
    mirror = new SliceMirror(admin, SimNode.DRIVER).start(Duration.ofSeconds(60));
    Thread.sleep(3000);
  }

  private void createIfMissing(io.dra4j.kube.ResourceType<JsonNode> type, JsonNode object)
      throws KubeException {
    try {
      admin.create(type, object);
    } catch (KubeException e) {
      if (e.status() != 409) {
        throw e;
      }
    }
  }

  private List<String> names() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      out.add(String.format("fleet-%04d", i));
    }
    return out;
  }

  private void deleteFleetSlices() throws KubeException {
    for (ResourceSlice s :
        admin
            .list(ResourceSlice.TYPE, "", ListOptions.fields("spec.driver=" + SimNode.DRIVER))
            .items()) {
      try {
        admin.delete(ResourceSlice.TYPE, "", s.metadata().name(), Preconditions.NONE);
      } catch (KubeException e) {
        if (!e.isNotFound()) {
          throw e;
        }
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // 1. Roll-out

  private void rollout(int jitterSeconds, String generation) throws Exception {
    String label = "roll-out, " + jitterSeconds + " s jitter";
    log("%s: starting %d drivers", label, nodes);
    List<SimNode> built = new ArrayList<>();
    for (String n : names()) {
      Path dir = Files.createDirectories(work.resolve(generation).resolve(n.substring(6)));
      built.add(
          new SimNode(
              n,
              dir,
              cp.adminKubeconfig(),
              new RequestCounter(clock, driverPerSecond, driverFailedPerSecond),
              kubeletClient,
              devices,
              recoveryDelay,
              kubeletPoll));
    }
    fleet = built;
    Map<String, Long> clientBefore = clientTotals();
    Sample serverBefore = metrics.sampleNow();
    long t0 = System.nanoTime();
    markers.add(new Marker(label + ": first start", clock.seconds(t0)));
    ScheduledExecutorService starter = Executors.newScheduledThreadPool(Math.min(nodes, 16));
    List<Future<?>> started = new ArrayList<>();
    for (SimNode n : fleet) {
      long delay = jitterSeconds == 0 ? 0 : (long) (random.nextDouble() * jitterSeconds * 1000);
      started.add(
          starter.schedule(
              () -> {
                n.start();
                return null;
              },
              delay,
              TimeUnit.MILLISECONDS));
    }
    for (Future<?> f : started) {
      f.get(jitterSeconds + 600L, TimeUnit.SECONDS);
    }
    starter.shutdown();
    long allStarted = System.nanoTime();
    long published =
        mirror.await(
            "every node's " + devices + " devices in the API server",
            v -> allPublished(v, Set.of()),
            Duration.ofSeconds(jitterSeconds + 600L));
    markers.add(new Marker(label + ": all published", clock.seconds(published)));
    // Let what the publish set off (the guard's reads, a second look) settle before counting.
    Thread.sleep(5000);
    long end = System.nanoTime();
    Map<String, Long> client = diff(clientTotals(), clientBefore);
    Sample serverAfter = metrics.sampleNow();
    Map<String, Double> server = serverAfter.since(serverBefore);
    long driverRequests = sum(client);
    long driverWrites = writes(client);
    double driverPeak = peakPerSecond(driverPerSecond, t0, end);
    double[] serverRates = serverPeakAndMean(t0, end);
    if (generation.equals("r0")) {
      rolloutDriverPeak = driverPeak;
      rolloutServerPeak = serverRates[0];
    }
    String key = "rollout_" + jitterSeconds + "s";
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("start_calls_seconds", secs(allStarted - t0));
    f.put("all_published_seconds", secs(published - t0));
    f.put("driver_requests_per_node", (double) driverRequests / nodes);
    f.put("driver_writes_per_node", (double) driverWrites / nodes);
    f.put("driver_requests_by_verb_resource_per_node", perNode(client));
    f.put("server_requests_by_verb_resource", server);
    f.put("server_requests_total", server.values().stream().mapToDouble(d -> d).sum());
    f.put("server_peak_qps", serverRates[0]);
    f.put("server_mean_qps", serverRates[1]);
    f.put("driver_peak_qps", driverPeak);
    f.put("driver_mean_qps", driverRequests / secs(end - t0));
    f.put("window_seconds", secs(end - t0));
    f.put("driver_errors", fleet.stream().mapToLong(SimNode::errors).sum());
    figures.put(key, f);
    row(
        label + ": time until every node's slices are published",
        fmt(secs(published - t0)) + " s",
        "");
    row(
        label + ": API requests per node (drivers)",
        fmt((double) driverRequests / nodes),
        perNodeText(client));
    row(label + ": writes per node (drivers)", fmt((double) driverWrites / nodes), "");
    row(
        label + ": API server requests, all clients",
        fmt(sumD(server)),
        "peak " + fmt(serverRates[0]) + " QPS, mean " + fmt(serverRates[1]) + " QPS (2 s samples)");
    row(
        label + ": drivers' peak / mean QPS",
        fmt(driverPeak) + " / " + fmt(driverRequests / secs(end - t0)),
        "client side, 1 s buckets");
    details.add(
        "### "
            + label
            + ": API server requests by verb and resource (all clients)\n\n"
            + keyTable(server));
    plot(
        "fleet-rollout-" + jitterSeconds + "s.png",
        String.format(
            "Roll-out of %d drivers, %d s jitter: requests per second", nodes, jitterSeconds),
        clock.seconds(t0) - 5,
        clock.seconds(end) + 5);
    log(
        "%s: all published after %.1f s; %.1f requests and %.1f writes per node",
        label,
        secs(published - t0),
        (double) driverRequests / nodes,
        (double) driverWrites / nodes);
  }

  private boolean allPublished(Map<String, NodeView> views, Set<String> ignored) {
    int complete = 0;
    for (SimNode n : fleet) {
      NodeView v = views.get(n.name);
      if (v != null && v.devices().size() == devices) {
        complete++;
      }
    }
    return complete == fleet.size();
  }

  private void memory(Memory base) throws Exception {
    Memory after = Memory.now();
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("baseline_rss_mb", base.rssKb / 1024.0);
    f.put("fleet_rss_mb", after.rssKb / 1024.0);
    f.put("rss_mb_per_node", (after.rssKb - base.rssKb) / 1024.0 / nodes);
    f.put("heap_mb_per_node", (after.heapBytes - base.heapBytes) / 1e6 / nodes);
    f.put("baseline_threads", base.threads);
    f.put("fleet_threads", after.threads);
    f.put("threads_per_node", (double) (after.threads - base.threads) / nodes);
    figures.put("memory", f);
    row(
        "memory per node (harness JVM RSS beyond the harness alone)",
        fmt((after.rssKb - base.rssKb) / 1024.0 / nodes) + " MB",
        "RSS "
            + fmt(base.rssKb / 1024.0)
            + " MB before the drivers, "
            + fmt(after.rssKb / 1024.0)
            + " MB with "
            + nodes
            + "; live heap after GC "
            + fmt((after.heapBytes - base.heapBytes) / 1e6 / nodes)
            + " MB per node");
    row(
        "threads per node",
        fmt((double) (after.threads - base.threads) / nodes),
        base.threads + " before, " + after.threads + " with " + nodes + " nodes");
  }

  private void tearDownFleet() throws Exception {
    long t = System.nanoTime();
    closeFleet();
    deleteFleetSlices();
    mirror.await("no fleet slices left", Map::isEmpty, Duration.ofSeconds(120));
    log("fleet stopped and its slices removed in %.1f s", secs(System.nanoTime() - t));
  }

  private void closeFleet() throws Exception {
    parallel(
        16,
        fleet.stream()
            .map(
                n ->
                    (Callable<Void>)
                        () -> {
                          n.close();
                          return null;
                        })
            .toList());
    fleet = List.of();
  }

  // ------------------------------------------------------------------------------------------
  // 2. Steady state

  private void steadyState() throws Exception {
    log("steady state: %d s", steady.toSeconds());
    Map<String, Long> before = clientTotals();
    Sample serverBefore = metrics.sampleNow();
    long t0 = System.nanoTime();
    Thread.sleep(steady.toMillis());
    long t1 = System.nanoTime();
    Map<String, Long> client = diff(clientTotals(), before);
    Sample serverAfter = metrics.sampleNow();
    Map<String, Double> server = serverAfter.since(serverBefore);
    double hours = secs(t1 - t0) / 3600;
    double writesPerNodeHour = writes(client) / hours / nodes;
    double serverSliceWrites =
        server.entrySet().stream()
            .filter(e -> e.getKey().endsWith(" resourceslices") && !isRead(e.getKey()))
            .mapToDouble(Map.Entry::getValue)
            .sum();
    long lists =
        client.entrySet().stream()
            .filter(e -> e.getKey().startsWith("list "))
            .mapToLong(Map.Entry::getValue)
            .sum();
    long watchCalls =
        client.entrySet().stream()
            .filter(e -> e.getKey().startsWith("watch "))
            .mapToLong(Map.Entry::getValue)
            .sum();
    double watchesNow = watchesOfInformed(serverAfter);
    double watchesPerNode = (watchesNow - baselineWatches) / nodes;
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("window_seconds", secs(t1 - t0));
    f.put("driver_requests", sum(client));
    f.put("driver_writes_per_node_per_hour", writesPerNodeHour);
    f.put("server_resourceslice_writes", serverSliceWrites);
    f.put("open_watches_per_node", watchesPerNode);
    f.put("open_watches_by_resource", serverAfter.watches());
    f.put("driver_lists_per_node", (double) lists / nodes);
    f.put("driver_watch_requests_per_node", (double) watchCalls / nodes);
    f.put("server_requests_by_verb_resource", server);
    figures.put("steady", f);
    row(
        "steady state: writes per node per hour (drivers)",
        fmt(writesPerNodeHour),
        "over "
            + fmt(secs(t1 - t0))
            + " s; API server saw "
            + fmt(serverSliceWrites)
            + " ResourceSlice writes");
    row(
        "steady state: open watches per node",
        fmt(watchesPerNode),
        "apiserver_longrunning_requests (WATCH) on resourceslices, deviceclasses and nodes, less the count before the drivers started");
    row(
        "steady state: list calls per node",
        fmt((double) lists / nodes),
        "watch requests per node " + fmt((double) watchCalls / nodes) + " in the window");
    log(
        "steady state: %d driver requests, %.2f writes per node per hour",
        sum(client), writesPerNodeHour);
  }

  private static double watchesOfInformed(Sample s) {
    double w = 0;
    for (String r : RequestCounter.INFORMED) {
      w += s.watches().getOrDefault(r, 0.0);
    }
    return w;
  }

  // ------------------------------------------------------------------------------------------
  // 3. Outage

  private void outage() throws Exception {
    log("outage: stopping kube-apiserver for %d s", outage.toSeconds());
    List<SimNode> marked = new ArrayList<>();
    for (int i = 0; i < Math.max(1, nodes / 10); i++) {
      marked.add(fleet.get(i * fleet.size() / Math.max(1, nodes / 10)));
    }
    Map<String, Long> before = clientTotals();
    long failedBefore = fleet.stream().mapToLong(n -> n.requests.failedAttempts()).sum();
    long tStop = System.nanoTime();
    markers.add(new Marker("kube-apiserver stopped", clock.seconds(tStop)));
    cp.script("stop", "kube-apiserver");
    long tStopped = System.nanoTime();
    for (SimNode n : fleet) {
      n.requests.arm(tStopped);
    }
    // While the server is away, one device on every tenth node goes unhealthy: after the
    // outage those nodes must publish the taint, the others must be left as they were.
    Thread.sleep(Math.min(10_000, outage.toMillis() / 2));
    for (SimNode n : marked) {
      n.provider.health().markUnhealthy(TAINTED_DEVICE, "XID79", "went bad during the outage");
    }
    long left = tStop + outage.toNanos() - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
    long tStart = System.nanoTime();
    restarts.add(tStart);
    markers.add(new Marker("kube-apiserver started", clock.seconds(tStart)));
    cp.script("start", "kube-apiserver");
    long tReady = System.nanoTime();
    markers.add(new Marker("kube-apiserver ready", clock.seconds(tReady)));
    log("outage: kube-apiserver ready %.1f s after its start", secs(tReady - tStart));
    Set<String> markedNames = marked.stream().map(n -> n.name).collect(Collectors.toSet());
    Map<String, Long> resynced = new TreeMap<>();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (resynced.size() < fleet.size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            (fleet.size() - resynced.size())
                + " nodes did not re-sync within 5 min of the restart");
      }
      Map<String, NodeView> views = mirror.nodes();
      long now = System.nanoTime();
      for (SimNode n : fleet) {
        if (resynced.containsKey(n.name)) {
          continue;
        }
        OptionalLong reconnected = n.requests.reconnectedAt();
        NodeView v = views.get(n.name);
        if (reconnected.isEmpty()
            || v == null
            || !v.equals(expected(markedNames.contains(n.name)))) {
          continue;
        }
        long at = reconnected.getAsLong();
        if (markedNames.contains(n.name)) {
          // Its taint is written when the publisher's retry lands: the client saw when.
          OptionalLong written = n.requests.sliceWrittenAt();
          at = Math.max(at, written.orElse(now));
        }
        resynced.put(n.name, at);
      }
      Thread.sleep(100);
    }
    long allResynced = Collections.max(resynced.values());
    markers.add(new Marker("every node re-synced", clock.seconds(allResynced)));
    Thread.sleep(10_000);
    long end = System.nanoTime();
    // The server's truth, read fresh rather than through the harness's informer.
    int stale = 0;
    List<String> staleNames = new ArrayList<>();
    Map<String, NodeView> fresh = freshViews();
    for (SimNode n : fleet) {
      if (!expected(markedNames.contains(n.name)).equals(fresh.get(n.name))) {
        stale++;
        staleNames.add(n.name);
      }
    }
    Map<String, Long> client = diff(clientTotals(), before);
    long failed = fleet.stream().mapToLong(n -> n.requests.failedAttempts()).sum() - failedBefore;
    double driverPeak = peakPerSecond(driverPerSecond, tStart, end);
    double driverPeakWhileDown = peakPerSecond(driverPerSecond, tStopped, tStart);
    double driverPeakFromReady = peakPerSecond(driverPerSecond, tReady, end);
    double[] serverRates = serverPeakAndMean(tStart, end);
    List<Double> times = resynced.values().stream().map(t -> secs(t - tReady)).sorted().toList();
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("stopped_for_seconds", secs(tReady - tStopped));
    f.put("apiserver_start_to_ready_seconds", secs(tReady - tStart));
    f.put("resync_all_seconds_after_ready", secs(allResynced - tReady));
    f.put("resync_median_seconds_after_ready", times.get(times.size() / 2));
    f.put("stale_or_missing_nodes", stale);
    f.put("stale_nodes", staleNames);
    f.put("nodes_with_a_device_tainted_during_the_outage", marked.size());
    f.put("driver_requests_per_node", (double) sum(client) / nodes);
    f.put("driver_failed_attempts_per_node", (double) failed / nodes);
    f.put("driver_requests_by_verb_resource_per_node", perNode(client));
    f.put("driver_peak_qps_from_restart", driverPeak);
    f.put("driver_peak_attempts_per_second_while_down", driverPeakWhileDown);
    f.put("driver_peak_qps_from_ready", driverPeakFromReady);
    f.put("server_peak_qps_from_restart", serverRates[0]);
    f.put("driver_peak_vs_rollout_peak", driverPeak / rolloutDriverPeak);
    f.put("server_peak_vs_rollout_peak", serverRates[0] / rolloutServerPeak);
    figures.put("outage", f);
    String o = "outage of " + outage.toSeconds() + " s";
    row(
        o + ": time until every node re-synced",
        fmt(secs(allResynced - tReady)) + " s",
        "after the API server was ready again (median "
            + fmt(times.get(times.size() / 2))
            + " s); it was down "
            + fmt(secs(tReady - tStopped))
            + " s, "
            + fmt(secs(tReady - tStart))
            + " s of it starting");
    row(
        o + ": nodes with stale or missing slices",
        Integer.toString(stale),
        marked.size()
            + " nodes had a device go unhealthy during the outage; checked with a fresh list");
    row(
        o + ": driver requests per node, stop to re-synced + 10 s",
        fmt((double) sum(client) / nodes),
        fmt((double) failed / nodes)
            + " of them unanswered attempts while the server was away; "
            + perNodeText(client));
    row(
        o + ": drivers' peak QPS after the restart / roll-out peak",
        fmt(driverPeak / rolloutDriverPeak) + "x",
        fmt(driverPeak)
            + " vs "
            + fmt(rolloutDriverPeak)
            + " QPS (client side, 1 s); while the server was away "
            + fmt(driverPeakWhileDown)
            + " attempts/s at most; from readyz on "
            + fmt(driverPeakFromReady)
            + " QPS");
    row(
        o + ": all clients' peak QPS after the restart / roll-out peak",
        fmt(serverRates[0] / rolloutServerPeak) + "x",
        fmt(serverRates[0]) + " vs " + fmt(rolloutServerPeak) + " QPS (API server, 2 s samples)");
    details.add(
        "### "
            + o
            + ": API server requests by verb and resource after the restart (all clients)\n\n"
            + keyTable(metrics.after(end).since(metrics.at(tStop))));
    plot(
        "fleet-outage.png",
        String.format(
            "API server outage of %d s with %d nodes: requests per second",
            outage.toSeconds(), nodes),
        clock.seconds(tStop) - 20,
        clock.seconds(end) + 5);
    log(
        "outage: every node re-synced %.1f s after ready; %d stale",
        secs(allResynced - tReady), stale);
    // Healthy again; the taints go after the recovery delay.
    for (SimNode n : marked) {
      n.provider.health().markHealthy(TAINTED_DEVICE);
    }
    mirror.await(
        "the outage's taints lifted", v -> allUntainted(v), recoveryDelay.plusSeconds(120));
  }

  private NodeView expected(boolean tainted) {
    Set<String> names = new TreeSet<>();
    for (int i = 0; i < devices; i++) {
      names.add("gpu-" + i);
    }
    return new NodeView(names, tainted ? Set.of(TAINTED_DEVICE) : Set.of());
  }

  private boolean allUntainted(Map<String, NodeView> views) {
    for (SimNode n : fleet) {
      NodeView v = views.get(n.name);
      if (v == null || !v.tainted().isEmpty() || v.devices().size() != devices) {
        return false;
      }
    }
    return true;
  }

  private Map<String, NodeView> freshViews() throws KubeException {
    Map<String, NodeView> out = new java.util.HashMap<>();
    for (ResourceSlice s :
        admin
            .list(ResourceSlice.TYPE, "", ListOptions.fields("spec.driver=" + SimNode.DRIVER))
            .items()) {
      NodeView v =
          out.computeIfAbsent(
              s.spec().nodeName().orElse(""), k -> new NodeView(new TreeSet<>(), new TreeSet<>()));
      for (var d : s.spec().devices()) {
        v.devices().add(d.name());
        if (!d.taints().isEmpty()) {
          v.tainted().add(d.name());
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // 4. Health churn

  private void healthChurn() throws Exception {
    int total = nodes * devices;
    int flaps = (int) Math.max(3, Math.round(total * flapRate * churn.toSeconds() / 60.0));
    log(
        "health churn: %d flaps over %d s (%.1f%% of %d devices per minute)",
        flaps, churn.toSeconds(), flapRate * 100, total);
    long publisherWritesBefore = fleet.stream().mapToLong(n -> n.publisher().writes()).sum();
    Map<String, Long> before = clientTotals();
    Sample serverBefore = metrics.sampleNow();
    long t0 = System.nanoTime();
    long span = Math.max(1, churn.toMillis() - flapHold.toMillis());
    List<Long> offsets = new ArrayList<>();
    for (int i = 0; i < flaps; i++) {
      offsets.add((long) (random.nextDouble() * span));
    }
    Collections.sort(offsets);
    Set<String> busy = ConcurrentHashMap.newKeySet();
    List<Double> onLatency = Collections.synchronizedList(new ArrayList<>());
    List<Double> offLatency = Collections.synchronizedList(new ArrayList<>());
    AtomicLong late = new AtomicLong();
    ExecutorService flappers = Executors.newCachedThreadPool();
    List<Future<?>> done = new ArrayList<>();
    for (long offset : offsets) {
      long wait = t0 + offset * 1_000_000L - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      // A node with no flap in progress, so each flap's writes are its own.
      SimNode n;
      do {
        n = fleet.get(random.nextInt(fleet.size()));
      } while (!busy.add(n.name));
      SimNode node = n;
      String device = "gpu-" + random.nextInt(devices);
      done.add(
          flappers.submit(
              () -> {
                try {
                  long marked = System.nanoTime();
                  node.provider.health().markUnhealthy(device, "XID79", "flap");
                  long seen =
                      mirror.await(
                          "taint on " + node.name + "/" + device,
                          v ->
                              v.containsKey(node.name)
                                  && v.get(node.name).tainted().contains(device),
                          Duration.ofSeconds(60));
                  onLatency.add(secs(Math.max(0, seen - marked)));
                  long healthyAt = marked + flapHold.toNanos();
                  long w = healthyAt - System.nanoTime();
                  if (w > 0) {
                    TimeUnit.NANOSECONDS.sleep(w);
                  } else {
                    late.incrementAndGet();
                  }
                  long healthy = System.nanoTime();
                  node.provider.health().markHealthy(device);
                  long lifted =
                      mirror.await(
                          "taint lifted on " + node.name + "/" + device,
                          v ->
                              v.containsKey(node.name)
                                  && !v.get(node.name).tainted().contains(device),
                          recoveryDelay.plusSeconds(60));
                  offLatency.add(secs(Math.max(0, lifted - healthy)));
                } finally {
                  busy.remove(node.name);
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get(10, TimeUnit.MINUTES);
    }
    flappers.shutdown();
    Thread.sleep(2000);
    long end = System.nanoTime();
    long publisherWrites =
        fleet.stream().mapToLong(n -> n.publisher().writes()).sum() - publisherWritesBefore;
    Map<String, Long> client = diff(clientTotals(), before);
    Map<String, Double> server = metrics.sampleNow().since(serverBefore);
    double serverSliceWrites =
        server.entrySet().stream()
            .filter(e -> e.getKey().endsWith(" resourceslices") && !isRead(e.getKey()))
            .mapToDouble(Map.Entry::getValue)
            .sum();
    List<Double> on = sorted(onLatency);
    List<Double> off = sorted(offLatency);
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("flaps", flaps);
    f.put("window_seconds", secs(end - t0));
    f.put("publisher_writes", publisherWrites);
    f.put("driver_writes", writes(client));
    f.put("server_resourceslice_writes", serverSliceWrites);
    f.put("writes_per_flap", (double) writes(client) / flaps);
    f.put("writes_per_change", (double) writes(client) / (2.0 * flaps));
    f.put("taint_visible_seconds_median", on.get(on.size() / 2));
    f.put("taint_visible_seconds_max", on.get(on.size() - 1));
    f.put("taint_lifted_seconds_median", off.get(off.size() / 2));
    f.put("taint_lifted_seconds_max", off.get(off.size() - 1));
    f.put("recovery_delay_seconds", recoveryDelay.toSeconds());
    f.put("flaps_marked_healthy_late", late.get());
    figures.put("health_churn", f);
    String c =
        "health churn (" + fmt(flapRate * 100) + "% of devices per minute, " + flaps + " flaps)";
    row(
        c + ": slice writes per flap",
        fmt((double) writes(client) / flaps),
        fmt((double) writes(client) / (2.0 * flaps))
            + " per change (taint on, taint off); API server saw "
            + fmt(serverSliceWrites)
            + " ResourceSlice writes");
    row(
        c + ": taint in the API server after the device went unhealthy",
        fmt(on.get(on.size() / 2)) + " s median, " + fmt(on.get(on.size() - 1)) + " s max",
        "recovery delay " + recoveryDelay.toSeconds() + " s");
    row(
        c + ": taint lifted after the device was healthy again",
        fmt(off.get(off.size() / 2)) + " s median, " + fmt(off.get(off.size() - 1)) + " s max",
        "the hub waits the recovery delay (" + recoveryDelay.toSeconds() + " s) before lifting");
    log("health churn: %d flaps, %d driver writes", flaps, writes(client));
  }

  // ------------------------------------------------------------------------------------------
  // 5. Pod bursts

  private final Map<String, Long> boundAt = new ConcurrentHashMap<>();
  private final Map<String, Long> preparedAt = new ConcurrentHashMap<>();
  private final Map<String, Pod> lastSeen = new ConcurrentHashMap<>();
  private final AtomicLong prepareErrors = new AtomicLong();
  private volatile String firstPrepareError = "";

  private void podBursts() throws Exception {
    List<Integer> sizes = new ArrayList<>();
    for (int b : bursts) {
      if (b <= nodes * devices) {
        sizes.add(b);
      } else {
        row(
            "pod burst of " + b,
            "not run",
            "more pods than the fleet's " + nodes * devices + " devices");
      }
    }
    if (sizes.isEmpty()) {
      return;
    }
    Map<String, SimNode> byName = new java.util.HashMap<>();
    fleet.forEach(n -> byName.put(n.name, n));
    ExecutorService kubelets = Executors.newFixedThreadPool(8);
    Informer<Pod> pods =
        Informer.builder(admin, Pod.TYPE)
            .namespace(NAMESPACE)
            .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
            .handler(
                new InformerHandler<>() {
                  @Override
                  public void onAdd(Pod p) {
                    seen(p);
                  }

                  @Override
                  public void onUpdate(Pod old, Pod p) {
                    seen(p);
                  }

                  private void seen(Pod p) {
                    String name = p.metadata().name();
                    lastSeen.put(name, p);
                    String node = p.spec().nodeName();
                    if (!node.isEmpty() && boundAt.putIfAbsent(name, System.nanoTime()) == null) {
                      SimNode n = byName.get(node);
                      kubelets.execute(() -> prepare(n, name, p));
                    }
                  }
                })
            .build();
    pods.start();
    pods.awaitSynced(Duration.ofSeconds(60));
    try {
      List<String> runs = new ArrayList<>(List.of("defaults"));
      if (gateRun) {
        runs.add(GATE);
      }
      for (String scheduler : runs) {
        if (!scheduler.equals("defaults")) {
          log("restarting kube-scheduler with %s=true", GATE);
          cp.script("stop", "kube-scheduler");
          cp.script("start", "kube-scheduler", "--feature-gates", GATE + "=true");
          Thread.sleep(5000);
        }
        for (int size : sizes) {
          burst(size, scheduler, byName, kubelets);
        }
      }
      if (gateRun) {
        // Back to the flags the cluster was started with.
        cp.script("stop", "kube-scheduler");
        cp.script("start", "kube-scheduler");
      }
    } finally {
      pods.close();
      kubelets.shutdown();
    }
  }

  /**
   * The kubelet's next step once the pod is bound: prepare its claims. A pod seen bound before its
   * claim's status reached the harness's informer is tried again with the newest copy, as the
   * kubelet's pod workers retry.
   */
  private void prepare(SimNode n, String name, Pod first) {
    Pod p = first;
    for (int attempt = 1; ; attempt++) {
      try {
        n.kubelet().prepare(p);
        preparedAt.put(name, System.nanoTime());
        return;
      } catch (RuntimeException e) {
        if (attempt == 20) {
          if (prepareErrors.getAndIncrement() == 0) {
            firstPrepareError = name + ": " + e.getMessage();
          }
          return;
        }
        retriedPrepares.incrementAndGet();
        try {
          Thread.sleep(200);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
        p = lastSeen.getOrDefault(name, p);
      }
    }
  }

  private final AtomicLong retriedPrepares = new AtomicLong();

  private void burst(
      int size, String scheduler, Map<String, SimNode> byName, ExecutorService kubelets)
      throws Exception {
    String prefix = "b" + size + "-" + (scheduler.equals("defaults") ? "d" : "q") + "-";
    log("pod burst: %d pods asking for example.com/gpu: 1 (scheduler: %s)", size, scheduler);
    boundAt.clear();
    preparedAt.clear();
    lastSeen.clear();
    prepareErrors.set(0);
    retriedPrepares.set(0);
    List<Callable<Void>> creates = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String name = prefix + i;
      JsonNode pod =
          JSON.readTree(
              """
              {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "%s", "namespace": "%s", "labels": {"dra4j.io/fleet-burst": "%s"}},
               "spec": {"terminationGracePeriodSeconds": 0,
                 "containers": [{"name": "main", "image": "registry.invalid/dra4j/never-pulled",
                   "resources": {"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "1"}}}]}}
              """
                  .formatted(name, NAMESPACE, prefix.substring(0, prefix.length() - 1)));
      creates.add(
          () -> {
            admin.create(ControlPlane.PODS, pod);
            return null;
          });
    }
    long t0 = System.nanoTime();
    parallel(16, creates);
    long created = System.nanoTime();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (preparedAt.size() + prepareErrors.get() < size) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "pod burst of "
                + size
                + ": "
                + boundAt.size()
                + " bound and "
                + preparedAt.size()
                + " prepared after 10 min");
      }
      Thread.sleep(50);
    }
    List<Double> bound = boundAt.values().stream().map(t -> secs(t - t0)).sorted().toList();
    double lastPrepared =
        preparedAt.values().stream().mapToDouble(t -> secs(t - t0)).max().orElse(0);
    double last = bound.get(bound.size() - 1);
    String key =
        "burst_" + size + "_" + (scheduler.equals("defaults") ? "defaults" : "prequeueing_hints");
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("created_seconds", secs(created - t0));
    f.put("first_scheduled_seconds", bound.get(0));
    f.put("median_scheduled_seconds", bound.get(bound.size() / 2));
    f.put("last_scheduled_seconds", last);
    f.put("all_prepared_seconds", lastPrepared);
    f.put("pods_per_second", size / last);
    f.put("prepare_errors", prepareErrors.get());
    f.put("first_prepare_error", firstPrepareError);
    f.put("prepare_retries", retriedPrepares.get());
    f.put(
        "nodes_used",
        boundAt.keySet().stream().map(n -> lastSeen.get(n).spec().nodeName()).distinct().count());
    figures.put(key, f);
    String label = "pod burst of " + size + " (scheduler: " + scheduler + ")";
    row(
        label + ": PodScheduled first / median / last",
        fmt(bound.get(0)) + " / " + fmt(bound.get(bound.size() / 2)) + " / " + fmt(last) + " s",
        "from the first create; all " + size + " created after " + fmt(secs(created - t0)) + " s");
    row(
        label + ": every claim prepared by its node's kubelet",
        fmt(lastPrepared) + " s",
        prepareErrors.get() == 0
            ? ""
            : prepareErrors.get() + " prepare errors, first: " + firstPrepareError);
    row(
        label + ": scheduler throughput",
        fmt(size / last) + " pods/s",
        "pods / time to the last PodScheduled");
    log("%s: last scheduled %.1f s, all prepared %.1f s", label, last, lastPrepared);
    // The kubelet unprepares, the pods go (grace period 0), the garbage collector removes the
    // scheduler's claims with them: the next burst starts on free devices.
    List<Callable<Void>> cleanups = new ArrayList<>();
    for (Map.Entry<String, Pod> e : lastSeen.entrySet()) {
      Pod p = e.getValue();
      SimNode n = byName.get(p.spec().nodeName());
      cleanups.add(
          () -> {
            if (n != null) {
              n.kubelet().unprepare(p);
            }
            try {
              admin.delete(ControlPlane.PODS, NAMESPACE, e.getKey(), Preconditions.NONE);
            } catch (KubeException ex) {
              if (!ex.isNotFound()) {
                throw ex;
              }
            }
            return null;
          });
    }
    parallel(16, cleanups);
    awaitEmpty(size);
  }

  private void awaitEmpty(int size) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (true) {
      int pods = admin.list(ControlPlane.PODS, NAMESPACE, ListOptions.ALL).items().size();
      int claims = admin.list(ControlPlane.CLAIMS, NAMESPACE, ListOptions.ALL).items().size();
      if (pods == 0 && claims == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "after the burst of "
                + size
                + ": "
                + pods
                + " pods and "
                + claims
                + " claims left after 5 min");
      }
      Thread.sleep(500);
    }
  }

  private void deletePods() throws KubeException {
    for (JsonNode p : admin.list(ControlPlane.PODS, NAMESPACE, ListOptions.ALL).items()) {
      admin.delete(
          ControlPlane.PODS,
          NAMESPACE,
          p.path("metadata").path("name").asText(),
          Preconditions.NONE);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Results

  private void tearDown() {
    try {
      closeFleet();
      if (phases.contains("bursts")) {
        deletePods();
      }
      deleteFleetSlices();
      ControlPlane.deleteFleetNodes(admin);
    } catch (Exception e) {
      log("clean-up failed: %s", e);
    }
    if (mirror != null) {
      mirror.close();
    }
    if (metrics != null) {
      metrics.close();
    }
  }

  private void writeResults() throws IOException {
    Files.createDirectories(out);
    figures.put("nodes", nodes);
    int last = Math.min(driverPerSecond.length(), (int) clock.seconds(System.nanoTime()) + 1);
    long[] sent = new long[last];
    long[] unanswered = new long[last];
    for (int i = 0; i < last; i++) {
      sent[i] = driverPerSecond.get(i);
      unanswered[i] = driverFailedPerSecond.get(i);
    }
    figures.put("drivers_sent_per_second", sent);
    figures.put("drivers_unanswered_per_second", unanswered);
    figures.put("markers_seconds", markers);
    figures.put("devices_per_node", devices);
    Files.writeString(out.resolve("fleet-figures.json"), JSON.writeValueAsString(figures));
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "%n## Fleet benchmark: %d nodes x %d devices, real control plane%n%n", nodes, devices));
    sb.append("| metric | value | notes |\n|---|--:|---|\n");
    for (String[] r : table) {
      sb.append("| ")
          .append(r[0])
          .append(" | ")
          .append(r[1])
          .append(" | ")
          .append(r[2])
          .append(" |\n");
    }
    sb.append('\n');
    for (String d : details) {
      sb.append(d).append('\n');
    }
    sb.append("Figures: ").append(out.resolve("fleet-figures.json")).append("; plots: ");
    try (var s = Files.list(out)) {
      sb.append(
          s.filter(p -> p.toString().endsWith(".png"))
              .map(Path::toString)
              .sorted()
              .collect(Collectors.joining(", ")));
    }
    sb.append('\n');
    Files.writeString(out.resolve("fleet-table.md"), sb.toString());
    System.out.print(sb);
  }

  private void plot(String file, String title, double from, double to) throws IOException {
    List<Sample> samples = metrics.samples();
    List<double[]> serverPoints = serverRateSeries(samples);
    double[] st = new double[serverPoints.size()];
    double[] sq = new double[serverPoints.size()];
    for (int i = 0; i < st.length; i++) {
      st[i] = serverPoints.get(i)[0];
      sq[i] = serverPoints.get(i)[1];
    }
    int n = (int) Math.min(driverPerSecond.length(), Math.ceil(to) + 1);
    double[] dt = new double[n];
    double[] dq = new double[n];
    double[] fq = new double[n];
    for (int i = 0; i < n; i++) {
      dt[i] = i + 0.5;
      dq[i] = driverPerSecond.get(i);
      fq[i] = driverFailedPerSecond.get(i);
    }
    QpsPlot.write(
        out.resolve(file),
        title,
        Math.max(0, from),
        to,
        List.of(
            new Series(
                "API server, all clients (apiserver_request_total, 2 s samples)",
                new Color(31, 119, 180),
                st,
                sq),
            new Series("drivers, sent (client side, 1 s)", new Color(214, 39, 40), dt, dq),
            new Series(
                "drivers, unanswered or 5xx (client side, 1 s)", new Color(150, 150, 150), dt, fq)),
        List.copyOf(markers));
  }

  /** (seconds, QPS) between consecutive good samples; a restart in between starts the interval. */
  private List<double[]> serverRateSeries(List<Sample> samples) {
    List<double[]> out = new ArrayList<>();
    Sample prev = null;
    boolean gap = false;
    for (Sample s : samples) {
      if (!s.ok()) {
        if (prev != null && !gap) {
          // The server did not answer: no line across the gap.
          out.add(new double[] {clock.seconds(s.nanos()), Double.NaN});
        }
        gap = true;
        continue;
      }
      gap = false;
      if (prev != null) {
        long from = prev.nanos();
        synchronized (restarts) {
          for (long r : restarts) {
            if (r > from && r < s.nanos()) {
              from = r;
            }
          }
        }
        double dt = secs(s.nanos() - from);
        if (dt > 0.1) {
          out.add(new double[] {clock.seconds(s.nanos()), (s.total() - prev.total()) / dt});
        }
      }
      prev = s;
    }
    return out;
  }

  /** Peak and mean QPS the API server served in [from, to], from its samples. */
  private double[] serverPeakAndMean(long from, long to) {
    double peak = 0;
    double sum = 0;
    int n = 0;
    for (double[] p : serverRateSeries(metrics.samples())) {
      double t = p[0];
      if (!Double.isNaN(p[1]) && t >= clock.seconds(from) && t <= clock.seconds(to) + 2.5) {
        peak = Math.max(peak, p[1]);
        sum += p[1];
        n++;
      }
    }
    return new double[] {peak, n == 0 ? 0 : sum / n};
  }

  private double peakPerSecond(AtomicLongArray a, long from, long to) {
    long peak = 0;
    for (int i = Math.max(0, clock.second(from));
        i <= Math.min(a.length() - 1, clock.second(to));
        i++) {
      peak = Math.max(peak, a.get(i));
    }
    return peak;
  }

  private Map<String, Long> clientTotals() {
    Map<String, Long> out = new TreeMap<>();
    for (SimNode n : fleet) {
      n.requests.snapshot().forEach((k, v) -> out.merge(k, v, Long::sum));
    }
    return out;
  }

  private static Map<String, Long> diff(Map<String, Long> after, Map<String, Long> before) {
    Map<String, Long> out = new TreeMap<>();
    after.forEach(
        (k, v) -> {
          long d = v - before.getOrDefault(k, 0L);
          if (d != 0) {
            out.put(k, d);
          }
        });
    return out;
  }

  private Map<String, Double> perNode(Map<String, Long> counts) {
    Map<String, Double> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, (double) v / nodes));
    return out;
  }

  private String perNodeText(Map<String, Long> counts) {
    return counts.entrySet().stream()
        .map(e -> e.getKey() + " " + fmt((double) e.getValue() / nodes))
        .collect(Collectors.joining(", "));
  }

  private static String keyTable(Map<String, Double> counts) {
    StringBuilder sb = new StringBuilder("| verb resource | requests |\n|---|--:|\n");
    counts.forEach((k, v) -> sb.append("| ").append(k).append(" | ").append(fmt(v)).append(" |\n"));
    return sb.toString();
  }

  private static long sum(Map<String, Long> m) {
    return m.values().stream().mapToLong(Long::longValue).sum();
  }

  private static double sumD(Map<String, Double> m) {
    return m.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  private static long writes(Map<String, Long> m) {
    return m.entrySet().stream()
        .filter(e -> RequestCounter.WRITES.contains(e.getKey().split(" ")[0]))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static boolean isRead(String serverKey) {
    String verb = serverKey.split(" ")[0];
    return verb.equals("GET") || verb.equals("LIST") || verb.equals("WATCH");
  }

  private static List<Double> sorted(List<Double> l) {
    List<Double> out = new ArrayList<>(l);
    Collections.sort(out);
    if (out.isEmpty()) {
      out.add(Double.NaN);
    }
    return out;
  }

  private void row(String metric, String value, String notes) {
    table.add(new String[] {metric, value, notes});
  }

  static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    if (a == Math.rint(a) && a < 1e6) {
      return Long.toString(Math.round(v));
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static double secs(long nanos) {
    return nanos / 1e9;
  }

  private void log(String format, Object... args) {
    System.err.printf(
        Locale.ROOT,
        "[fleet %6.1f s] %s%n",
        clock.seconds(System.nanoTime()),
        String.format(Locale.ROOT, format, args));
  }

  private static <T> List<T> parallel(int threads, List<Callable<T>> tasks) throws Exception {
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.max(1, Math.min(threads, tasks.size())));
    try {
      List<T> out = new ArrayList<>();
      for (Future<T> f : pool.invokeAll(tasks)) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdown();
    }
  }

  /** The harness process's footprint: resident memory, threads, live heap after a collection. */
  record Memory(long rssKb, int threads, long heapBytes) {
    static Memory now() throws IOException, InterruptedException {
      System.gc();
      Thread.sleep(500);
      System.gc();
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      long rss = 0;
      int threads = 0;
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("\\D", ""));
        } else if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.replaceAll("\\D", ""));
        }
      }
      return new Memory(rss, threads, heap);
    }
  }
}
