package io.dra4j.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.dra4j.kube.internal.Failures;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch stream of {@link HttpKubeClient}, read line by line on its own daemon thread. It is in
 * the client's set of open watches from its start until it ends or is closed.
 */
final class WatchStream<T> implements Watch {
  // The client's logger: log settings name the public class, not its parts.
  private static final Logger LOG = LoggerFactory.getLogger(HttpKubeClient.class);

  private static final ObjectMapper MAPPER = KubeJson.mapper();

  /** The watch events whose object is a whole object of the watched type. */
  private static final Set<String> OBJECT_EVENTS = Set.of("ADDED", "MODIFIED", "DELETED");

  /** A decode whose failure ends the watch. */
  private interface Decoding<R> {
    R run() throws IOException;
  }

  private final ResourceType<T> type;
  private final String path;
  private final InputStream body;
  private final WatchHandler<T> handler;
  private final Set<WatchStream<?>> watches;
  private final boolean direct;
  private final ObjectReader reader;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread thread;

  WatchStream(
      ResourceType<T> type,
      String path,
      InputStream body,
      WatchHandler<T> handler,
      Set<WatchStream<?>> watches) {
    this.type = type;
    this.direct = KubeObject.class.isAssignableFrom(type.javaType());
    this.reader = MAPPER.readerFor(type.javaType());
    this.path = path;
    this.body = body;
    this.handler = handler;
    this.watches = watches;
    this.thread = new Thread(this::run, "kube-watch-" + type.plural());
    this.thread.setDaemon(true);
  }

  /** Adds the watch to the client's open watches and starts reading. */
  void start() {
    watches.add(this);
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
   * Decodes one event. The API server writes {@code type} before {@code object}, so an object of a
   * model record is decoded straight from the line once its type is known; anything else (an error,
   * a bookmark, a JSON tree type, another field order) is read as a tree first.
   */
  private Optional<KubeException> dispatch(String line) throws IOException {
    String kind = "";
    JsonNode tree = MissingNode.getInstance();
    T value = null;
    boolean decoded = false;
    try (JsonParser p = MAPPER.createParser(line)) {
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
      return Optional.of(HttpCalls.error("WATCH " + path, code, MAPPER.writeValueAsBytes(tree)));
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
        value = read(() -> MAPPER.treeToValue(object, type.javaType()));
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
