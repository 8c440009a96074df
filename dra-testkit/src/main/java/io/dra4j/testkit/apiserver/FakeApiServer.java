package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Node;
import io.dra4j.kube.ResourceType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory Kubernetes API server for tests, over real HTTP (plain {@code http://}, bearer
 * token). It serves {@code resource.k8s.io/v1} ResourceSlice, ResourceClaim (+ status),
 * ResourceClaimTemplate, DeviceClass, DeviceTaintRule (+ status) and core/v1 Node (+ status) and
 * Pod (+ status) with the REST conventions a driver depends on:
 *
 * <ul>
 *   <li>one global resourceVersion counter; uid, creationTimestamp and generation on create;
 *       generation bumped on spec changes; no-op writes do not bump anything;
 *   <li>create with generateName (5 random characters), 409 AlreadyExists, 409 Conflict on a stale
 *       resourceVersion, delete preconditions (uid, resourceVersion), finalizers
 *       (deletionTimestamp), DeleteCollection with selectors;
 *   <li>label selectors ({@code =, ==, !=, in, notin, key, !key}) and field selectors ({@code
 *       metadata.name}, {@code metadata.namespace}; slices: {@code spec.nodeName}, {@code
 *       spec.driver}, {@code spec.pool.name}; pods: {@code spec.nodeName}, {@code status.phase});
 *   <li>watches as chunked HTTP/1.1 streams: ADDED/MODIFIED/DELETED, BOOKMARK when asked, 410
 *       Expired (an ERROR event) when the resourceVersion is older than the bounded history;
 *   <li>status subresources (PUT, merge patch, apply), JSON merge patch, and a simplified
 *       server-side apply: the applied object is merged, list-maps merge by key ({@code
 *       status.devices} by driver/pool/device/shareID, conditions by type, reservedFor by uid), a
 *       field manager's {@code status.devices} entries it no longer applies are removed, changing
 *       another manager's entry is a 409 conflict unless forced;
 *   <li>validation a driver hits: claim spec immutable, {@code status.devices} must name allocated
 *       devices, slice driver / pool name / node name immutable;
 *   <li>Kubernetes Status objects for errors;
 *   <li>fields the v1.37.2 resource.k8s.io/v1 schema does not know are dropped on every write, as
 *       the real server drops unknown fields of a built-in type.
 * </ul>
 *
 * <p>Not modelled: strategic merge patch and JSON patch (415), graceful pod deletion, admission,
 * most validation, RBAC, field-level managedFields. Fault injection: {@link #faults()}.
 *
 * <p>Its contract ({@code KubeClientContractTest}) also runs against the real kube-apiserver
 * v1.37.2 in the e2e suite. Differences found there, and what was done:
 *
 * <ul>
 *   <li>Unknown fields: the real server drops them (with a warning header); this server kept them.
 *       Now it prunes them too, along the bundled v1.37.2 OpenAPI document (which before was a
 *       pre-release copy without {@code compatibilityGroups} and {@code derivedAttributes}).
 *       Deliberately left: no {@code Warning} header, and Node and Pod are kept as sent (the
 *       bundled document covers resource.k8s.io only).
 *   <li>Deliberate: no authentication beyond one bearer token, no authorization and no admission.
 *       The real server refuses a driver's {@code status.devices} write for a claim allocated on
 *       another node with 422 Invalid (a Forbidden field error naming {@code resourceclaims/driver}
 *       and {@code arbitrary-node:patch}), and the deployment's ValidatingAdmissionPolicy refuses
 *       another node's slice; test those against the e2e cluster ({@code ClaimStatusIT}).
 *   <li>Deliberate: a pod is deleted at once; a real server waits for its kubelet unless the grace
 *       period is 0.
 * </ul>
 */
public final class FakeApiServer implements AutoCloseable {
  static {
    // The JDK's HttpServer leaves Nagle's algorithm on unless told otherwise (read once, when its
    // first server starts): every response then waits ~40 ms for the client's delayed ACK. Real
    // API servers set TCP_NODELAY; so does this one, unless the JVM was told something else.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final String host;
  private final String token;
  private final boolean allowAnonymous;
  private final Duration bookmarkInterval;
  private final Store store;
  private final Faults faults = new Faults(this);
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> requestTotals = new ConcurrentHashMap<>();
  private final AtomicLong watchesOpened = new AtomicLong();
  private final ObjectMapper json = KubeJson.mapper();
  private final ObjectMapper yaml = KubeJson.yaml();
  private int port;
  private HttpServer http;
  private ExecutorService executor;
  private ScheduledExecutorService ticker;
  private volatile boolean running;

  private FakeApiServer(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.token = b.token;
    this.allowAnonymous = b.allowAnonymous;
    this.bookmarkInterval = b.bookmarkInterval;
    this.store = new Store(json, b.historyLimit);
  }

  /** A builder: loopback, a free port, a random token, 1000 events of history. */
  public static Builder builder() {
    return new Builder();
  }

  /** A server with the defaults, started. */
  public static FakeApiServer start() {
    return builder().build().startServer();
  }

  /** Starts listening (again, on the same port after {@link #stop()}). */
  public synchronized FakeApiServer startServer() {
    if (running) {
      return this;
    }
    try {
      http = bind();
    } catch (IOException e) {
      throw new UncheckedIOException("fake API server: cannot listen on " + host + ":" + port, e);
    }
    port = http.getAddress().getPort();
    executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "fake-apiserver-" + port);
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(executor);
    http.createContext("/", new ApiHandler(this, store, json, yaml));
    running = true;
    http.start();
    ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "fake-apiserver-bookmarks-" + port);
              t.setDaemon(true);
              return t;
            });
    long every = bookmarkInterval.toMillis();
    ticker.scheduleAtFixedRate(store::bookmark, every, every, TimeUnit.MILLISECONDS);
    return this;
  }

  private HttpServer bind() throws IOException {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(host), port);
    BindException last = null;
    // After a stop the port may linger briefly; a restart retries for a moment.
    for (int i = 0; i < 50; i++) {
      try {
        return HttpServer.create(address, 128);
      } catch (BindException e) {
        last = e;
        if (port == 0) {
          throw e;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
    throw last;
  }

  /**
   * "API server down": stops listening and cuts every connection, open watches included. The stored
   * objects stay; {@link #restart()} serves them again on the same port.
   */
  public synchronized void stop() {
    if (!running) {
      return;
    }
    running = false;
    ticker.shutdownNow();
    http.stop(0);
    store.watches().endWatches();
    executor.shutdownNow();
  }

  /** Starts again on the same port after {@link #stop()}. */
  public FakeApiServer restart() {
    return startServer();
  }

  public boolean isRunning() {
    return running;
  }

  @Override
  public void close() {
    stop();
  }

  /** The base URL, e.g. {@code http://127.0.0.1:40123}. */
  public URI url() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return URI.create("http://" + h + ":" + port);
  }

  public int port() {
    return port;
  }

  /** The bearer token clients must send. */
  public String token() {
    return token;
  }

  /** Whether requests without credentials are served ({@link Builder#allowAnonymous}). */
  boolean allowsAnonymous() {
    return allowAnonymous;
  }

  /** Fault injection. */
  public Faults faults() {
    return faults;
  }

  /** A client configuration for this server. */
  public KubeConfig kubeConfig() {
    return KubeConfig.builder(url()).token(token).source("fake API server " + url()).build();
  }

  /** A client builder for this server (tests tune retries, rate limit and deadline on it). */
  public HttpKubeClient.Builder clientBuilder() {
    return HttpKubeClient.builder(kubeConfig());
  }

  /** A client for this server with a generous rate limit (tests make many calls). */
  public HttpKubeClient newClient() {
    return clientBuilder().rateLimit(1000, 1000).build();
  }

  /** Writes a kubeconfig (server, token, context {@code dra4j-fake}) atomically. */
  public Path writeKubeconfig(Path file) {
    String yamlText =
        "apiVersion: v1\n"
            + "kind: Config\n"
            + "clusters:\n"
            + "- name: dra4j-fake\n"
            + "  cluster:\n"
            + "    server: "
            + url()
            + "\n"
            + "users:\n"
            + "- name: dra4j-fake\n"
            + "  user:\n"
            + "    token: "
            + token
            + "\n"
            + "contexts:\n"
            + "- name: dra4j-fake\n"
            + "  context:\n"
            + "    cluster: dra4j-fake\n"
            + "    user: dra4j-fake\n"
            + "    namespace: default\n"
            + "current-context: dra4j-fake\n";
    try {
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, ".kubeconfig", ".tmp");
      Files.writeString(tmp, yamlText, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write kubeconfig " + file, e);
    }
  }

  // --------------------------------------------------------------------------------------------
  // Observability

  void count(String verb, String resource) {
    counts.computeIfAbsent(verb + " " + resource, k -> new AtomicLong()).incrementAndGet();
  }

  /**
   * Counts a request under the labels of the real server's {@code apiserver_request_total} (verb as
   * the real server reports it: {@code GET}, {@code LIST}, {@code WATCH}, {@code POST}, {@code
   * PUT}, {@code PATCH}, {@code APPLY}, {@code DELETE}, {@code DELETECOLLECTION}), so a harness
   * reads {@code /metrics} of either server the same way.
   */
  void countRequest(String verb, ResourceDef def, String subresource, String scope) {
    String labels =
        "group=\""
            + def.group
            + "\",resource=\""
            + def.plural
            + "\",scope=\""
            + scope
            + "\",subresource=\""
            + subresource
            + "\",verb=\""
            + verb
            + "\",version=\""
            + def.version
            + "\"";
    requestTotals.computeIfAbsent(labels, k -> new AtomicLong()).incrementAndGet();
  }

  /** {@code /metrics}: the request counters in the Prometheus text format. */
  String metricsText() {
    StringBuilder b =
        new StringBuilder(
            "# HELP apiserver_request_total Counter of apiserver requests broken out for each verb,"
                + " group, version, resource, scope and subresource.\n"
                + "# TYPE apiserver_request_total counter\n");
    new TreeMap<>(requestTotals)
        .forEach(
            (labels, n) ->
                b.append("apiserver_request_total{")
                    .append(labels)
                    .append("} ")
                    .append(n.get())
                    .append('\n'));
    return b.toString();
  }

  void watchOpened() {
    watchesOpened.incrementAndGet();
  }

  /**
   * Requests received for a verb and resource ({@code "create", "resourceslices"}; {@code "patch",
   * "resourceclaims/status"}), failed and injected ones included.
   */
  public long requests(String verb, String resource) {
    AtomicLong c = counts.get(verb + " " + resource);
    return c == null ? 0 : c.get();
  }

  /** All request counters, keyed {@code "verb resource"}. */
  public Map<String, Long> requestCounts() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** Write requests (create, update, patch, delete, deletecollection) for a resource. */
  public long writes(String resource) {
    long n = 0;
    for (String verb : List.of("create", "update", "patch", "delete", "deletecollection")) {
      n += requests(verb, resource) + requests(verb, resource + "/status");
    }
    return n;
  }

  /** Watch streams opened so far. */
  public long watchesOpened() {
    return watchesOpened.get();
  }

  /** Watch streams open now. */
  public int openWatches() {
    return store.watches().openWatches();
  }

  /** The current global resourceVersion. */
  public long resourceVersion() {
    return store.resourceVersion();
  }

  // --------------------------------------------------------------------------------------------
  // Direct access to the stored objects

  /** Every stored object of a type, decoded. */
  public <T> List<T> objects(ResourceType<T> type) {
    List<T> out = new ArrayList<>();
    for (ObjectNode o : store.all(def(type))) {
      out.add(decode(type, o));
    }
    return out;
  }

  /** One stored object, decoded. */
  public <T> Optional<T> object(ResourceType<T> type, String namespace, String name) {
    try {
      return Optional.of(decode(type, store.get(def(type), namespace, name)));
    } catch (ApiError e) {
      return Optional.empty();
    }
  }

  /** One stored object as JSON (everything the server holds, managedFields included). */
  public Optional<JsonNode> raw(ResourceType<?> type, String namespace, String name) {
    try {
      return Optional.of(store.get(def(type), namespace, name));
    } catch (ApiError e) {
      return Optional.empty();
    }
  }

  /**
   * Registers a Node the way a kubelet would (a label {@code kubernetes.io/hostname}, some CPU and
   * memory): a driver's ResourceSlices are owned by their Node, so a driver cannot publish until it
   * exists.
   */
  public Node putNode(String name) {
    return put(
        Node.TYPE,
        json.convertValue(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Node",
                "metadata",
                Map.of("name", name, "labels", Map.of("kubernetes.io/hostname", name)),
                "status",
                Map.of(
                    "capacity", Map.of("cpu", "16", "memory", "64Gi", "pods", "110"),
                    "allocatable", Map.of("cpu", "16", "memory", "62Gi", "pods", "110"))),
            Node.class));
  }

  /**
   * Stores an object as a create would (uid, resourceVersion, …) but keeps its status: for seeding
   * Nodes, Pods and allocated claims.
   */
  public <T> T put(ResourceType<T> type, T object) {
    try {
      return decode(type, store.seed(def(type), json.valueToTree(object)));
    } catch (ApiError e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  Store store() {
    return store;
  }

  private <T> T decode(ResourceType<T> type, JsonNode o) {
    try {
      return json.treeToValue(o, type.javaType());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ResourceDef def(ResourceType<?> type) {
    return ResourceDef.find(type.group(), type.version(), type.plural())
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "the fake API server does not serve "
                        + type.apiVersion()
                        + " "
                        + type.plural()));
  }

  /** Builds a {@link FakeApiServer}. */
  public static final class Builder {
    // The defaults, also shown by the standalone server's --help.
    static final String DEFAULT_HOST = "127.0.0.1";
    static final int DEFAULT_HISTORY_LIMIT = 1000;
    static final int DEFAULT_BOOKMARK_INTERVAL_MS = 1000;

    private String host = DEFAULT_HOST;
    private int port;
    private String token = randomToken();
    private int historyLimit = DEFAULT_HISTORY_LIMIT;
    private boolean allowAnonymous;
    private Duration bookmarkInterval = Duration.ofMillis(DEFAULT_BOOKMARK_INTERVAL_MS);

    private Builder() {}

    /** The address to listen on (default loopback). */
    public Builder host(String value) {
      host = Objects.requireNonNull(value, "host");
      return this;
    }

    /** The port; 0 (the default) picks a free one. */
    public Builder port(int value) {
      port = value;
      return this;
    }

    /**
     * Serves requests that carry no credentials at all (a wrong token is still refused). Default
     * false. Go clients need it: client-go reads a kubeconfig's credentials only for an https
     * server, so over this server's plain http it sends none.
     */
    public Builder allowAnonymous(boolean value) {
      allowAnonymous = value;
      return this;
    }

    /** The bearer token clients must send (default random). */
    public Builder token(String value) {
      token = Objects.requireNonNull(value, "token");
      return this;
    }

    /** How many events watches can resume from; older resourceVersions get 410 Expired. */
    public Builder historyLimit(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("history limit must be >= 1");
      }
      historyLimit = value;
      return this;
    }

    /** How often watches that asked for bookmarks get one (default 1 s). */
    public Builder bookmarkInterval(Duration value) {
      bookmarkInterval = value;
      return this;
    }

    /** The server, not yet listening: call {@link FakeApiServer#startServer()}. */
    public FakeApiServer build() {
      return new FakeApiServer(this);
    }
  }

  private static String randomToken() {
    byte[] b = new byte[16];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
