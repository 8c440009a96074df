package io.dra4j.kube;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.kube.internal.Failures;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The wire form of {@link HttpKubeClient}'s typed calls: the paths, queries and JSON bodies that go
 * out, and the records that come back.
 */
final class WireCodec {
  private static final ObjectMapper MAPPER = KubeJson.mapper();

  private WireCodec() {}

  /** The query of a LIST, a WATCH or a DeleteCollection. */
  static Map<String, String> listQuery(ListOptions o, boolean watch) {
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
  record Body(byte[] json, String namespace, String name) {}

  /**
   * The object as JSON with its apiVersion and kind. A model record carries both and serializes
   * straight to bytes (a 64-device slice is published without building a tree of it first); any
   * other object, such as a {@link JsonNode}, goes through a tree that gets them added.
   */
  static <T> Body encode(ResourceType<T> type, T object) {
    Objects.requireNonNull(object, "object");
    if (object instanceof KubeObject k && !k.apiVersion().isEmpty() && !k.kind().isEmpty()) {
      ObjectMeta meta = k.metadata();
      return new Body(bytes(object), meta.namespace(), meta.name());
    }
    if (!(MAPPER.valueToTree(object) instanceof ObjectNode tree)) {
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

  static String objectPath(ResourceType<?> type, Body body, String sub) {
    if (body.name().isEmpty()) {
      throw new IllegalArgumentException(type.kind() + ": metadata.name is required for update");
    }
    String ns = type.namespaced() ? requireNs(type, body.namespace(), "update") : "";
    String path = type.objectPath(ns, body.name());
    return sub.isEmpty() ? path : path + "/" + sub;
  }

  static String requireNs(ResourceType<?> type, String ns, String op) {
    if (ns.isEmpty()) {
      throw new IllegalArgumentException(
          type.kind() + " is namespaced: metadata.namespace is required for " + op);
    }
    return ns;
  }

  static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot serialize: " + e, e);
    }
  }

  static <T> T decode(ResourceType<T> type, byte[] body) throws KubeException {
    try {
      return MAPPER.readValue(body, type.javaType());
    } catch (IOException | NumberFormatException e) {
      // Jackson reports a number it refuses (too many exponent digits) unwrapped.
      throw new KubeException(
          200,
          "InvalidResponse",
          "cannot decode a " + type.kind() + " from the response: " + Failures.describe(e),
          e);
    }
  }

  /** A LIST's body: its items and the list's resourceVersion. */
  static <T> KubeList<T> decodeList(ResourceType<T> type, String path, byte[] body)
      throws KubeException {
    // One pass: each item straight into its record, with no JSON tree of the list first.
    try (JsonParser p = MAPPER.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("the list is not a JSON object");
      }
      ObjectReader reader = MAPPER.readerFor(type.javaType());
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

  /** A DeleteOptions body with the preconditions, or null when there are none. */
  static byte[] deleteOptions(Preconditions preconditions) {
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
    return body;
  }
}
