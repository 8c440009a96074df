package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The API server's rules for a write: kind and apiVersion of the body, the resourceVersion
 * precondition, the fields a write cannot change (server-set metadata, the status through the main
 * resource, the spec through the status), unknown fields dropped, and the few validation rules a
 * driver's code depends on.
 */
final class WriteRules {
  private WriteRules() {}

  /**
   * A status write: the object as stored, with the status of {@code from} (none if it has none).
   */
  static ObjectNode withStatusOf(ObjectNode existing, JsonNode from) {
    ObjectNode merged = existing.deepCopy();
    if (from.has("status")) {
      merged.set("status", from.get("status").deepCopy());
    } else {
      merged.remove("status");
    }
    return merged;
  }

  /**
   * A write of the main resource: the server-set metadata and, for a type with a status
   * subresource, the status stay as stored.
   */
  static void keepServerOwned(ResourceDef def, ObjectNode existing, ObjectNode merged) {
    keepServerFields(existing, merged);
    if (def.hasStatus) {
      if (existing.has("status")) {
        merged.set("status", existing.get("status").deepCopy());
      } else {
        merged.remove("status");
      }
    }
  }

  /** The name in the body, if it has one, must be the name on the URL. */
  static void checkName(JsonNode body, String name) throws ApiError {
    String bodyName = body.path("metadata").path("name").asText(name);
    if (!bodyName.equals(name)) {
      throw ApiError.badRequest(
          "the name of the object ("
              + bodyName
              + ") does not match the name on the URL ("
              + name
              + ")");
    }
  }

  /** A UID precondition, if there is one, must be the stored object's UID. */
  static void checkUid(ResourceDef def, String name, ObjectNode existing, String uid)
      throws ApiError {
    String current = existing.path("metadata").path("uid").asText();
    if (!uid.isEmpty() && !uid.equals(current)) {
      throw ApiError.conflict(
          def,
          name,
          "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + current);
    }
  }

  static void checkVersion(ResourceDef def, String name, ObjectNode existing, String rv)
      throws ApiError {
    String current = existing.path("metadata").path("resourceVersion").asText();
    if (!rv.isEmpty() && !rv.equals(current)) {
      throw ApiError.conflict(
          def,
          name,
          "the object has been modified; please apply your changes to the latest version and try"
              + " again");
    }
  }

  static JsonNode checkKind(ResourceDef def, JsonNode body) throws ApiError {
    if (!body.isObject()) {
      throw ApiError.badRequest("the request body must be a JSON object");
    }
    String kind = body.path("kind").asText("");
    String apiVersion = body.path("apiVersion").asText("");
    if (!kind.isEmpty() && !kind.equals(def.kind)) {
      throw ApiError.badRequest(
          "kind " + kind + " does not match the resource " + def.plural + " (" + def.kind + ")");
    }
    if (!apiVersion.isEmpty() && !apiVersion.equals(def.apiVersion())) {
      throw ApiError.badRequest(
          "apiVersion " + apiVersion + " is not served here; use " + def.apiVersion());
    }
    return body;
  }

  private static void keepServerFields(ObjectNode existing, ObjectNode merged) {
    ObjectNode em = (ObjectNode) existing.path("metadata");
    ObjectNode mm = merged.withObjectProperty("metadata");
    for (String f :
        List.of(
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "generation",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "managedFields")) {
      if (em.has(f)) {
        mm.set(f, em.get(f).deepCopy());
      } else {
        mm.remove(f);
      }
    }
  }

  /**
   * Drops the fields the resource.k8s.io/v1 schema does not know, as the real API server drops
   * unknown fields of a built-in type (it answers with a warning; this server sends none). Core
   * objects (Node, Pod) are kept as sent: the bundled OpenAPI document covers resource.k8s.io only.
   */
  static void pruneUnknownFields(ObjectNode obj) {
    OpenApiSchemas.resourceV1().pruneUnknownFields(obj);
  }

  /** The few API validation rules a driver's code depends on. */
  static void validate(ResourceDef def, ObjectNode old, ObjectNode obj) throws ApiError {
    String name = obj.path("metadata").path("name").asText();
    if (def.plural.equals("resourceclaims")) {
      if (old != null && !old.path("spec").equals(obj.path("spec"))) {
        throw ApiError.invalid(def, name, "spec: Invalid value: field is immutable");
      }
      JsonNode devices = obj.path("status").path("devices");
      if (devices.isArray() && devices.size() > 0) {
        Set<String> allocated = new HashSet<>();
        List<String> k = Patches.LIST_MAP_KEYS.get("status.devices");
        for (JsonNode r : obj.path("status").path("allocation").path("devices").path("results")) {
          allocated.add(Patches.key(r, k));
        }
        for (JsonNode d : devices) {
          if (!allocated.contains(Patches.key(d, k))) {
            throw ApiError.invalid(
                def,
                name,
                "status.devices: Invalid value: "
                    + d.path("driver").asText()
                    + "/"
                    + d.path("pool").asText()
                    + "/"
                    + d.path("device").asText()
                    + ": must be an allocated device in the claim");
          }
        }
      }
    }
    if (def.plural.equals("resourceslices") && old != null) {
      for (String f : List.of("driver", "nodeName")) {
        if (!old.path("spec").path(f).equals(obj.path("spec").path(f))) {
          throw ApiError.invalid(def, name, "spec." + f + ": Invalid value: field is immutable");
        }
      }
      if (!old.path("spec")
          .path("pool")
          .path("name")
          .equals(obj.path("spec").path("pool").path("name"))) {
        throw ApiError.invalid(def, name, "spec.pool.name: Invalid value: field is immutable");
      }
    }
  }
}
