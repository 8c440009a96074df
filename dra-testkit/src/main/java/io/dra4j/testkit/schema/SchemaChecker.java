package io.dra4j.testkit.schema;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.KubeNames;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Walks a JSON value along an OpenAPI 3.0 schema of a Kubernetes API group and records every
 * violation with its JSON path. Implements the keywords the Kubernetes documents use plus the
 * Kubernetes extensions that matter for correctness of what a client sends.
 */
final class SchemaChecker {
  static final String REF_PREFIX = "#/components/schemas/";
  static final String QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
  static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

  private static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger INT64_MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigInteger INT32_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
  private static final BigInteger INT32_MAX = BigInteger.valueOf(Integer.MAX_VALUE);
  private static final Pattern SIMPLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private final Map<String, JsonNode> schemas;
  private final List<String> out = new ArrayList<>();

  SchemaChecker(Map<String, JsonNode> schemas) {
    this.schemas = schemas;
  }

  List<String> check(String schemaName, JsonNode value) {
    JsonNode schema = schemas.get(schemaName);
    if (schema == null) {
      throw new IllegalArgumentException("no schema named \"" + schemaName + "\"");
    }
    named(schemaName, value, "$");
    if (schema.has("x-kubernetes-group-version-kind") && value.isObject()) {
      resource(schema, value);
    }
    return List.copyOf(out);
  }

  private void named(String name, JsonNode value, String path) {
    if (name.equals(QUANTITY)) {
      quantity(value, path);
      return;
    }
    JsonNode schema = schemas.get(name);
    if (schema == null) {
      out.add(path + ": the schema refers to \"" + name + "\", which the document lacks");
      return;
    }
    check(schema, name, value, path);
  }

  private void check(JsonNode schema, String context, JsonNode value, String path) {
    if (value.isNull()) {
      if (!nullable(schema)) {
        out.add(path + ": null is not allowed; omit the field instead");
      }
      return;
    }
    if (schema.has("$ref")) {
      String ref = schema.get("$ref").asText();
      if (!ref.startsWith(REF_PREFIX)) {
        out.add(path + ": unsupported $ref " + ref);
        return;
      }
      named(ref.substring(REF_PREFIX.length()), value, path);
      return;
    }
    if (schema.has("allOf")) {
      for (JsonNode sub : schema.get("allOf")) {
        check(sub, context, value, path);
      }
    }
    if (schema.has("oneOf")) {
      int matches = 0;
      for (JsonNode sub : schema.get("oneOf")) {
        SchemaChecker probe = new SchemaChecker(schemas);
        probe.check(sub, context, value, path);
        if (probe.out.isEmpty()) {
          matches++;
        }
      }
      if (matches != 1) {
        out.add(path + ": must match exactly one of the oneOf schemas, matches " + matches);
      }
    }
    if (schema.has("type") && !typeMatches(schema.get("type").asText(), value)) {
      out.add(path + ": expected " + schema.get("type").asText() + ", got " + jsonType(value));
      return;
    }
    if (schema.has("format")) {
      format(schema.get("format").asText(), value, path);
    }
    if (schema.has("enum")) {
      boolean found = false;
      for (JsonNode option : schema.get("enum")) {
        found |= option.equals(value);
      }
      if (!found) {
        out.add(path + ": " + value + " is not one of " + schema.get("enum"));
      }
    }
    if (value.isObject()) {
      object(schema, context, value, path);
    } else if (value.isArray()) {
      array(schema, context, value, path);
    }
  }

  private boolean nullable(JsonNode schema) {
    if (schema.path("nullable").asBoolean(false)) {
      return true;
    }
    String ref = schema.path("$ref").asText("");
    if (ref.startsWith(REF_PREFIX)) {
      JsonNode target = schemas.get(ref.substring(REF_PREFIX.length()));
      return target != null && nullable(target);
    }
    for (JsonNode sub : schema.path("allOf")) {
      if (nullable(sub)) {
        return true;
      }
    }
    return false;
  }

