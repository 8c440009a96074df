package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/** JSON merge patch (RFC 7386) and the simplified server-side-apply merge. */
final class Patches {
  private Patches() {}

  /** List-maps (x-kubernetes-list-type=map) the apply merge knows, by path, with their keys. */
  static final Map<String, List<String>> LIST_MAP_KEYS =
      Map.of(
          "status.devices", List.of("driver", "pool", "device", "shareID"),
          "status.devices[].conditions", List.of("type"),
          "status.reservedFor", List.of("uid"),
          "status.conditions", List.of("type"),
          "metadata.ownerReferences", List.of("uid"));

  /** RFC 7386: null removes, objects merge recursively, everything else replaces. */
  static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? (ObjectNode) target.deepCopy()
            : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> e : patch.properties()) {
      if (e.getValue().isNull()) {
        result.remove(e.getKey());
      } else {
        result.set(e.getKey(), mergePatch(result.get(e.getKey()), e.getValue()));
      }
    }
    return result;
  }

  /**
   * Apply-merge of {@code applied} into {@code target} (modified in place): objects merge field by
   * field, known list-maps merge entry by entry on their keys, other lists are replaced (atomic).
   */
  static void applyMerge(ObjectNode target, JsonNode applied, String path) {
    for (Map.Entry<String, JsonNode> e : List.copyOf(applied.properties())) {
      String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
      JsonNode v = e.getValue();
      JsonNode cur = target.get(e.getKey());
      if (v.isNull()) {
        target.remove(e.getKey());
      } else if (v.isObject() && cur != null && cur.isObject()) {
        applyMerge((ObjectNode) cur, v, p);
      } else if (v.isArray() && cur != null && cur.isArray() && LIST_MAP_KEYS.containsKey(p)) {
        mergeListMap((ArrayNode) cur, (ArrayNode) v, LIST_MAP_KEYS.get(p), p);
      } else {
        target.set(e.getKey(), v.deepCopy());
      }
    }
  }

  private static void mergeListMap(
      ArrayNode target, ArrayNode applied, List<String> keys, String path) {
    for (JsonNode entry : applied) {
      String k = key(entry, keys);
      ObjectNode existing = null;
      for (JsonNode t : target) {
        if (key(t, keys).equals(k)) {
          existing = (ObjectNode) t;
          break;
        }
      }
      if (existing == null) {
        target.add(entry.deepCopy());
      } else {
        applyMerge(existing, entry, path + "[]");
      }
    }
  }

  static String key(JsonNode entry, List<String> keys) {
    StringBuilder sb = new StringBuilder();
    for (String k : keys) {
      sb.append(entry.path(k).asText("")).append('\u0000');
    }
    return sb.toString();
  }
}
