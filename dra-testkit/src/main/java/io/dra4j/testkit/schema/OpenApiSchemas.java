package io.dra4j.testkit.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks JSON objects against the component schemas of a Kubernetes OpenAPI v3 document, the way
 * the API server would see them. Tests use it to prove that what dra4j sends (ResourceSlices, claim
 * status patches, ...) has the shape Kubernetes expects, without a cluster.
 *
 * <p>Checked: {@code $ref} (also wrapped in {@code allOf}), {@code type}, {@code required}, {@code
 * properties} with <b>unknown properties as errors</b> (the API server drops or, with strict field
 * validation, rejects them, so sending one is always a bug), {@code additionalProperties}, {@code
 * items}, {@code enum}, {@code oneOf}, {@code nullable} (a JSON null is an error unless the schema
 * allows it: Kubernetes clients omit empty fields), formats {@code int32} / {@code int64} (ranges)
 * and {@code date-time} (RFC 3339), {@code x-kubernetes-list-type: map} key uniqueness and {@code
 * set} uniqueness. Quantities must be strings in Kubernetes quantity syntax (the schema also allows
 * numbers, but dra4j always writes strings and a number means a serializer bug). For a top-level
 * kind: apiVersion and kind match the schema, {@code metadata.name} or {@code generateName} is
 * present and is a DNS subdomain (prefix), label and annotation keys are qualified names, label
 * values are label values.
 *
 * <p>Not checked: the API server's semantic validation (limits, name rules of fields); that is what
 * {@code io.dra4j.validation.PoolValidator} and friends are for.
 *
 * <pre>{@code
 * OpenApiSchemas.resourceV1().assertValid("io.k8s.api.resource.v1.ResourceSlice", slice);
 * }</pre>
 */
public final class OpenApiSchemas {
  /** The resource.k8s.io/v1 document bundled with the test kit. */
  public static final String RESOURCE_V1_DOCUMENT = "resource.k8s.io-v1-openapi.json";

  private static final ObjectMapper MAPPER = new ObjectMapper().registerModule(new Jdk8Module());

  private final Map<String, JsonNode> schemas;

  private OpenApiSchemas(Map<String, JsonNode> schemas) {
    this.schemas = Collections.unmodifiableMap(new TreeMap<>(schemas));
  }

  private static final class ResourceV1 {
    static final OpenApiSchemas INSTANCE = read();

    private static OpenApiSchemas read() {
      try (InputStream in = OpenApiSchemas.class.getResourceAsStream(RESOURCE_V1_DOCUMENT)) {
        if (in == null) {
          throw new IllegalStateException(
              RESOURCE_V1_DOCUMENT + " is missing from the classpath next to OpenApiSchemas");
        }
        return OpenApiSchemas.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The schemas of resource.k8s.io/v1 as Kubernetes v1.37.2 publishes them, loaded once. */
  public static OpenApiSchemas resourceV1() {
    return ResourceV1.INSTANCE;
  }

  /** Reads an OpenAPI v3 document (JSON) and keeps its {@code components.schemas}. */
  public static OpenApiSchemas load(InputStream document) throws IOException {
    return fromDocument(MAPPER.readTree(document));
  }

  /** Uses the {@code components.schemas} of an already parsed OpenAPI v3 document. */
  public static OpenApiSchemas fromDocument(JsonNode document) {
    JsonNode node = document.path("components").path("schemas");
    if (!node.isObject()) {
      throw new IllegalArgumentException("the document has no components.schemas object");
    }
    Map<String, JsonNode> map = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      map.put(e.getKey(), e.getValue());
    }
    return new OpenApiSchemas(map);
  }

  /** The component schema names, sorted. */
  public Set<String> schemaNames() {
    return schemas.keySet();
  }

  /**
   * The schema for a kind, found through {@code x-kubernetes-group-version-kind}, e.g. {@code
   * ("resource.k8s.io/v1", "ResourceSlice")}.
   */
  public Optional<String> schemaForKind(String apiVersion, String kind) {
    for (Map.Entry<String, JsonNode> e : schemas.entrySet()) {
      for (JsonNode gvk : e.getValue().path("x-kubernetes-group-version-kind")) {
        String group = gvk.path("group").asText();
        String version = gvk.path("version").asText();
        String av = group.isEmpty() ? version : group + "/" + version;
        if (av.equals(apiVersion) && gvk.path("kind").asText().equals(kind)) {
          return Optional.of(e.getKey());
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Every violation of {@code value} against the named schema, as {@code <json path>: <what is
   * wrong>}; empty when the value is valid.
   *
   * @throws IllegalArgumentException if there is no schema with that name
   */
  public List<String> validate(String schemaName, JsonNode value) {
    Objects.requireNonNull(value, "value");
    return new SchemaChecker(schemas).check(schemaName, value);
  }

  /** Serializes {@code value} with Jackson (JDK 8 types included), then validates it. */
  public List<String> validate(String schemaName, Object value) {
    JsonNode tree = MAPPER.valueToTree(value);
    return validate(schemaName, tree);
  }

  /**
   * Validates a Kubernetes object by its own {@code apiVersion} and {@code kind}.
   *
   * @throws IllegalArgumentException if the document has no schema for that kind
   */
  public List<String> validateObject(JsonNode object) {
    String apiVersion = object.path("apiVersion").asText();
    String kind = object.path("kind").asText();
    String schema =
        schemaForKind(apiVersion, kind)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no schema for apiVersion \"" + apiVersion + "\", kind \"" + kind + "\""));
    return validate(schema, object);
  }

  /**
   * Removes, in place, every field of a Kubernetes object (found by its own {@code apiVersion} and
   * {@code kind}) that its schema does not know, as the real API server drops unknown fields of a
   * built-in type. Objects of a kind the document lacks are left alone.
   *
   * @return the removed fields' paths, e.g. {@code spec.futureField}; empty when nothing was
   *     removed
   */
  public List<String> pruneUnknownFields(ObjectNode object) {
    Optional<String> schema =
        schemaForKind(object.path("apiVersion").asText(), object.path("kind").asText());
    return schema.isEmpty() ? List.of() : new SchemaPruner(schemas).prune(schema.get(), object);
  }

  /**
   * Throws an {@link AssertionError} listing every violation, so a test fails with the full list
   * (AssertJ and JUnit report it like their own failures).
   */
  public void assertValid(String schemaName, JsonNode value) {
    List<String> violations = validate(schemaName, value);
    if (!violations.isEmpty()) {
      throw new AssertionError(
          "not a valid "
              + schemaName
              + " ("
              + violations.size()
              + " violation"
              + (violations.size() == 1 ? "" : "s")
              + "):\n  "
              + String.join("\n  ", violations)
              + "\nvalue: "
              + value);
    }
  }

  /** Serializes {@code value} with Jackson (JDK 8 types included), then asserts it is valid. */
  public void assertValid(String schemaName, Object value) {
    JsonNode tree = MAPPER.valueToTree(value);
    assertValid(schemaName, tree);
  }
}