  private void object(JsonNode schema, String context, JsonNode value, String path) {
    JsonNode properties = schema.get("properties");
    JsonNode additional = schema.get("additionalProperties");
    boolean preserveUnknown = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
    for (JsonNode required : schema.path("required")) {
      JsonNode v = value.get(required.asText());
      if (v == null || v.isNull()) {
        out.add(child(path, required.asText()) + ": is required");
      }
    }
    if (properties == null && additional == null) {
      // A free-form object (RawExtension, FieldsV1): anything goes.
      return;
    }
    for (Map.Entry<String, JsonNode> field : value.properties()) {
      String fieldPath = child(path, field.getKey());
      JsonNode propertySchema = properties == null ? null : properties.get(field.getKey());
      if (propertySchema != null) {
        check(propertySchema, context, field.getValue(), fieldPath);
      } else if (additional != null && additional.isObject()) {
        check(additional, context, field.getValue(), fieldPath);
      } else if ((additional != null && additional.asBoolean(false)) || preserveUnknown) {
        continue;
      } else {
        out.add(fieldPath + ": unknown field (not in " + context + ")");
      }
    }
  }

  private void array(JsonNode schema, String context, JsonNode value, String path) {
    JsonNode items = schema.get("items");
    if (items != null) {
      for (int i = 0; i < value.size(); i++) {
        check(items, context, value.get(i), path + "[" + i + "]");
      }
    }
    String listType = schema.path("x-kubernetes-list-type").asText("");
    if (listType.equals("set")) {
      Set<JsonNode> seen = new HashSet<>();
      for (int i = 0; i < value.size(); i++) {
        if (!seen.add(value.get(i))) {
          out.add(path + "[" + i + "]: duplicate value " + value.get(i) + " in a list of type set");
        }
      }
    } else if (listType.equals("map")) {
      List<String> keys = new ArrayList<>();
      schema.path("x-kubernetes-list-map-keys").forEach(k -> keys.add(k.asText()));
      Map<List<JsonNode>, Integer> seen = new HashMap<>();
      for (int i = 0; i < value.size(); i++) {
        List<JsonNode> tuple = new ArrayList<>();
        for (String k : keys) {
          tuple.add(value.get(i).path(k));
        }
        Integer first = seen.putIfAbsent(tuple, i);
        if (first != null) {
          out.add(
              path
                  + "["
                  + i
                  + "]: duplicate entry for key "
                  + describeKey(keys, tuple)
                  + ", first at ["
                  + first
                  + "] (list of type map)");
        }
      }
    }
  }

