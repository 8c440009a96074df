package io.dra4j.testkit.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Removes the fields a schema does not know, as the real API server does when it decodes a built-in
 * type (a field it does not know is dropped with a warning, not kept). Objects whose schema lists
 * no properties (RawExtension such as opaque parameters and device data, FieldsV1) keep everything;
 * maps ({@code additionalProperties}) are pruned value by value.
 */
final class SchemaPruner {
  private final Map<String, JsonNode> schemas;
  private final List<String> removed = new ArrayList<>();

  SchemaPruner(Map<String, JsonNode> schemas) {
    this.schemas = schemas;
  }

  /** Prunes {@code value} in place along the named schema; returns the removed fields' paths. */
  List<String> prune(String schemaName, JsonNode value) {
    named(schemaName, value, "");
    return List.copyOf(removed);
  }

  private void named(String name, JsonNode value, String path) {
    JsonNode schema = schemas.get(name);
    if (schema != null) {
      walk(schema, value, path);
    }
  }

  private void walk(JsonNode schema, JsonNode value, String path) {
    if (schema.has("$ref")) {
      String ref = schema.get("$ref").asText();
      if (ref.startsWith(SchemaChecker.REF_PREFIX)) {
        named(ref.substring(SchemaChecker.REF_PREFIX.length()), value, path);
      }
      return;
    }
    for (JsonNode sub : schema.path("allOf")) {
      walk(sub, value, path);
    }
    if (value.isObject()) {
      ObjectNode object = (ObjectNode) value;
      JsonNode properties = schema.get("properties");
      boolean keepUnknown =
          schema.path("x-kubernetes-preserve-unknown-fields").asBoolean()
              || schema.path("additionalProperties").asBoolean();
      if (properties != null && properties.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> field = it.next();
          String child = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
          JsonNode fieldSchema = properties.get(field.getKey());
          if (fieldSchema == null) {
            if (!keepUnknown) {
              removed.add(child);
              it.remove();
            }
          } else {
            walk(fieldSchema, field.getValue(), child);
          }
        }
      } else if (schema.path("additionalProperties").isObject()) {
        object
            .fields()
            .forEachRemaining(
                f ->
                    walk(
                        schema.get("additionalProperties"), f.getValue(), path + "." + f.getKey()));
      }
    } else if (value.isArray() && schema.has("items")) {
      int i = 0;
      for (JsonNode item : value) {
        walk(schema.get("items"), item, path + "[" + i++ + "]");
      }
    }
  }
}
