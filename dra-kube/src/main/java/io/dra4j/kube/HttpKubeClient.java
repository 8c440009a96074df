package io.dra4j.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.kube.internal.Backoff;
import io.dra4j.kube.internal.Failures;
import io.dra4j.kube.internal.Http1Transport;
import io.dra4j.kube.internal.StatusReasons;
import io.dra4j.kube.internal.TokenBucket;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger LOG = LoggerFactory.getLogger(HttpKubeClient.class);

  private static final String JSON = "application/json";
  private static final byte[] NO_BODY = new byte[0];

  private final KubeConfig config;
  private final Http1Transport http;
  private final ObjectMapper json = KubeJson.mapper();
  private final TokenBucket limiter;
  private final RequestObserver observer;
  private final Duration callTimeout;
  private final int maxRetries;
  private final Backoff.Policy retryBackoff;
  private final String userAgent;
  private final Set<WatchImpl<?>> watches = ConcurrentHashMap.newKeySet();
  private final AtomicLong retries = new AtomicLong();
  private volatile boolean closed;

  private HttpKubeClient(Builder b) {
    this.config = b.config;
    this.http = new Http1Transport(config.server(), config.sslContext(), b.connectTimeout);
    this.limiter = new TokenBucket(b.qps, b.burst);
    this.observer = b.observer;
    this.callTimeout = b.callTimeout;
    this.maxRetries = b.maxRetries;
    this.retryBackoff = Backoff.Policy.upTo(b.retryBase, b.retryMax);
    this.userAgent = b.userAgent;
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
    return limiter.throttled();
  }

  /** How many attempts were repeated (429, 5xx, connection errors). */
  public long retriedAttempts() {
    return retries.get();
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
    // One pass: each item straight into its record, with no JSON tree of the list first.
    try (JsonParser p = json.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("the list is not a JSON object");
      }
      ObjectReader reader = json.readerFor(type.javaType());
      List<T> items = new ArrayList<>();
      String resourceVersion = "";
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (field.equals("items") && value == JsonToken.START_ARRAY) {
          while (p.nextToken() != JsonToken.END_ARRAY) {
            items.add(reader.readValue(p));
          }
        } else if (field.equals("metadata") && value == JsonToken.START_OBJECT) {
          JsonNode metadata = p.readValueAsTree();
          resourceVersion = metadata.path("resourceVersion").asText("");
        } else {
          p.skipChildren();
        }
      }
      return new KubeList<>(items, resourceVersion);
    } catch (IOException e) {
      throw new KubeException(
          200,
          "InvalidResponse",
          "LIST " + path + ": cannot decode the response: " + Failures.describe(e),
          e);
    }
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
    long deadline = System.nanoTime() + callTimeout.toNanos();
    Http1Transport.Response response =
        send(Verb.WATCH, type.plural(), path, query, null, null, deadline, true);
    WatchImpl<T> w = new WatchImpl<>(type, path, response.stream(), handler);
    watches.add(w);
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
    byte[] body = null;
    if (!preconditions.uid().isEmpty() || !preconditions.resourceVersion().isEmpty()) {
      Map<String, Object> pre = new LinkedHashMap<>();
      if (!preconditions.uid().isEmpty()) {
        pre.put("uid", preconditions.uid());
      }
      if (!preconditions.resourceVersion().isEmpty()) {
        pre.put("resourceVersion", preconditions.resourceVersion());
      }
      Map<String, Object> options = new LinkedHashMap<>();
      options.put("apiVersion", "v1");
      options.put("kind", "DeleteOptions");
      options.put("preconditions", pre);
      body = bytes(options);
    }
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
    for (WatchImpl<?> w : watches) {
      w.close();
    }
    http.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Requests

  /** What a call does, which decides whether repeating it after an ambiguous failure is safe. */
  enum Verb {
    GET("GET", true),
    LIST("GET", true),
    WATCH("GET", true),
    CREATE("POST", false),
    UPDATE("PUT", true),
    APPLY("PATCH", true),
    DELETE("DELETE", true);

    final String method;
    final boolean repeatable;
    final String label = name().toLowerCase(Locale.ROOT);

    Verb(String method, boolean repeatable) {
      this.method = method;
      this.repeatable = repeatable;
    }
  }

  private byte[] call(
      Verb verb,
      String resource,
      String path,
      Map<String, String> query,
      byte[] body,
      String contentType)
      throws KubeException {
    long deadline = System.nanoTime() + callTimeout.toNanos();
    return send(verb, resource, path, query, body, contentType, deadline, false).body();
  }

  /**
   * @param resource the metrics label of the resource ({@link RequestObserver#attempted})
   */
  private Http1Transport.Response send(
      Verb verb,
      String resource,
      String path,
      Map<String, String> query,
      byte[] body,
      String contentType,
      long deadline,
      boolean stream)
      throws KubeException {
    if (closed) {
      throw new KubeException(0, "ClientClosed", verb.method + " " + path + ": client is closed");
    }
    String target = target(path, query);
    String what = verb.method + " " + path;
    Backoff backoff = new Backoff(retryBackoff);
    boolean tokenRefreshed = false;
    for (int attempt = 0; ; attempt++) {
      try {
        long waited = limiter.acquire(deadline);
        if (waited < 0) {
          throw new KubeException(
              0,
              "ClientRateLimited",
              what + ": the client-side rate limit would delay the call past its deadline");
        }
        if (waited > 0) {
          observer.rateLimited(verb.label, waited);
        }
        if (deadline - System.nanoTime() <= 0) {
          throw timeout(what, null);
        }
        List<String> headers = new ArrayList<>(8);
        headers.add("Accept");
        headers.add(JSON);
        headers.add("User-Agent");
        headers.add(userAgent);
        Optional<String> token = config.tokens().current();
        if (token.isPresent()) {
          headers.add("Authorization");
          headers.add("Bearer " + token.get());
        }
        if (contentType != null) {
          headers.add("Content-Type");
          headers.add(contentType);
        }
        Http1Transport.Request request =
            new Http1Transport.Request(
                verb.method, target, headers, body == null ? NO_BODY : body, verb.repeatable);
        Http1Transport.Response response;
        long sent = System.nanoTime();
        try {
          response = stream ? http.open(request, deadline) : http.exchange(request, deadline);
        } catch (IOException e) {
          observer.attempted(verb.label, resource, 0, System.nanoTime() - sent);
          throw e;
        }
        int status = response.status();
        observer.attempted(verb.label, resource, status, System.nanoTime() - sent);
        if (status >= 200 && status < 300) {
          return response;
        }
        KubeException error = error(what, status, response.body());
        if (status == 401 && !tokenRefreshed && config.tokens().refresh()) {
          tokenRefreshed = true;
          LOG.info("{}: 401 Unauthorized; retrying with the re-read token", what);
          attempt--;
          continue;
        }
        Optional<Duration> retryAfter = retryAfter(response);
        boolean retry =
            status == 429
                || (status >= 500 && retryAfter.isPresent())
                || (status >= 500 && verb.repeatable);
        if (!retry || attempt >= maxRetries) {
          throw error;
        }
        Duration delay = retryAfter.orElseGet(backoff::next);
        if (retryAfter.isPresent() && retryAfter.get().isZero()) {
          delay = backoff.next();
        }
        pause(what, delay, deadline, error);
      } catch (ConnectException e) {
        // Never sent: safe for every verb. But a LIST or WATCH belongs to an informer, which
        // repeats it on its own backoff as client-go's reflector does (client-go never retries a
        // refused connection inside a call: apimachinery v0.37.2 pkg/util/net/http.go:79-103,
        // client-go rest/request.go:776-783, 1066-1077); retries here would multiply its attempts.
        KubeException error =
            new KubeException(
                0, "ConnectionFailed", what + ": cannot connect: " + Failures.describe(e), e);
        if (attempt >= maxRetries || verb == Verb.LIST || verb == Verb.WATCH) {
          throw error;
        }
        pause(what, backoff.next(), deadline, error);
      } catch (SocketTimeoutException e) {
        if (deadline - System.nanoTime() <= 0 || !verb.repeatable || attempt >= maxRetries) {
          throw timeout(what, e);
        }
        pause(what, backoff.next(), deadline, timeout(what, e));
      } catch (Http1Transport.StaleConnectionException e) {
        KubeException error =
            new KubeException(
                0, "ConnectionFailed", what + ": connection failed: " + Failures.describe(e), e);
        if (!verb.repeatable || attempt >= maxRetries) {
          throw error;
        }
        // At once, without a backoff: the server closed an idle connection, it is not in trouble.
        // The next attempt takes a new connection (the transport emptied its pool).
        retries.incrementAndGet();
      } catch (IOException e) {
        KubeException error =
            new KubeException(
                0, "ConnectionFailed", what + ": connection failed: " + Failures.describe(e), e);
        if (!verb.repeatable || attempt >= maxRetries) {
          throw error;
        }
        pause(what, backoff.next(), deadline, error);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KubeException(0, "Interrupted", what + ": interrupted", e);
      }
    }
  }

  private void pause(String what, Duration delay, long deadline, KubeException cause)
      throws KubeException {
    if (System.nanoTime() + delay.toNanos() - deadline > 0) {
      throw cause;
    }
    retries.incrementAndGet();
    LOG.debug("{}: {}; retrying in {} ms", what, cause.getMessage(), delay.toMillis());
    try {
      Thread.sleep(delay.toMillis(), (int) (delay.toNanos() % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubeException(0, "Interrupted", what + ": interrupted", e);
    }
  }

  private static KubeException timeout(String what, Throwable cause) {
    return new KubeException(
        0, "Timeout", what + ": no response before the call's deadline", cause);
  }

  private static Optional<Duration> retryAfter(Http1Transport.Response response) {
    Optional<String> h = response.header("retry-after");
    if (h.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(h.get().trim()))));
    } catch (NumberFormatException e) {
      return Optional.of(Duration.ofSeconds(1)); // an HTTP date: rare; wait a little
    }
  }

  /** The API server's Status (reason, message) turned into an exception. */
  static KubeException error(String what, int status, byte[] body) {
    String reason = "";
    String message = "";
    try {
      JsonNode s = KubeJson.mapper().readTree(body);
      if (s != null && s.isObject()) {
        reason = s.path("reason").asText("");
        message = s.path("message").asText("");
      }
    } catch (IOException e) {
      // not JSON: use the text
    }
    if (message.isEmpty() && body.length > 0) {
      message = new String(body, 0, Math.min(body.length, 512), StandardCharsets.UTF_8).trim();
    }
    if (reason.isEmpty()) {
      reason = StatusReasons.forCode(status);
    }
    return new KubeException(status, reason, what + ": " + status + " " + reason + ": " + message);
  }

  /** The request target below the server's base URL: the path and its encoded query. */
  private static String target(String path, Map<String, String> query) {
    if (query.isEmpty()) {
      return path;
    }
    StringBuilder sb = new StringBuilder(path);
    char sep = '?';
    for (Map.Entry<String, String> e : query.entrySet()) {
      sb.append(sep)
          .append(e.getKey())
          .append('=')
          .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8).replace("+", "%20"));
      sep = '&';
    }
    return sb.toString();
  }

  private static Map<String, String> listQuery(ListOptions o, boolean watch) {
    Map<String, String> q = new LinkedHashMap<>();
    if (watch) {
      q.put("watch", "true");
    }
    if (!o.labelSelector().isEmpty()) {
      q.put("labelSelector", o.labelSelector());
    }
    if (!o.fieldSelector().isEmpty()) {
      q.put("fieldSelector", o.fieldSelector());
    }
    if (!o.resourceVersion().isEmpty()) {
      q.put("resourceVersion", o.resourceVersion());
    }
    if (watch && o.allowBookmarks()) {
      q.put("allowWatchBookmarks", "true");
    }
    if (watch && o.timeoutSeconds() > 0) {
      q.put("timeoutSeconds", Integer.toString(o.timeoutSeconds()));
    }
    return q;
  }

  /** An object's JSON for a create or update, with the namespace and name its path needs. */
  private record Body(byte[] json, String namespace, String name) {}

  /**
   * The object as JSON with its apiVersion and kind. A model record carries both and serializes
   * straight to bytes (a 64-device slice is published without building a tree of it first); any
   * other object, such as a {@link JsonNode}, goes through a tree that gets them added.
   */
  private <T> Body encode(ResourceType<T> type, T object) {
    Objects.requireNonNull(object, "object");
    if (object instanceof KubeObject k && !k.apiVersion().isEmpty() && !k.kind().isEmpty()) {
      ObjectMeta meta = k.metadata();
      return new Body(bytes(object), meta.namespace(), meta.name());
    }
    if (!(json.valueToTree(object) instanceof ObjectNode tree)) {
      throw new IllegalArgumentException(type.kind() + " did not serialize to a JSON object");
    }
    if (!tree.hasNonNull("apiVersion")) {
      tree.put("apiVersion", type.apiVersion());
    }
    if (!tree.hasNonNull("kind")) {
      tree.put("kind", type.kind());
    }
    JsonNode meta = tree.path("metadata");
    return new Body(bytes(tree), meta.path("namespace").asText(""), meta.path("name").asText(""));
  }

  private static String objectPath(ResourceType<?> type, Body body, String sub) {
    if (body.name().isEmpty()) {
      throw new IllegalArgumentException(type.kind() + ": metadata.name is required for update");
    }
    String ns = type.namespaced() ? requireNs(type, body.namespace(), "update") : "";
    String path = type.objectPath(ns, body.name());
    return sub.isEmpty() ? path : path + "/" + sub;
  }

  private static String requireNs(ResourceType<?> type, String ns, String op) {
    if (ns.isEmpty()) {
      throw new IllegalArgumentException(
          type.kind() + " is namespaced: metadata.namespace is required for " + op);
    }
    return ns;
  }

  private byte[] bytes(Object value) {
    try {
      return json.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot serialize: " + e, e);
    }
  }

  private <T> T decode(ResourceType<T> type, byte[] body) throws KubeException {
    try {
      return json.readValue(body, type.javaType());
    } catch (IOException | NumberFormatException e) {
      // Jackson reports a number it refuses (too many exponent digits) unwrapped.
      throw new KubeException(
          200,
          "InvalidResponse",
          "cannot decode a " + type.kind() + " from the response: " + Failures.describe(e),
          e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Watch

  /** The watch events whose object is a whole object of the watched type. */
  private static final Set<String> OBJECT_EVENTS = Set.of("ADDED", "MODIFIED", "DELETED");

  /** A decode whose failure ends the watch. */
  private interface Decoding<T> {
    T run() throws IOException;
  }

  /** One watch stream, read line by line on its own daemon thread. */
  private final class WatchImpl<T> implements Watch {
    private final ResourceType<T> type;
    private final String path;
    private final InputStream body;
    private final WatchHandler<T> handler;
    private final boolean direct;
    private final ObjectReader reader;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread thread;

    WatchImpl(ResourceType<T> type, String path, InputStream body, WatchHandler<T> handler) {
      this.type = type;
      this.direct = KubeObject.class.isAssignableFrom(type.javaType());
      this.reader = json.readerFor(type.javaType());
      this.path = path;
      this.body = body;
      this.handler = handler;
      this.thread = new Thread(this::run, "kube-watch-" + type.plural());
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void run() {
      Optional<KubeException> end = Optional.empty();
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while (!closed.get() && (line = r.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          Optional<KubeException> err = dispatch(line);
          if (err.isPresent()) {
            end = err;
            break;
          }
        }
      } catch (IOException | RuntimeException e) {
        end =
            Optional.of(
                new KubeException(
                    0,
                    "StreamError",
                    "WATCH " + path + ": stream failed: " + Failures.describe(e),
                    e));
      } finally {
        watches.remove(this);
      }
      if (closed.compareAndSet(false, true)) {
        handler.onClose(end);
      }
    }

    /**
     * Decodes one event. The API server writes {@code type} before {@code object}, so an object of
     * a model record is decoded straight from the line once its type is known; anything else (an
     * error, a bookmark, a JSON tree type, another field order) is read as a tree first.
     */
    private Optional<KubeException> dispatch(String line) throws IOException {
      String kind = "";
      JsonNode tree = MissingNode.getInstance();
      T value = null;
      boolean decoded = false;
      try (JsonParser p = json.createParser(line)) {
        if (p.nextToken() != JsonToken.START_OBJECT) {
          throw new IOException("a watch event is not a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          p.nextToken();
          if (field.equals("type")) {
            kind = p.getValueAsString("");
          } else if (field.equals("object") && direct && OBJECT_EVENTS.contains(kind)) {
            value = read(() -> reader.readValue(p));
            decoded = true;
          } else if (field.equals("object")) {
            tree = p.readValueAsTree();
          } else {
            p.skipChildren();
          }
        }
      }
      if ("ERROR".equals(kind)) {
        int code = tree.path("code").asInt(500);
        return Optional.of(error("WATCH " + path, code, json.writeValueAsBytes(tree)));
      }
      WatchEvent.Type t;
      try {
        t = WatchEvent.Type.valueOf(kind);
      } catch (IllegalArgumentException e) {
        LOG.warn("WATCH {}: ignoring an event of unknown type {}", path, kind);
        return Optional.empty();
      }
      String rv;
      if (decoded) {
        rv = value instanceof KubeObject k ? k.metadata().resourceVersion() : ""; // null: ""
      } else {
        rv = tree.path("metadata").path("resourceVersion").asText("");
        try {
          JsonNode object = tree;
          value = read(() -> json.treeToValue(object, type.javaType()));
        } catch (IOException e) {
          if (t != WatchEvent.Type.BOOKMARK) {
            throw e;
          }
          value = null; // a bookmark carries only metadata.resourceVersion
        }
      }
      if (!closed.get()) {
        handler.onEvent(new WatchEvent<>(t, value, rv));
      }
      return Optional.empty();
    }

    private T read(Decoding<T> decoding) throws IOException {
      try {
        return decoding.run();
      } catch (IOException | RuntimeException e) {
        throw new IOException(
            "cannot decode a " + type.kind() + " watch event: " + Failures.describe(e), e);
      }
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        watches.remove(this);
        try {
          body.close(); // closes the watch's connection: a read blocked on it ends
        } catch (IOException e) {
          // closing anyway
        }
      }
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
    private final KubeConfig config;
    private double qps = DEFAULT_QPS;
    private int burst = DEFAULT_BURST;
    private Duration callTimeout = Duration.ofSeconds(30);
    private Duration connectTimeout = Duration.ofSeconds(10);
    private int maxRetries = 5;
    private Duration retryBase = Duration.ofMillis(100);
    private Duration retryMax = Duration.ofSeconds(5);
    private String userAgent = "dra4j";
    private RequestObserver observer = RequestObserver.NONE;

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
