package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.kube.internal.StatusReasons;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** One open watch: a queue of encoded events that its HTTP stream drains. */
final class Watcher {
  static final String END = "\u0000end";

  private final ResourceDef def;
  private final String namespace;
  private final Predicate<JsonNode> filter;
  private final boolean bookmarks;
  private final ObjectMapper json;
  private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();

  Watcher(
      ResourceDef def,
      String namespace,
      Predicate<JsonNode> filter,
      boolean bookmarks,
      ObjectMapper json) {
    this.def = def;
    this.namespace = namespace;
    this.filter = filter;
    this.bookmarks = bookmarks;
    this.json = json;
  }

  private boolean matches(JsonNode o) {
    return o != null
        && (!def.namespaced
            || namespace.isEmpty()
            || namespace.equals(o.path("metadata").path("namespace").asText()))
        && filter.test(o);
  }

  /** Queues what this watcher sees of a store event (selectors can turn MODIFIED into ADDED). */
  void offer(Watches.Event e) {
    if (e.def() != def) {
      return;
    }
    boolean oldMatch = matches(e.oldObj());
    boolean newMatch = matches(e.newObj());
    switch (e.type()) {
      case "ADDED":
        if (newMatch) {
          send("ADDED", e.newObj());
        }
        break;
      case "MODIFIED":
        if (oldMatch && newMatch) {
          send("MODIFIED", e.newObj());
        } else if (newMatch) {
          send("ADDED", e.newObj());
        } else if (oldMatch) {
          send("DELETED", e.newObj());
        }
        break;
      case "DELETED":
        if (oldMatch) {
          send("DELETED", e.newObj());
        }
        break;
      default:
        break;
    }
  }

  void send(String type, JsonNode object) {
    ObjectNode event = json.createObjectNode();
    event.put("type", type);
    event.set("object", object);
    put(event);
  }

  void bookmark(long rv) {
    if (bookmarks) {
      send("BOOKMARK", bookmarkObject(rv));
    }
  }

  /** The bookmark that ends a streaming list's initial events, as the real server marks it. */
  void initialEventsEnd(long rv) {
    ObjectNode object = bookmarkObject(rv);
    ((ObjectNode) object.get("metadata"))
        .putObject("annotations")
        .put(INITIAL_EVENTS_END_ANNOTATION, "true");
    send("BOOKMARK", object);
  }

  static final String INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

  private ObjectNode bookmarkObject(long rv) {
    ObjectNode object = json.createObjectNode();
    object.put("kind", def.kind);
    object.put("apiVersion", def.apiVersion());
    object.putObject("metadata").put("resourceVersion", Long.toString(rv));
    return object;
  }

  void expire(String message) {
    ObjectNode status = json.createObjectNode();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.putObject("metadata");
    status.put("status", "Failure");
    status.put("message", message);
    status.put("reason", StatusReasons.forCode(410));
    status.put("code", 410);
    send("ERROR", status);
    end();
  }

  void end() {
    queue.add(END);
  }

  private void put(ObjectNode event) {
    try {
      queue.add(json.writeValueAsString(event));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The next encoded event, {@link #END}, or null after the timeout. */
  String next(long timeoutMillis) throws InterruptedException {
    return queue.poll(timeoutMillis, TimeUnit.MILLISECONDS);
  }
}
