package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.dra4j.kube.internal.StatusReasons;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Routes Kubernetes REST requests to the {@link Store}. */
final class ApiHandler implements HttpHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ApiHandler.class);

  private final FakeApiServer server;
  private final Store store;
  private final ObjectMapper json;
  private final ObjectMapper yaml;
  private final Discovery discovery;
  private final Tables tables;

  ApiHandler(FakeApiServer server, Store store, ObjectMapper json, ObjectMapper yaml) {
    this.server = server;
    this.store = store;
    this.json = json;
    this.yaml = yaml;
    this.discovery = new Discovery(json);
    this.tables = new Tables(json, Clock.systemUTC());
  }

  /** A parsed request path. */
  record Route(ResourceDef def, String namespace, String name, String sub) {
    boolean collection() {
      return name.isEmpty();
    }

    String resource() {
      return sub.isEmpty() ? def.plural : def.plural + "/" + sub;
    }
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try {
      handleOrThrow(ex);
    } catch (ApiError e) {
      sendStatus(ex, e.code, e.reason, e.getMessage(), Optional.empty());
    } catch (IOException e) {
      LOG.debug("fake API server: connection failed: {}", e.toString());
    } catch (RuntimeException e) {
      LOG.error("fake API server: internal error", e);
      sendStatus(ex, 500, "InternalError", e.toString(), Optional.empty());
    } finally {
      ex.close();
    }
  }

  private void handleOrThrow(HttpExchange ex) throws ApiError, IOException {
    String path = ex.getRequestURI().getRawPath();
    String method = ex.getRequestMethod();
    Map<String, String> query = query(ex.getRequestURI().getRawQuery());
    if (path.equals("/healthz") || path.equals("/readyz") || path.equals("/livez")) {
      sendText(ex, 200, "ok");
      return;
    }
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    boolean anonymous = auth == null && server.allowsAnonymous();
    if (!anonymous && (auth == null || !auth.equals("Bearer " + server.token()))) {
      server.count(method.toLowerCase(java.util.Locale.ROOT), "unauthorized");
      throw new ApiError(401, "Unauthorized", "Unauthorized");
    }
    if (path.equals("/version")) {
      ObjectNode v = json.createObjectNode();
      v.put("major", "1");
      v.put("minor", "37");
      v.put("gitVersion", "v1.37.0-dra4j-fake");
      sendJson(ex, 200, v);
      return;
    }
    if (path.equals("/metrics") && method.equals("GET")) {
      sendText(ex, 200, server.metricsText());
      return;
    }
    if (method.equals("GET")) {
      Optional<ObjectNode> document =
          discovery.document(path, ex.getRequestHeaders().getFirst("Host"));
      if (document.isPresent()) {
        sendJson(ex, 200, document.get());
        return;
      }
    }
    Route route = route(path);
    String verb = verb(method, route, query);
    server.count(verb, route.resource());
    server.countRequest(
        metricVerb(verb, contentType(ex)),
        route.def(),
        route.sub(),
        !route.collection() ? "resource" : route.namespace().isEmpty() ? "cluster" : "namespace");
    long latency = server.faults().latency().toMillis();
    if (latency > 0) {
      try {
        Thread.sleep(latency);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    Optional<Faults.Failure> failure = server.faults().take(verb, route.resource());
    if (failure.isPresent()) {
      int code = failure.get().status();
      sendStatus(
          ex,
          code,
          StatusReasons.forCode(code),
          "injected failure for " + verb + " " + route.resource(),
          failure.get().retryAfterSeconds());
      return;
    }
    ResourceDef def = route.def();
    boolean table = Tables.wanted(ex.getRequestHeaders().getFirst("Accept"));
    String includeObject = query.getOrDefault("includeObject", "PartialObjectMetadata");
    switch (verb) {
      case "get":
        {
          ObjectNode o = store.get(def, route.namespace(), route.name());
          sendJson(
              ex,
              200,
              table && route.sub().isEmpty()
                  ? tables.table(
                      def,
                      List.of(o),
                      o.path("metadata").path("resourceVersion").asText(""),
                      includeObject)
                  : o);
          return;
        }
      case "list":
        {
          Store.ListResult r = store.list(def, route.namespace(), filter(def, query));
          if (table) {
            sendJson(
                ex,
                200,
                tables.table(def, r.items(), Long.toString(r.resourceVersion()), includeObject));
            return;
          }
          ObjectNode list = json.createObjectNode();
          list.put("apiVersion", def.apiVersion());
          list.put("kind", def.kind + "List");
          list.putObject("metadata").put("resourceVersion", Long.toString(r.resourceVersion()));
          ArrayNode items = list.putArray("items");
          for (ObjectNode o : r.items()) {
            // Like the real server: list items carry no apiVersion/kind.
            o.remove("apiVersion");
            o.remove("kind");
            items.add(o);
          }
          sendJson(ex, 200, list);
          return;
        }
      case "watch":
        watch(ex, route, query);
        return;
      case "create":
        sendJson(ex, 201, store.create(def, route.namespace(), body(ex, json)));
        return;
      case "update":
        sendJson(
            ex,
            200,
            store.update(
                def,
                route.namespace(),
                route.name(),
                body(ex, json),
                route.sub().equals("status")));
        return;
      case "patch":
        patch(ex, route, query);
        return;
      case "delete":
        {
          String uid = "";
          String rv = "";
          byte[] raw = ex.getRequestBody().readAllBytes();
          if (raw.length > 0) {
            JsonNode options = parse(raw, json);
            uid = options.path("preconditions").path("uid").asText("");
            rv = options.path("preconditions").path("resourceVersion").asText("");
          }
          sendJson(ex, 200, store.delete(def, route.namespace(), route.name(), uid, rv));
          return;
        }
      case "deletecollection":
        {
          List<ObjectNode> deleted =
              store.deleteCollection(def, route.namespace(), filter(def, query));
          ObjectNode list = json.createObjectNode();
          list.put("apiVersion", def.apiVersion());
          list.put("kind", def.kind + "List");
          list.putObject("metadata").put("resourceVersion", Long.toString(store.resourceVersion()));
          list.putArray("items").addAll(deleted);
          sendJson(ex, 200, list);
          return;
        }
      default:
        throw new ApiError(405, "MethodNotAllowed", method + " is not allowed on " + path);
    }
  }

  private void patch(HttpExchange ex, Route route, Map<String, String> query)
      throws ApiError, IOException {
    String type = contentType(ex);
    byte[] raw = ex.getRequestBody().readAllBytes();
    switch (type) {
      case "application/merge-patch+json":
        sendJson(
            ex,
            200,
            store.mergePatch(
                route.def(), route.namespace(), route.name(), route.sub(), parse(raw, json)));
        return;
      case "application/apply-patch+yaml":
      case "application/apply-patch+cbor":
        {
          String manager = query.getOrDefault("fieldManager", "");
          if (manager.isEmpty()) {
            throw new ApiError(
                422,
                "Invalid",
                "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is"
                    + " required for apply patch");
          }
          boolean force = "true".equals(query.get("force"));
          sendJson(
              ex,
              200,
              store.apply(
                  route.def(),
                  route.namespace(),
                  route.name(),
                  route.sub(),
                  parse(raw, yaml),
                  manager,
                  force));
          return;
        }
      default:
        throw new ApiError(
            415,
            "UnsupportedMediaType",
            "the fake API server supports application/merge-patch+json and"
                + " application/apply-patch+yaml, not "
                + type);
    }
  }

  private void watch(HttpExchange ex, Route route, Map<String, String> query)
      throws ApiError, IOException {
    boolean bookmarks = "true".equals(query.get("allowWatchBookmarks"));
    boolean initialEvents = "true".equals(query.get("sendInitialEvents"));
    if (initialEvents
        && (!bookmarks || !"NotOlderThan".equals(query.get("resourceVersionMatch")))) {
      // The real server's rule for a streaming list.
      throw new ApiError(
          422,
          "Invalid",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan and"
              + " allowWatchBookmarks to true");
    }
    Watcher w =
        store.watch(
            route.def(),
            route.namespace(),
            filter(route.def(), query),
            query.getOrDefault("resourceVersion", ""),
            bookmarks,
            initialEvents);
    long timeout = 0;
    if (query.containsKey("timeoutSeconds")) {
      try {
        timeout = Long.parseLong(query.get("timeoutSeconds")) * 1000;
      } catch (NumberFormatException e) {
        store.watches().unregister(w);
        throw ApiError.badRequest("invalid timeoutSeconds");
      }
    }
    long endAt = timeout > 0 ? System.currentTimeMillis() + timeout : Long.MAX_VALUE;
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, 0);
    server.watchOpened();
    try (OutputStream out = ex.getResponseBody()) {
      while (server.isRunning()) {
        long wait = Math.min(500, endAt - System.currentTimeMillis());
        if (wait <= 0) {
          break;
        }
        String line;
        try {
          line = w.next(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        if (line == null) {
          continue;
        }
        if (line.equals(Watcher.END)) {
          break;
        }
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } finally {
      store.watches().unregister(w);
    }
  }

  private Predicate<JsonNode> filter(ResourceDef def, Map<String, String> query) throws ApiError {
    Predicate<JsonNode> labels = Selectors.labels(query.getOrDefault("labelSelector", ""));
    Predicate<JsonNode> fields = Selectors.fields(query.getOrDefault("fieldSelector", ""), def);
    return labels.and(fields);
  }

  private static String verb(String method, Route route, Map<String, String> query)
      throws ApiError {
    switch (method) {
      case "GET":
        if (!route.collection()) {
          return "get";
        }
        String w = query.getOrDefault("watch", "");
        return w.equals("true") || w.equals("1") ? "watch" : "list";
      case "POST":
        if (route.collection()) {
          return "create";
        }
        break;
      case "PUT":
        if (!route.collection()) {
          return "update";
        }
        break;
      case "PATCH":
        if (!route.collection()) {
          return "patch";
        }
        break;
      case "DELETE":
        return route.collection() ? "deletecollection" : "delete";
      default:
        break;
    }
    throw new ApiError(405, "MethodNotAllowed", method + " is not allowed on " + route.resource());
  }

  /** The verb as the real server's request metrics name it. */
  private static String metricVerb(String verb, String contentType) {
    switch (verb) {
      case "create":
        return "POST";
      case "update":
        return "PUT";
      case "patch":
        return contentType.startsWith("application/apply-patch") ? "APPLY" : "PATCH";
      default:
        return verb.toUpperCase(java.util.Locale.ROOT);
    }
  }

  static Route route(String path) throws ApiError {
    String[] p = path.split("/");
    // p[0] is empty: the path starts with '/'.
    int i;
    String group;
    String version;
    if (p.length >= 3 && p[1].equals("api")) {
      group = "";
      version = p[2];
      i = 3;
    } else if (p.length >= 4 && p[1].equals("apis")) {
      group = p[2];
      version = p[3];
      i = 4;
    } else {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    }
    String ns = "";
    if (p.length > i + 2 && p[i].equals("namespaces")) {
      ns = decode(p[i + 1]);
      i += 2;
    }
    if (p.length <= i) {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    }
    String plural = p[i];
    Optional<ResourceDef> def = ResourceDef.find(group, version, plural);
    if (def.isEmpty() || (!ns.isEmpty() && !def.get().namespaced)) {
      throw new ApiError(
          404,
          "NotFound",
          "the server could not find the requested resource ("
              + (group.isEmpty() ? "" : group + "/")
              + version
              + ", "
              + plural
              + ")");
    }
    String name = p.length > i + 1 ? decode(p[i + 1]) : "";
    String sub = p.length > i + 2 ? p[i + 2] : "";
    if (p.length > i + 3 || (!sub.isEmpty() && !(sub.equals("status") && def.get().hasStatus))) {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    }
    return new Route(def.get(), ns, name, sub);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return q;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      if (eq < 0) {
        q.put(decode(part), "");
      } else {
        q.put(decode(part.substring(0, eq)), decode(part.substring(eq + 1)));
      }
    }
    return q;
  }

  private static String contentType(HttpExchange ex) {
    String t = ex.getRequestHeaders().getFirst("Content-Type");
    if (t == null) {
      return "";
    }
    int semi = t.indexOf(';');
    return (semi < 0 ? t : t.substring(0, semi)).trim().toLowerCase(java.util.Locale.ROOT);
  }

  private static JsonNode body(HttpExchange ex, ObjectMapper mapper) throws ApiError, IOException {
    return parse(ex.getRequestBody().readAllBytes(), mapper);
  }

  private static JsonNode parse(byte[] raw, ObjectMapper mapper) throws ApiError {
    try {
      JsonNode n = mapper.readTree(raw);
      if (n == null || n.isMissingNode()) {
        throw ApiError.badRequest("the request body is empty");
      }
      return n;
    } catch (IOException e) {
      throw ApiError.badRequest("the request body is not valid: " + e.getMessage());
    }
  }

  private void sendJson(HttpExchange ex, int code, JsonNode body) throws IOException {
    byte[] bytes = json.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void sendText(HttpExchange ex, int code, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain");
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private void sendStatus(
      HttpExchange ex, int code, String reason, String message, Optional<Integer> retryAfter) {
    ObjectNode s = json.createObjectNode();
    s.put("kind", "Status");
    s.put("apiVersion", "v1");
    s.putObject("metadata");
    s.put("status", "Failure");
    s.put("message", message);
    s.put("reason", reason);
    s.put("code", code);
    retryAfter.ifPresent(
        r -> {
          ex.getResponseHeaders().set("Retry-After", Integer.toString(r));
          s.putObject("details").put("retryAfterSeconds", r);
        });
    try {
      sendJson(ex, code, s);
    } catch (IOException e) {
      LOG.debug("fake API server: cannot send the error: {}", e.toString());
    }
  }
}
