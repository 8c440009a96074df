package io.dra4j.launcher;

import com.sun.net.httpserver.HttpHandler;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.kube.RequestObserver;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.internal.claims.ClaimListener;
import io.dra4j.runtime.internal.kubelet.CallObserver;
import io.dra4j.runtime.internal.observe.DriverObserver;
import io.dra4j.runtime.internal.observe.DriverObserver.Source;
import io.dra4j.runtime.internal.slices.SyncObserver;
import io.dra4j.runtime.report.ClaimStats;
import io.dra4j.runtime.report.HealthView;
import io.dra4j.runtime.report.PublisherStats;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The metrics of one driver: owns its Prometheus registry (not the client's global default one),
 * gives each component the narrow observer it records through, and reads the driver's state through
 * a {@code Source} at scrape time.
 *
 * <p>Every series exists from the first scrape: counters and histograms at 0, and every labelled
 * series pre-initialised for its known label values, so that {@code rate()} and {@code increase()}
 * see the first event. The README's Metrics table lists them.
 *
 * <p>Cardinality is bounded: label values come from fixed sets (methods, verbs, results, status
 * classes), except {@code dra4j_device_health} (one series per health state of each device, for at
 * most {@link #MAX_DEVICE_SERIES} devices) and {@code dra4j_driver_info} (one series).
 */
public final class DriverMetrics {

  /**
   * Latency buckets in seconds, 0.1 ms to 10 s in 1-2.5-5 steps: a prepare answered from the
   * checkpoint takes well under a millisecond, an API call a few, a slow provider seconds.
   */
  static final double[] LATENCY_BUCKETS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  /** Devices with a {@code dra4j_device_health} series; the rest count only in the totals. */
  public static final int MAX_DEVICE_SERIES = 256;

  /** The kubelet methods the server answers, as {@link CallObserver} names them. */
  static final List<String> KUBELET_METHODS =
      List.of(
          "v1.NodePrepareResources",
          "v1.NodeUnprepareResources",
          "v1beta1.NodePrepareResources",
          "v1beta1.NodeUnprepareResources");

  /** The verbs of {@link RequestObserver}. */
  static final List<String> API_VERBS =
      List.of("get", "list", "watch", "create", "update", "apply", "delete");

  /**
   * The requests a driver makes, verb and resource: pre-initialised. A pair not listed (a client
   * shared with other code) gets its series on first use.
   */
  static final List<List<String>> API_REQUESTS =
      List.of(
          List.of("get", "resourceclaims"),
          List.of("list", "resourceclaims"),
          List.of("watch", "resourceclaims"),
          List.of("apply", "resourceclaims/status"),
          List.of("get", "resourceslices"),
          List.of("list", "resourceslices"),
          List.of("watch", "resourceslices"),
          List.of("create", "resourceslices"),
          List.of("update", "resourceslices"),
          List.of("delete", "resourceslices"),
          List.of("get", "nodes"),
          List.of("list", "nodes"),
          List.of("watch", "nodes"),
          List.of("list", "deviceclasses"),
          List.of("watch", "deviceclasses"));

  /** The {@code code} label of {@code dra4j_api_requests_total}. */
  static final List<String> API_CODES = List.of("2xx", "4xx", "5xx", "error");

  static final List<String> GUARD_STATES = List.of("syncing", "clear", "conflict", "blocking");

  private static final String SUCCESS = "success";
  private static final String ERROR = "error";

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Histogram kubeletCalls;
  private final Histogram providerCalls;
  private final Histogram checkpointWrites;
  private final Counter apiRequests;
  private final Histogram apiDurations;
  private final Histogram rateLimitWaits;
  private final Histogram publisherSyncs;
  private final Gauge warmUp;
  private volatile Source source = Source.NONE;
  private final DriverObserver observer = new Observer();

  private DriverMetrics() {
    kubeletCalls =
        histogram(
            "dra4j_kubelet_call_duration_seconds",
            "NodePrepareResources and NodeUnprepareResources calls answered, by gRPC method and"
                + " result (success, claim_error: answered with an error for a claim, call_error:"
                + " failed with a gRPC status), and how long they took.",
            "method",
            "result");
    for (String method : KUBELET_METHODS) {
      for (CallObserver.Result r : CallObserver.Result.values()) {
        kubeletCalls.initLabelValues(method, label(r));
      }
    }
    providerCalls =
        histogram(
            "dra4j_provider_call_duration_seconds",
            "Calls of the device provider's prepare and unprepare (rollbacks included), by result.",
            "operation",
            "result");
    for (ClaimListener.ProviderCall c : ClaimListener.ProviderCall.values()) {
      providerCalls.initLabelValues(label(c), SUCCESS);
      providerCalls.initLabelValues(label(c), ERROR);
    }
    checkpointWrites =
        histogram(
            "dra4j_checkpoint_write_duration_seconds",
            "Checkpoint records written (file written, synced and renamed into place), by result.",
            "result");
    checkpointWrites.initLabelValues(SUCCESS);
    checkpointWrites.initLabelValues(ERROR);
    apiRequests =
        Counter.builder()
            .name("dra4j_api_requests_total")
            .help(
                "Kubernetes API requests sent (each attempt of a retried call), by verb, resource"
                    + " and status class (2xx, 4xx, 5xx; error: no response came).")
            .labelNames("verb", "resource", "code")
            .withoutExemplars()
            .register(registry);
    for (List<String> r : API_REQUESTS) {
      for (String code : API_CODES) {
        apiRequests.initLabelValues(r.get(0), r.get(1), code);
      }
    }
    apiDurations =
        histogram(
            "dra4j_api_request_duration_seconds",
            "Kubernetes API request latency, from sending to the response headers, by verb.",
            "verb");
    API_VERBS.forEach(apiDurations::initLabelValues);
    rateLimitWaits =
        histogram(
            "dra4j_api_rate_limit_wait_seconds",
            "Requests that waited for the client-side rate limit (--kube-api-qps, --kube-api-burst)"
                + " before they were sent, and how long.");
    publisherSyncs =
        histogram(
            "dra4j_publisher_sync_duration_seconds",
            "ResourceSlice pool synchronizations (the API reads and writes that bring one pool to"
                + " its desired state), by result.",
            "result");
    publisherSyncs.initLabelValues(SUCCESS);
    publisherSyncs.initLabelValues(ERROR);
    warmUp =
        Gauge.builder()
            .name("dra4j_warmup_duration_seconds")
            .help(
                "How long the warm-up of the prepare path took before registering (a rolling"
                    + " update); 0 when none ran.")
            .withoutExemplars()
            .register(registry);
    registerStateSeries();
    registry.register(new JvmSeries());
  }

  /**
   * Metrics with every series at 0 (the JVM's from the first scrape), on a registry of their own.
   */
  public static DriverMetrics create() {
    return new DriverMetrics();
  }

  /**
   * The driver whose state the gauges and counters read at scrape time. Called once, by the driver
   * that owns these metrics.
   *
   * @throws IllegalStateException when a source was bound already
   */
  synchronized void bind(Source value) {
    Objects.requireNonNull(value, "source");
    if (source != Source.NONE) {
      throw new IllegalStateException("the metrics are bound to a driver already");
    }
    source = value;
  }

  /** The registry, for an exporter of one's own. */
  public PrometheusRegistry registry() {
    return registry;
  }

  /** Serves the registry (Prometheus text, OpenMetrics on request), e.g. at {@code /metrics}. */
  public HttpHandler httpHandler() {
    return new MetricsHandler(registry);
  }

  /** The registry in the Prometheus text format (0.0.4), as a scrape gets it. */
  public String text() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** What a driver reports into these metrics: {@code DriverObservers} hands it to its builder. */
  DriverObserver observer() {
    return observer;
  }

  /** What the kubelet plugin server reports. */
  CallObserver kubeletCalls() {
    return (method, result, nanos) ->
        kubeletCalls.labelValues(method, label(result)).observe(seconds(nanos));
  }

  /** What the claim pipeline reports (its counters are read through the {@link Source}). */
  ClaimListener claims() {
    return new ClaimListener() {
      @Override
      public void providerCalled(ProviderCall call, Duration took, boolean failed) {
        providerCalls.labelValues(label(call), result(failed)).observe(seconds(took.toNanos()));
      }

      @Override
      public void checkpointWritten(Duration took, boolean failed) {
        checkpointWrites.labelValues(result(failed)).observe(seconds(took.toNanos()));
      }
    };
  }

  /** What the Kubernetes client reports. */
  RequestObserver apiRequests() {
    return new RequestObserver() {
      @Override
      public void attempted(String verb, String resource, int status, long nanos) {
        apiRequests.labelValues(verb, resource, statusClass(status)).inc();
        apiDurations.labelValues(verb).observe(seconds(nanos));
      }

      @Override
      public void rateLimited(String verb, long nanos) {
        rateLimitWaits.observe(seconds(nanos));
      }
    };
  }

  /** What the slice publisher reports. */
  SyncObserver publisherSyncs() {
    return (nanos, failed) -> publisherSyncs.labelValues(result(failed)).observe(seconds(nanos));
  }

  /** The warm-up before registering took {@code took}. */
  void warmedUp(Duration took) {
    warmUp.set(seconds(took.toNanos()));
  }

  // ---------------------------------------------------------------------------------------------
  // State read at scrape time

  private void registerStateSeries() {
    gauge(
        "dra4j_driver_info",
        "Always 1: the driver and node names as labels.",
        List.of("driver", "node"),
        cb -> {
          Source s = source;
          if (s != Source.NONE) {
            cb.call(1, s.driverName(), s.nodeName());
          }
        });
    gauge(
        "dra4j_up",
        "1 while the driver starts or serves the kubelet sockets.",
        List.of(),
        cb -> cb.call(flag(source.isAlive())));
    gauge(
        "dra4j_ready",
        "1 once registered with the kubelet and the inventory is published.",
        List.of(),
        cb -> cb.call(flag(source.isReady())));
    gauge(
        "dra4j_registered",
        "1 while the kubelet accepts the registration.",
        List.of(),
        cb -> cb.call(flag(source.isRegistered())));

    counter(
        "dra4j_claim_operations_total",
        "Claims prepared and unprepared, by result (success; repeat: answered from the checkpoint"
            + " without calling the provider; error).",
        List.of("operation", "result"),
        cb -> {
          Optional<ClaimStats> c = source.claimStats();
          cb.call(c.map(ClaimStats::prepared).orElse(0L), "prepare", SUCCESS);
          cb.call(c.map(ClaimStats::repeated).orElse(0L), "prepare", "repeat");
          cb.call(c.map(ClaimStats::prepareFailures).orElse(0L), "prepare", ERROR);
          cb.call(c.map(ClaimStats::unprepared).orElse(0L), "unprepare", SUCCESS);
          cb.call(c.map(ClaimStats::unprepareFailures).orElse(0L), "unprepare", ERROR);
        });
    counter(
        "dra4j_claim_rollbacks_total",
        "Interrupted or outdated prepares rolled back (at recovery or on the next call).",
        List.of(),
        cb -> cb.call(source.claimStats().map(ClaimStats::rolledBack).orElse(0L)));
    gauge(
        "dra4j_claims_prepared",
        "Claims prepared on this node now (checkpoint records).",
        List.of(),
        cb -> cb.call(source.claimStats().map(ClaimStats::preparedNow).orElse(0L)));
    gauge(
        "dra4j_claims_in_flight",
        "Claims of the prepare and unprepare calls running now.",
        List.of(),
        cb -> cb.call(source.claimStats().map(ClaimStats::inFlight).orElse(0L)));

    counter(
        "dra4j_slice_writes_total",
        "ResourceSlice writes that succeeded, by kind (create, update, delete).",
        List.of("kind"),
        cb -> {
          Optional<PublisherStats> p = source.publisherStats();
          cb.call(p.map(PublisherStats::creates).orElse(0L), "create");
          cb.call(p.map(PublisherStats::updates).orElse(0L), "update");
          cb.call(p.map(PublisherStats::deletes).orElse(0L), "delete");
        });
    counter(
        "dra4j_slice_invalid_pools_total",
        "Pools not published because they broke an API rule (once per distinct desired state).",
        List.of(),
        cb -> cb.call(source.publisherStats().map(PublisherStats::validationFailures).orElse(0L)));
    gauge(
        "dra4j_publisher_pending_pools",
        "Pools waiting for a synchronization: changed, or failed and waiting for their retry.",
        List.of(),
        cb -> cb.call(source.pendingPools()));
    gauge(
        "dra4j_published_devices",
        "Devices handed to the slice publisher.",
        List.of(),
        cb ->
            cb.call(source.publishedInventory().stream().mapToLong(p -> p.devices().size()).sum()));

    gauge(
        "dra4j_devices",
        "Devices by health as the provider last reported it (unknown: never reported); all 0"
            + " when the provider does not report health.",
        List.of("health"),
        cb -> {
          long[] counts = new long[HealthStatus.values().length];
          source
              .healthView()
              .ifPresent(h -> h.devices().forEach(d -> counts[d.status().ordinal()]++));
          for (HealthStatus s : HealthStatus.values()) {
            cb.call(counts[s.ordinal()], label(s));
          }
        });
    gauge(
        "dra4j_device_health",
        "1 for the device's health state, 0 for the others; for the first "
            + MAX_DEVICE_SERIES
            + " devices of the health view only.",
        List.of("pool", "device", "health"),
        cb ->
            source
                .healthView()
                .ifPresent(
                    h ->
                        h.devices().stream()
                            .limit(MAX_DEVICE_SERIES)
                            .forEach(
                                d -> {
                                  for (HealthStatus s : HealthStatus.values()) {
                                    cb.call(flag(d.status() == s), d.pool(), d.device(), label(s));
                                  }
                                })));
    gauge(
        "dra4j_devices_tainted",
        "Devices carrying the driver's health taint now.",
        List.of(),
        cb ->
            cb.call(
                source
                    .healthView()
                    .map(h -> h.devices().stream().filter(HealthView.DeviceState::tainted).count())
                    .orElse(0L)));

    gauge(
        "dra4j_extended_resource_guard_state",
        "1 for the extended-resource guard's state: syncing (DeviceClasses and Node not read"
            + " yet), clear, conflict (a device plugin serves a name this driver's DeviceClasses"
            + " map), blocking (devices held back under the wait policy).",
        List.of("state"),
        cb -> {
          String state = guardState(source.guardReport());
          for (String s : GUARD_STATES) {
            cb.call(flag(s.equals(state)), s);
          }
        });
    gauge(
        "dra4j_extended_resource_conflicts",
        "Extended resource names a device plugin still serves on this node while this driver's"
            + " DeviceClasses map them.",
        List.of(),
        cb -> cb.call(source.guardReport().map(g -> g.conflicts().size()).orElse(0)));
  }

  static String guardState(Optional<GuardReport> report) {
    if (report.isEmpty() || !report.get().synced()) {
      return "syncing";
    }
    GuardReport g = report.get();
    if (g.blocking()) {
      return "blocking";
    }
    return g.conflicts().isEmpty() ? "clear" : "conflict";
  }

  // ---------------------------------------------------------------------------------------------

  private Histogram histogram(String name, String help, String... labels) {
    return Histogram.builder()
        .name(name)
        .help(help)
        .labelNames(labels)
        .classicOnly()
        .classicUpperBounds(LATENCY_BUCKETS)
        .withoutExemplars()
        .register(registry);
  }

  private void gauge(
      String name, String help, List<String> labels, Consumer<GaugeWithCallback.Callback> read) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(labels.toArray(String[]::new))
        .callback(read)
        .register(registry);
  }

  private void counter(
      String name, String help, List<String> labels, Consumer<CounterWithCallback.Callback> read) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(labels.toArray(String[]::new))
        .callback(read)
        .register(registry);
  }

  static String statusClass(int status) {
    if (status >= 200 && status < 300) {
      return "2xx";
    }
    if (status >= 400 && status < 500) {
      return "4xx";
    }
    if (status >= 500 && status < 600) {
      return "5xx";
    }
    // No response, or one the client never expects (1xx, 3xx: redirects are not followed).
    return ERROR;
  }

  private static String result(boolean failed) {
    return failed ? ERROR : SUCCESS;
  }

  private static String label(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  private static double flag(boolean b) {
    return b ? 1 : 0;
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  /** The driver's side of these metrics; the methods stay off this class's public surface. */
  private final class Observer implements DriverObserver {
    @Override
    public CallObserver kubeletCalls() {
      return DriverMetrics.this.kubeletCalls();
    }

    @Override
    public ClaimListener claims() {
      return DriverMetrics.this.claims();
    }

    @Override
    public SyncObserver publisherSyncs() {
      return DriverMetrics.this.publisherSyncs();
    }

    @Override
    public void warmedUp(Duration took) {
      DriverMetrics.this.warmedUp(took);
    }

    @Override
    public void bind(Source source) {
      DriverMetrics.this.bind(source);
    }
  }

  /**
   * The JVM's own series ({@code jvm_*}, {@code process_*}), made on the first scrape. They come
   * from the JVM's management beans, whose first use took about 200 ms of a cold start (the JMX
   * server and its beans, interpreted): a pod waiting on a restarted driver would wait for them. A
   * scrape can wait; a driver nobody scrapes never pays.
   */
  private static final class JvmSeries implements MultiCollector {
    private PrometheusRegistry jvm;

    @Override
    public synchronized MetricSnapshots collect() {
      if (jvm == null) {
        jvm = new PrometheusRegistry();
        JvmMetrics.builder().register(jvm);
      }
      return jvm.scrape();
    }
  }
}
