package io.dra4j.testkit.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenApiSchemasTest {
  static final String SLICE = "io.k8s.api.resource.v1.ResourceSlice";
  static final ObjectMapper MAPPER = new ObjectMapper();
  final OpenApiSchemas schemas = OpenApiSchemas.resourceV1();

  static ObjectNode json(String text) {
    try {
      return (ObjectNode) MAPPER.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  static ObjectNode slice() {
    return json(
        """
        {
          "apiVersion": "resource.k8s.io/v1",
          "kind": "ResourceSlice",
          "metadata": {
            "generateName": "00000-gpu.example.com-node-1-",
            "labels": {"app.kubernetes.io/name": "gpu-driver"},
            "ownerReferences": [
              {"apiVersion": "v1", "kind": "Node", "name": "node-1",
               "uid": "4b6f2f0e-5c3a-4d2b-9a53-1f2d3c4b5a69", "controller": true}
            ]
          },
          "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [
              {
                "name": "gpu-0",
                "attributes": {
                  "model": {"string": "H200"},
                  "resource.kubernetes.io/numaNode": {"ints": [0, 1]},
                  "driverVersion": {"version": "550.54.15"}
                },
                "capacity": {"memory": {"value": "141Gi"}},
                "taints": [
                  {"key": "gpu.example.com/unhealthy", "effect": "NoExecute",
                   "timeAdded": "2026-03-01T10:00:00Z"}
                ]
              }
            ]
          }
        }
        """);
  }

  @Test
  void theBundledDocumentIsTheVerbatimUpstreamFile() throws Exception {
    byte[] bytes =
        Files.readAllBytes(
            Path.of("src/main/resources/io/dra4j/testkit/schema/resource.k8s.io-v1-openapi.json"));
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    // kubernetes/kubernetes v1.37.2, api/openapi-spec/v3/apis__resource.k8s.io__v1_openapi.json
    assertThat(sha).isEqualTo("743996fbedf996cea03b243e83e23b2d254b80d4a0cdcbf8ed8e9874bc449ab6");
    assertThat(schemas.schemaNames())
        .hasSize(73)
        .contains(
            SLICE, SchemaChecker.OBJECT_META, "io.k8s.api.resource.v1.DeviceDerivedAttribute");
  }

  @Test
  void aHandWrittenSliceIsValid() {
    assertThat(schemas.validate(SLICE, slice())).isEmpty();
    schemas.assertValid(SLICE, slice());
    assertThat(schemas.validateObject(slice())).isEmpty();
  }

  @Test
  void wrongTypes() {
    ObjectNode s = slice();
    ObjectNode device = (ObjectNode) s.at("/spec/devices/0");
    device.put("name", 5);
    device.put("allowMultipleAllocations", "yes");
    ((ObjectNode) s.at("/spec/pool")).put("generation", 1.5);
    ((ObjectNode) s.at("/spec/devices/0/attributes/model")).put("string", true);
    ((ObjectNode) s.get("spec")).put("devices", "gpu-0");
    assertThat(schemas.validate(SLICE, s))
        .containsExactly(
            "$.spec.pool.generation: expected integer, got number",
            "$.spec.devices: expected array, got string");
    s = slice();
    device = (ObjectNode) s.at("/spec/devices/0");
    device.put("name", 5);
    device.put("allowMultipleAllocations", "yes");
    ((ObjectNode) s.at("/spec/devices/0/attributes/model")).put("string", true);
    assertThat(schemas.validate(SLICE, s))
        .containsExactly(
            "$.spec.devices[0].name: expected string, got integer",
            "$.spec.devices[0].attributes.model.string: expected string, got boolean",
            "$.spec.devices[0].allowMultipleAllocations: expected boolean, got string");
  }

  @Test
  void unknownFieldsAreErrors() {
    ObjectNode s = slice();
    ((ObjectNode) s.get("spec")).put("nodeNames", "node-1");
    ((ObjectNode) s.at("/spec/devices/0")).putObject("basic");
    ((ObjectNode) s.at("/spec/devices/0/attributes/model")).put("str", "x");
    ((ObjectNode) s.get("metadata")).put("nmae", "x");
    assertThat(schemas.validate(SLICE, s))
        .containsExactly(
            "$.metadata.nmae: unknown field (not in io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta)",
            "$.spec.devices[0].attributes.model.str: unknown field (not in"
                + " io.k8s.api.resource.v1.DeviceAttribute)",
            "$.spec.devices[0].basic: unknown field (not in io.k8s.api.resource.v1.Device)",
            "$.spec.nodeNames: unknown field (not in io.k8s.api.resource.v1.ResourceSliceSpec)");
  }

  @Test
  void missingRequiredFields() {
    ObjectNode s = slice();
    ((ObjectNode) s.get("spec")).remove("driver");
    ((ObjectNode) s.at("/spec/pool")).remove("resourceSliceCount");
    ((ObjectNode) s.at("/spec/devices/0/taints/0")).remove("effect");
    ((ObjectNode) s.at("/metadata/ownerReferences/0")).remove("uid");
    assertThat(schemas.validate(SLICE, s))
        .containsExactly(
            "$.metadata.ownerReferences[0].uid: is required",
            "$.spec.driver: is required",
            "$.spec.pool.resourceSliceCount: is required",
            "$.spec.devices[0].taints[0].effect: is required");
    ObjectNode noSpec = slice();
    noSpec.remove("spec");
    assertThat(schemas.validate(SLICE, noSpec)).containsExactly("$.spec: is required");
  }

  @Test
  void duplicateKeysOfMapAndSetLists() {
    ObjectNode s = slice();
    ArrayNode owners = (ArrayNode) s.at("/metadata/ownerReferences");
    owners.add(((ObjectNode) owners.get(0).deepCopy()).put("name", "node-2"));
    ((ObjectNode) s.get("metadata"))
        .putArray("finalizers")
        .add("a.example.com/x")
        .add("a.example.com/x");
    assertThat(schemas.validate(SLICE, s))
        .containsExactly(
            "$.metadata.ownerReferences[1]: duplicate entry for key"
                + " (uid=\"4b6f2f0e-5c3a-4d2b-9a53-1f2d3c4b5a69\"), first at [0] (list of type"
                + " map)",
            "$.metadata.finalizers[1]: duplicate value \"a.example.com/x\" in a list of type set");
  }

  @Test
  void mapListKeysMayBePartlyUnset() {
    ObjectNode claim =
        json(
            """
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [
               {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": 1}}]}},
             "status": {"devices": [
               {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
                "conditions": [{"type": "Ready", "status": "True", "reason": "Prepared",
                  "message": "", "lastTransitionTime": "2026-03-01T10:00:00Z"}]},
               {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
                "shareID": "4b6f2f0e-5c3a-4d2b-9a53-1f2d3c4b5a69"},
               {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}
             ]}}
            """);
    assertThat(schemas.validateObject(claim))
        .containsExactly(
            "$.status.devices[2]: duplicate entry for key (driver=\"gpu.example.com\","
                + " device=\"gpu-0\", pool=\"node-1\", shareID=<unset>), first at [0] (list of"
                + " type map)");
  }

  @Test
  void quantitiesAreStringsInQuantitySyntax() {
    ObjectNode s = slice();
    ((ObjectNode) s.at("/spec/devices/0/capacity/memory")).put("value", 141);
    ((ObjectNode) s.at("/spec/devices/0/capacity")).putObject("bw").put("value", "10 G");
    List<String> v = schemas.validate(SLICE, s);
    assertThat(v).hasSize(2);
    assertThat(v.get(1))
        .startsWith("$.spec.devices[0].capacity.bw.value: invalid quantity \"10 G\"");
    assertThat(v.get(0))
        .isEqualTo(
            "$.spec.devices[0].capacity.memory.value: a Quantity must be a string such as \"80Gi\""
                + " (the API server accepts a number but always answers with a string), got"
                + " integer");
  }

  @Test
  void formatsAndNulls() {
    ObjectNode s = slice();
    ((ObjectNode) s.at("/spec/devices/0/taints/0")).put("timeAdded", "yesterday");
    ((ObjectNode) s.at("/spec/pool"))
        .put("generation", new java.math.BigInteger("9223372036854775808"));
    ((ObjectNode) s.get("spec")).putNull("nodeSelector");
    assertThat(schemas.validate(SLICE, s))
        .containsExactly(
            "$.spec.pool.generation: 9223372036854775808 is out of the int64 range",
            "$.spec.devices[0].taints[0].timeAdded: \"yesterday\" is not an RFC 3339 date-time",
            "$.spec.nodeSelector: null is not allowed; omit the field instead");
  }

  @Test
  void metadataNamingRules() {
    ObjectNode s = slice();
    ObjectNode meta = (ObjectNode) s.get("metadata");
    meta.remove("generateName");
    assertThat(schemas.validate(SLICE, s))
        .containsExactly("$.metadata: one of name and generateName is required");
    meta.put("name", "Node_1-slice");
    meta.put("generateName", "-bad");
    meta.putObject("labels").put("bad key", "ok").put("ok", "not ok!");
    meta.putObject("annotations").put("example.com/", "x");
    s.put("apiVersion", "resource.k8s.io/v1beta2");
    s.put("kind", "ResourceClaim");
    assertThat(schemas.validate(SLICE, s))
        .containsExactly(
            "$.apiVersion: must be \"resource.k8s.io/v1\", is \"resource.k8s.io/v1beta2\"",
            "$.kind: must be \"ResourceSlice\", is \"ResourceClaim\"",
            "$.metadata.name: \"Node_1-slice\" is not a lower-case DNS subdomain of at most 253"
                + " characters",
            "$.metadata.generateName: \"-bad\" is not a lower-case DNS subdomain prefix of at most"
                + " 253 characters",
            "$.metadata.labels[\"bad key\"]: \"bad key\" is not a valid qualified key"
                + " ([prefix/]name)",
            "$.metadata.labels.ok: \"not ok!\" is not a valid label value (at most 63 characters)",
            "$.metadata.annotations[\"example.com/\"]: \"example.com/\" is not a valid qualified"
                + " key ([prefix/]name)");
  }

  @Test
  void otherKindsValidateToo() {
    ObjectNode deviceClass =
        json(
            """
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": "gpu.example.com"},
             "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}],
                      "extendedResourceName": "example.com/gpu"}}
            """);
    assertThat(schemas.validateObject(deviceClass)).isEmpty();
    ((ObjectNode) deviceClass.at("/spec/selectors/0/cel")).remove("expression");
    assertThat(schemas.validate("io.k8s.api.resource.v1.DeviceClass", deviceClass))
        .containsExactly("$.spec.selectors[0].cel.expression: is required");
    assertThat(schemas.schemaForKind("resource.k8s.io/v1", "ResourceClaimTemplate"))
        .contains("io.k8s.api.resource.v1.ResourceClaimTemplate");
    assertThat(schemas.schemaForKind("v1", "Pod")).isEmpty();
    assertThatThrownBy(() -> schemas.validate("io.k8s.api.core.v1.Pod", deviceClass))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no schema named \"io.k8s.api.core.v1.Pod\"");
  }

  @Test
  void assertValidListsEveryViolation() {
    ObjectNode s = slice();
    ((ObjectNode) s.get("spec")).remove("driver");
    ((ObjectNode) s.get("spec")).put("extra", 1);
    assertThatThrownBy(() -> schemas.assertValid(SLICE, s))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith(
            "not a valid io.k8s.api.resource.v1.ResourceSlice (2 violations):\n"
                + "  $.spec.driver: is required\n"
                + "  $.spec.extra: unknown field (not in io.k8s.api.resource.v1.ResourceSliceSpec)\n"
                + "value: {");
  }

  @Test
  void keywordsTheResourceDocumentDoesNotUse() throws Exception {
    String doc =
        """
        {"openapi": "3.0.0", "components": {"schemas": {
          "T": {"type": "object", "required": ["mode"], "properties": {
            "mode": {"type": "string", "enum": ["A", "B"]},
            "code": {"type": "integer", "format": "int32"},
            "note": {"type": "string", "nullable": true},
            "free": {"type": "object", "additionalProperties": true, "properties": {"x": {"type": "integer"}}},
            "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {}},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
          }}}}}
        """;
    OpenApiSchemas custom =
        OpenApiSchemas.load(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8)));
    JsonNode ok =
        json(
            """
            {"mode": "A", "code": 7, "note": null, "free": {"x": 1, "y": "z"},
             "raw": {"anything": [1]}, "counts": {"a": 1}, "either": 3}
            """);
    assertThat(custom.validate("T", ok)).isEmpty();
    JsonNode bad =
        json(
            """
            {"mode": "C", "code": 2147483648, "free": {"x": "1"}, "counts": {"a": "1"},
             "either": true}
            """);
    assertThat(custom.validate("T", bad))
        .containsExactly(
            "$.mode: \"C\" is not one of [\"A\",\"B\"]",
            "$.code: 2147483648 is out of the int32 range",
            "$.free.x: expected integer, got string",
            "$.counts.a: expected integer, got string",
            "$.either: must match exactly one of the oneOf schemas, matches 0");
  }

  @Test
  void pruningDropsWhatTheSchemaDoesNotKnowAndKeepsOpaqueData() throws Exception {
    ObjectNode claim =
        json(
            """
                {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": "c", "futureMeta": 1},
                 "spec": {"devices": {"requests": [{"name": "r", "futureRequestField": true,
                   "exactly": {"deviceClassName": "gpu"}}],
                   "config": [{"opaque": {"driver": "gpu.example.com",
                     "parameters": {"anything": {"goes": [1, 2]}}}}]}},
                 "status": {"devices": [{"driver": "d", "pool": "p", "device": "x",
                   "data": {"free": "form"}, "futureStatus": "x"}]}}
                """);
    List<String> removed = schemas.pruneUnknownFields(claim);
    assertThat(removed)
        .containsExactly(
            "metadata.futureMeta",
            "spec.devices.requests[0].futureRequestField",
            "status.devices[0].futureStatus");
    assertThat(claim.toString())
        .contains("\"anything\":{\"goes\":[1,2]}")
        .contains("\"data\":{\"free\":\"form\"}")
        .doesNotContain("future");
    // A kind the document does not describe is left alone.
    ObjectNode pod = json("{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"x\": 1}");
    assertThat(schemas.pruneUnknownFields(pod)).isEmpty();
    assertThat(pod.has("x")).isTrue();
  }
}
