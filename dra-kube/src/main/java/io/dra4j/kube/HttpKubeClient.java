package io.dra4j.kube;

import static io.dra4j.kube.HttpCalls.JSON;
import static io.dra4j.kube.WireCodec.bytes;
import static io.dra4j.kube.WireCodec.decode;
import static io.dra4j.kube.WireCodec.encode;
import static io.dra4j.kube.WireCodec.listQuery;
import static io.dra4j.kube.WireCodec.objectPath;
import static io.dra4j.kube.WireCodec.requireNs;

import io.dra4j.kube.HttpCalls.Verb;
import io.dra4j.kube.WireCodec.Body;
import io.dra4j.kube.internal.Http1Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link KubeClient} on HTTP/1.1 over blocking sockets ({@link Http1Transport}) and Jackson.
 *
 * <p><b>Rate limit.</b> A token bucket like client-go's, at 50 QPS with a burst of 100 by default
 * (client-go's 5/10 would make a burst of pods wait for the limiter: a driver reads every claim it
 * prepares, on the pod-start critical path). A call whose wait for a token would pass its deadline
 * fails at once with reason {@code ClientRateLimited}.
 *
 * <p><b>Deadline.</b> Every call (all attempts together, rate-limit waits and backoff included) has
 * a deadline, 30 s by default; past it the call fails with status 0 and reason {@code Timeout}.
 *
 * <p><b>Retries</b> (exponential backoff with jitter, Retry-After honoured, bounded by the
 * deadline):
 *
 * <ul>
 *   <li>429 and any 5xx that carries Retry-After: every verb, create included. The API server sends
 *       these (priority and fairness, max-in-flight, storage not ready) only for requests it did
 *       not process, which is also client-go's rule.
 *   <li>Connection refused: every verb but LIST and WATCH, the request was never sent. A refused
 *       LIST or WATCH fails at once: an {@link Informer} repeats it on its own backoff, as
 *       client-go's reflector does, and retries inside the call would multiply its attempts while
 *       the API server is away.
 *   <li>Other 5xx, a response timeout, a reset connection: only calls that are safe to repeat. GET,
 *       LIST, apply (idempotent by design), update (it carries the resourceVersion: a repeat of an
 *       update that did land fails with 409, never writes twice) and delete (a repeat that finds
 *       the object gone reports NotFound, which callers treat as done). <b>Create is never retried
 *       after an ambiguous failure</b>: with generateName a repeat would create a second object,
 *       and with a fixed name it would turn success into AlreadyExists.
 * </ul>
 *
 * <p>Every attempt takes a token, repeats included, so the server never sees more than the rate
 * limit allows. A request that met a kept-alive connection the server had closed meanwhile is sent
 * again at once on a new connection when it is safe to repeat (this too takes a token); one that is
 * not, a create, only ever reuses a connection that answered a moment ago ({@link Http1Transport}).
 *
 * <p>A 401 makes the client re-read a rotating token file once and retry if the token changed.
 */
public final class HttpKubeClient implements KubeClient {
  private final KubeConfig config;
  private final HttpCalls calls;
  private final Set<WatchStream<?>> watches = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private HttpKubeClient(Builder b) {
    this.config = b.config;
    this.calls = new HttpCalls(b);
  }

  /** A builder with safe defaults (50 QPS, burst 100, 30 s deadline, 5 retries). */
  public static Builder builder(KubeConfig config) {
    return new Builder(config);
  }

  /** The configuration this client uses. */
  public KubeConfig config() {
    return config;
  }

  /** How many calls had to wait for the client-side rate limit. */
  public long throttledCalls() {
    return calls.throttled();
  }

  /** How many attempts were repeated (429, 5xx, connection errors). */
  public long retriedAttempts() {
    return calls.retried();
  }

  // ---------------------------------------------------------------------------------------------
  // KubeClient

  @Override
  public <T> T get(ResourceType<T> type, String namespace, String name) throws KubeException {
    String path = type.objectPath(namespace, name);
    return decode(type, call(Verb.GET, type.plural(), path, Map.of(), null, null));
  }

  @Override
  public <T> KubeList<T> list(ResourceType<T> type, String namespace, ListOptions options)
      throws KubeException {
    String path = type.collectionPath(namespace);
    byte[] body = call(Verb.LIST, type.plural(), path, listQuery(options, false), null, null);
    return WireCodec.decodeList(type, path, body);
  }

  /**
   * A GET of a path outside the resource tree, such as {@code /version}: the body as sent, with the
   * same authentication, rate limit and retries as every other call.
   */
  public byte[] getRaw(String path) throws KubeException {
    return call(Verb.GET, "", path, Map.of(), null, null);
  }

  /**
   * Deletes every object of the collection that matches the selectors (DeleteCollection), as the
   * kubelet does with a node's ResourceSlices.
   */
  public void deleteCollection(ResourceType<?> type, String namespace, ListOptions options)
      throws KubeException {
    call(
        Verb.DELETE,
        type.plural(),
        type.collectionPath(namespace),
        listQuery(options, false),
        null,
        null);
  }

  @Override
  public <T> Watch watch(
      ResourceType<T> type, String namespace, ListOptions options, WatchHandler<T> handler)
      throws KubeException {
    Objects.requireNonNull(handler, "handler");
    String path = type.collectionPath(namespace);
    Map<String, String> query = listQuery(options, true);
    requireOpen(Verb.WATCH, path);
    WatchStream<T> w =
        new WatchStream<>(
            type, path, calls.open(Verb.WATCH, type.plural(), path, query), handler, watches);
    w.start();
    return w;
  }