  private static String describeKey(List<String> keys, List<JsonNode> tuple) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < keys.size(); i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(keys.get(i)).append('=');
      sb.append(tuple.get(i).isMissingNode() ? "<unset>" : tuple.get(i).toString());
    }
    return sb.append(')').toString();
  }

  private void format(String format, JsonNode value, String path) {
    switch (format) {
      case "int32" -> intRange(value, path, INT32_MIN, INT32_MAX, "int32");
      case "int64" -> intRange(value, path, INT64_MIN, INT64_MAX, "int64");
      case "date-time" -> {
        if (value.isTextual()) {
          try {
            OffsetDateTime.parse(value.asText());
          } catch (DateTimeParseException e) {
            out.add(path + ": \"" + value.asText() + "\" is not an RFC 3339 date-time");
          }
        }
      }
      default -> {
        // Formats without a Kubernetes meaning for clients (byte, double, ...) are not checked.
      }
    }
  }

  private void intRange(JsonNode value, String path, BigInteger min, BigInteger max, String f) {
    if (value.isIntegralNumber()) {
      BigInteger v = value.bigIntegerValue();
      if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
        out.add(path + ": " + v + " is out of the " + f + " range");
      }
    }
  }

  private void quantity(JsonNode value, String path) {
    if (!value.isTextual()) {
      out.add(
          path
              + ": a Quantity must be a string such as \"80Gi\" (the API server accepts a number"
              + " but always answers with a string), got "
              + jsonType(value));
      return;
    }
    try {
      Quantity.parse(value.asText());
    } catch (IllegalArgumentException e) {
      out.add(path + ": " + e.getMessage());
    }
  }

  /** Checks a top-level object of a kind: apiVersion, kind and the metadata naming rules. */
  private void resource(JsonNode schema, JsonNode value) {
    JsonNode gvk = schema.get("x-kubernetes-group-version-kind").get(0);
    String group = gvk.path("group").asText();
    String apiVersion =
        group.isEmpty() ? gvk.path("version").asText() : group + "/" + gvk.path("version").asText();
    if (value.has("apiVersion") && !value.get("apiVersion").asText().equals(apiVersion)) {
      out.add("$.apiVersion: must be \"" + apiVersion + "\", is " + value.get("apiVersion"));
    }
    String kind = gvk.path("kind").asText();
    if (value.has("kind") && !value.get("kind").asText().equals(kind)) {
      out.add("$.kind: must be \"" + kind + "\", is " + value.get("kind"));
    }
    JsonNode meta = value.path("metadata");
    if (!meta.isObject()) {
      return;
    }
    String name = meta.path("name").asText("");
    String generateName = meta.path("generateName").asText("");
    if (name.isEmpty() && generateName.isEmpty()) {
      out.add("$.metadata: one of name and generateName is required");
    }
    if (!name.isEmpty()) {
      objectName(name, "$.metadata.name", false);
    }
    if (!generateName.isEmpty()) {
      objectName(generateName, "$.metadata.generateName", true);
    }
    for (Map.Entry<String, JsonNode> label : meta.path("labels").properties()) {
      String p = child("$.metadata.labels", label.getKey());
      labelKey(label.getKey(), p);
      String v = label.getValue().asText();
      if (!KubeNames.labelValue(v).isEmpty()) {
        out.add(p + ": \"" + v + "\" is not a valid label value (at most 63 characters)");
      }
    }
    Iterator<String> annotations = meta.path("annotations").fieldNames();
    while (annotations.hasNext()) {
      String k = annotations.next();
      labelKey(k, child("$.metadata.annotations", k));
    }
  }

  /** resource.k8s.io objects are named with DNS subdomains; generateName is a prefix of one. */
  private void objectName(String name, String path, boolean prefix) {
    String candidate =
        prefix && name.endsWith("-") ? name.substring(0, name.length() - 1) + "a" : name;
    if (!KubeNames.dnsSubdomain(candidate).isEmpty()) {
      out.add(
          path
              + ": \""
              + name
              + "\" is not a lower-case DNS subdomain"
              + (prefix ? " prefix" : "")
              + " of at most 253 characters");
    }
  }

  private void labelKey(String key, String path) {
    if (!KubeNames.qualifiedName(key).isEmpty()) {
      out.add(path + ": \"" + key + "\" is not a valid qualified key ([prefix/]name)");
    }
  }

  private static boolean typeMatches(String type, JsonNode value) {
    return switch (type) {
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      case "string" -> value.isTextual();
      case "integer" -> value.isIntegralNumber();
      case "number" -> value.isNumber();
      case "boolean" -> value.isBoolean();
      default -> true;
    };
  }

  private static String jsonType(JsonNode value) {
    if (value.isObject()) {
      return "object";
    }
    if (value.isArray()) {
      return "array";
    }
    if (value.isTextual()) {
      return "string";
    }
    if (value.isIntegralNumber()) {
      return "integer";
    }
    if (value.isNumber()) {
      return "number";
    }
    if (value.isBoolean()) {
      return "boolean";
    }
    return value.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
  }

  static String child(String path, String field) {
    return SIMPLE_NAME.matcher(field).matches() ? path + "." + field : path + key(field);
  }

  private static String key(String field) {
    return "[\"" + field.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
  }
}