  @Override
  public <T> T create(ResourceType<T> type, T object) throws KubeException {
    Body body = encode(type, object);
    String ns = type.namespaced() ? requireNs(type, body.namespace(), "create") : "";
    String path = type.collectionPath(ns);
    return decode(type, call(Verb.CREATE, type.plural(), path, Map.of(), body.json(), JSON));
  }

  @Override
  public <T> T update(ResourceType<T> type, T object) throws KubeException {
    Body body = encode(type, object);
    return decode(
        type,
        call(Verb.UPDATE, type.plural(), objectPath(type, body, ""), Map.of(), body.json(), JSON));
  }

  @Override
  public <T> T updateStatus(ResourceType<T> type, T object) throws KubeException {
    Body body = encode(type, object);
    return decode(
        type,
        call(
            Verb.UPDATE,
            type.plural() + "/status",
            objectPath(type, body, "status"),
            Map.of(),
            body.json(),
            JSON));
  }

  @Override
  public void delete(
      ResourceType<?> type, String namespace, String name, Preconditions preconditions)
      throws KubeException {
    byte[] body = WireCodec.deleteOptions(preconditions);
    call(
        Verb.DELETE,
        type.plural(),
        type.objectPath(namespace, name),
        Map.of(),
        body,
        body == null ? null : JSON);
  }

  @Override
  public <T> T apply(
      ResourceType<T> type,
      String namespace,
      String name,
      String subresource,
      Map<String, Object> patch,
      ApplyOptions options)
      throws KubeException {
    String path = type.objectPath(namespace, name);
    String resource = type.plural();
    if (subresource != null && !subresource.isEmpty()) {
      path += "/" + subresource;
      resource += "/" + subresource;
    }
    Map<String, String> query = new LinkedHashMap<>();
    query.put("fieldManager", options.fieldManager());
    if (options.force()) {
      query.put("force", "true");
    }
    // YAML is a superset of JSON, so the apply content type takes a JSON body.
    byte[] body = bytes(patch);
    return decode(
        type, call(Verb.APPLY, resource, path, query, body, "application/apply-patch+yaml"));
  }

  @Override
  public void close() {
    closed = true;
    for (WatchStream<?> w : watches) {
      w.close();
    }
    calls.close();
  }

  private byte[] call(
      Verb verb,
      String resource,
      String path,
      Map<String, String> query,
      byte[] body,
      String contentType)
      throws KubeException {
    requireOpen(verb, path);
    return calls.call(verb, resource, path, query, body, contentType);
  }

  private void requireOpen(Verb verb, String path) throws KubeException {
    if (closed) {
      throw new KubeException(0, "ClientClosed", verb.method + " " + path + ": client is closed");
    }
  }

  /**
   * The default rate limit, above client-go's 5/10: a driver reads every claim on the pod-start
   * critical path, and a burst of pods must not queue behind the limiter.
   */
  public static final double DEFAULT_QPS = 50;

  /** The default burst; see {@link #DEFAULT_QPS}. */
  public static final int DEFAULT_BURST = 100;

  /** Builds an {@link HttpKubeClient}. */
  public static final class Builder {
    // Read by HttpCalls, which takes its settings from the builder.
    final KubeConfig config;
    double qps = DEFAULT_QPS;
    int burst = DEFAULT_BURST;
    Duration callTimeout = Duration.ofSeconds(30);
    Duration connectTimeout = Duration.ofSeconds(10);
    int maxRetries = 5;
    Duration retryBase = Duration.ofMillis(100);
    Duration retryMax = Duration.ofSeconds(5);
    String userAgent = "dra4j";
    RequestObserver observer = RequestObserver.NONE;

    private Builder(KubeConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /** Client-side rate limit: sustained calls per second and burst (default 50 / 100). */
    public Builder rateLimit(double qps, int burst) {
      if (qps <= 0 || burst < 1) {
        throw new IllegalArgumentException("rate limit needs qps > 0 and burst >= 1");
      }
      this.qps = qps;
      this.burst = burst;
      return this;
    }

    /** Deadline of one call, all attempts included (default 30 s). */
    public Builder callTimeout(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("call timeout must be positive");
      }
      callTimeout = value;
      return this;
    }

    /** TCP/TLS connect timeout of one attempt (default 10 s). */
    public Builder connectTimeout(Duration value) {
      connectTimeout = value;
      return this;
    }

    /** Retries after the first attempt (default 5), and the backoff range (100 ms to 5 s). */
    public Builder retries(int max, Duration base, Duration maxDelay) {
      if (max < 0) {
        throw new IllegalArgumentException("retries must be >= 0");
      }
      maxRetries = max;
      retryBase = base;
      retryMax = maxDelay;
      return this;
    }

    /** The User-Agent header, e.g. {@code gpu.example.com/1.2 (dra4j)}. */
    public Builder userAgent(String value) {
      userAgent = value;
      return this;
    }

    /**
     * Hears every attempt and every rate-limit wait, e.g. a driver's metrics. Default: {@link
     * RequestObserver#NONE}.
     */
    public Builder observer(RequestObserver value) {
      observer = Objects.requireNonNull(value, "observer");
      return this;
    }

    public HttpKubeClient build() {
      return new HttpKubeClient(this);
    }
  }
}
