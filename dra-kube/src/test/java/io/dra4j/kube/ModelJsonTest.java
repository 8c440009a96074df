package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The models read OpenAPI-shaped JSON with every resource.k8s.io/v1 field and write it back
 * unchanged, unknown fields included.
 */
class ModelJsonTest {
  private final ObjectMapper json = KubeJson.mapper();

  private JsonNode resource(String name) throws Exception {
    try (InputStream in = getClass().getResourceAsStream("/kube/" + name)) {
      return json.readTree(in);
    }
  }

  private <T> T roundTrip(String file, Class<T> type) throws Exception {
    JsonNode original = resource(file);
    T value = json.treeToValue(original, type);
    // Compared after a trip through text, as the client sends it (a tree built from records holds
    // LongNodes where parsed text holds IntNodes; both print the same).
    assertThat(json.readTree(json.writeValueAsString(value))).isEqualTo(original);
    return value;
  }

  @Test
  void resourceClaimWithEveryFieldRoundTrips() throws Exception {
    ResourceClaim c = roundTrip("resourceclaim-full.json", ResourceClaim.class);
    // Every field of the document is modelled: nothing landed in an unknownFields map.
    assertThat(unknownPaths(c, "claim")).isEmpty();

    DeviceRequest gpu = c.spec().devices().requests().get(0);
    ExactDeviceRequest exactly = gpu.exactly().orElseThrow();
    assertThat(exactly.effectiveCount()).isEqualTo(2);
    assertThat(exactly.adminAccess()).contains(false);
    assertThat(exactly.selectors().get(0).cel().orElseThrow().expression()).contains("h100");
    assertThat(exactly.tolerations().get(0).effect()).contains(TaintEffect.NO_EXECUTE);
    assertThat(exactly.capacity().orElseThrow().requests())
        .containsEntry("memory", Quantity.parse("40Gi"));
    DeviceSubRequest fast = c.spec().devices().requests().get(1).firstAvailable().get(0);
    assertThat(fast.effectiveAllocationMode()).isEqualTo("All");
    assertThat(
            c.spec().devices().requests().get(1).firstAvailable().get(1).effectiveAllocationMode())
        .isEqualTo("ExactCount");
    assertThat(c.spec().devices().constraints().get(1).distinctAttribute())
        .contains("gpu.example.com/uuid");
    JsonNode params = c.spec().devices().config().get(0).opaque().orElseThrow().parameters();
    assertThat(params.path("sharing").path("interval").toString()).isEqualTo("1.50");

    DeviceRequestAllocationResult r =
        c.status().allocation().orElseThrow().devices().results().get(0);
    assertThat(r.shareID()).contains("6a3f5c1e-7b2d-4c1a-9e8f-0a1b2c3d4e5f");
    assertThat(r.skipNodeOperations()).hasSize(2);
    assertThat(r.consumedCapacity()).containsEntry("memory", Quantity.parse("40960Mi"));
    assertThat(
            c.status()
                .allocation()
                .orElseThrow()
                .devices()
                .config()
                .get(1)
                .opaque()
                .orElseThrow()
                .parameters()
                .toString())
        .isEqualTo("{}");
    assertThat(c.status().reservedFor())
        .extracting(ResourceClaimConsumerReference::resource)
        .containsExactly("pods", "podgroups");
    AllocatedDeviceStatus st = c.status().devices().get(0);
    assertThat(st.key())
        .isEqualTo("gpu.example.com/node-1/gpu-0#6a3f5c1e-7b2d-4c1a-9e8f-0a1b2c3d4e5f");
    assertThat(st.conditions().get(0).observedGeneration()).contains(1L);
    assertThat(st.networkData().orElseThrow().ips())
        .containsExactly("192.0.2.5/24", "2001:db8::5/64");
    assertThat(st.data().orElseThrow().path("numbers").toString()).isEqualTo("[1,2.50,1E+3]");
  }

  @Test
  void deviceClassWithEveryFieldRoundTrips() throws Exception {
    DeviceClass d = roundTrip("deviceclass-full.json", DeviceClass.class);
    assertThat(unknownPaths(d, "class")).isEmpty();
    assertThat(d.spec().extendedResourceName()).contains("example.com/gpu");
    assertThat(d.implicitExtendedResourceName())
        .isEqualTo("deviceclass.resource.kubernetes.io/gpu.example.com");
    assertThat(d.metadata().creationTimestamp()).isEqualTo("2026-11-30T09:00:00Z");
  }

  @Test
  void nodeKeepsEverythingItDoesNotModel() throws Exception {
    Node n = roundTrip("node-full.json", Node.class);
    assertThat(n.status().capacity()).containsEntry("example.com/gpu", Quantity.of(0));
    assertThat(n.status().allocatable()).containsEntry("cpu", Quantity.parse("63.5"));
    assertThat(n.unknownFields()).containsKey("spec");
    assertThat(n.status().unknownFields()).containsKeys("conditions", "nodeInfo");
    assertThat(n.metadata().unknownFields()).containsKey("managedFields");
  }

  @Test
  void podKeepsEverythingItDoesNotModel() throws Exception {
    Pod p = roundTrip("pod-full.json", Pod.class);
    assertThat(p.spec().nodeName()).isEqualTo("node-1");
    Pod.Container main = p.spec().containers().get(0);
    assertThat(main.resources().claims())
        .extracting(Pod.ContainerClaim::name, Pod.ContainerClaim::request)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("gpu", "gpu"),
            org.assertj.core.groups.Tuple.tuple("nic", ""));
    assertThat(main.unknownFields()).containsKeys("image", "command");
    assertThat(p.spec().resourceClaims().get(0).resourceClaimTemplateName())
        .contains("gpu-template");
    Pod.ExtendedResourceClaimStatus ext = p.status().extendedResourceClaimStatus().orElseThrow();
    assertThat(ext.resourceClaimName()).isEqualTo("train-extended-resources-abcde");
    assertThat(ext.requestMappings())
        .extracting(Pod.ExtendedResourceRequest::requestName)
        .containsExactly("container-0-request-0", "container-1-request-0");
    assertThat(p.status().unknownFields()).containsKey("phase");
  }

  @Test
  void unknownFieldsAtEveryLevelSurviveARoundTrip() throws Exception {
    ObjectNode doc = (ObjectNode) resource("resourceclaim-full.json");
    doc.put("topLevelFuture", true);
    ((ObjectNode) doc.path("spec")).putObject("specFuture").put("x", 1);
    ((ObjectNode) doc.path("spec").path("devices").path("requests").get(0).path("exactly"))
        .put("futureRequestField", "new");
    ((ObjectNode) doc.path("status").path("allocation").path("devices").path("results").get(0))
        .putArray("compatibilityGroups")
        .add("g1");
    ((ObjectNode) doc.path("status").path("devices").get(0).path("conditions").get(0))
        .put("conditionFuture", "y");
    ResourceClaim c = json.treeToValue(doc, ResourceClaim.class);
    assertThat(json.readTree(json.writeValueAsString(c))).isEqualTo(doc);
    assertThat(unknownPaths(c, "claim"))
        .containsExactlyInAnyOrder(
            "claim.topLevelFuture",
            "claim.spec.specFuture",
            "claim.spec.devices.requests[0].exactly.get.futureRequestField",
            "claim.status.allocation.get.devices.results[0].compatibilityGroups",
            "claim.status.devices[0].conditions[0].conditionFuture");
  }

  @Test
  void resourceSliceWithEveryFieldRoundTrips() throws Exception {
    ResourceSlice s = roundTrip("resourceslice-full.json", ResourceSlice.class);
    assertThat(unknownPaths(s, "slice")).isEmpty();
    assertThat(s.spec().skipNodeOperations())
        .containsExactly("NodePrepareResources", "NodeUnprepareResources");
    assertThat(s.spec().partitionTypeAttribute()).contains("gpu.example.com/profile");
  }

  /**
   * A field of a newer Kubernetes in every object of a slice (every struct of the
   * resource.k8s.io/v1 ResourceSlice, the core NodeSelector and the metadata's owner references) is
   * kept on reading and written back where it was.
   */
  @Test
  void unknownFieldsInEveryObjectOfASliceSurviveARoundTrip() throws Exception {
    ObjectNode doc = (ObjectNode) resource("resourceslice-full.json");
    List<String> injected = new ArrayList<>();
    injectEverywhere(doc, "slice", injected);
    ResourceSlice s = json.treeToValue(doc, ResourceSlice.class);
    assertThat(json.readTree(json.writeValueAsString(s))).isEqualTo(doc);
    assertThat(unknownPaths(s, "slice")).containsExactlyInAnyOrderElementsOf(injected);
    // The objects the test reached, so that a field added to the fixture is covered as well.
    assertThat(injected).hasSize(29);
  }

  /** Maps whose keys are names, not fields: their values are objects of a type (or unions). */
  private static final Set<String> MAPS =
      Set.of("capacity", "counters", "nodeAllocatableResources", "labels", "annotations");

  /**
   * Adds {@code future} to every object below {@code node} and lists the paths where {@link
   * #unknownPaths} should find it. Attribute values are unions (exactly one of int, bool, ...): a
   * field beside the value is not kept, one instead of a known value is ({@code
   * DeviceAttributeJsonTest}).
   */
  private static void injectEverywhere(ObjectNode node, String path, List<String> out) {
    List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
    node.fields().forEachRemaining(fields::add);
    node.put("future", 1);
    out.add(path + ".future");
    for (Map.Entry<String, JsonNode> f : fields) {
      String name = f.getKey();
      JsonNode v = f.getValue();
      // The model's paths go through Optional values (".get"), as unknownPaths walks them.
      String p = path + "." + name + (OPTIONAL.contains(name) ? ".get" : "");
      if (name.equals("attributes") || name.equals("labels") || name.equals("annotations")) {
        continue;
      }
      if (MAPS.contains(name)) {
        for (Map.Entry<String, JsonNode> e : iterable(v)) {
          injectInto(e.getValue(), p + "[" + e.getKey() + "]", out);
        }
      } else {
        injectInto(v, p, out);
      }
    }
  }

  /** Fields the model holds as Optional. */
  private static final Set<String> OPTIONAL =
      Set.of("nodeSelector", "requestPolicy", "validRange", "mapping", "overhead");

  private static void injectInto(JsonNode v, String path, List<String> out) {
    if (v instanceof ObjectNode o) {
      injectEverywhere(o, path, out);
    } else if (v.isArray()) {
      for (int i = 0; i < v.size(); i++) {
        injectInto(v.get(i), path + "[" + i + "]", out);
      }
    }
  }

  private static List<Map.Entry<String, JsonNode>> iterable(JsonNode v) {
    List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
    v.fields().forEachRemaining(out::add);
    return out;
  }

  @Test
  void emptyPartsAreLeftOut() throws Exception {
    ResourceClaim c =
        ResourceClaim.of(
            ObjectMeta.named("ns", "c"),
            ResourceClaimSpec.of(
                DeviceClaim.of(
                    List.of(
                        DeviceRequest.exactly(
                            "gpu", ExactDeviceRequest.of("gpu.example.com", 0))))));
    assertThat(json.writeValueAsString(c))
        .isEqualTo(
            "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
                + "\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},"
                + "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\","
                + "\"exactly\":{\"deviceClassName\":\"gpu.example.com\"}}]}}}");
    Pod p = Pod.of(ObjectMeta.named("ns", "p"), null);
    assertThat(json.writeValueAsString(p))
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"}}");
  }

  @Test
  void everyModelHasItsResourceType() {
    assertThat(ResourceClaim.TYPE.objectPath("ns", "c"))
        .isEqualTo("/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c");
    assertThat(DeviceClass.TYPE.collectionPath(""))
        .isEqualTo("/apis/resource.k8s.io/v1/deviceclasses");
    assertThat(Node.TYPE.objectPath("", "n")).isEqualTo("/api/v1/nodes/n");
    assertThat(Pod.TYPE.collectionPath("")).isEqualTo("/api/v1/pods");
    assertThat(Pod.TYPE.apiVersion()).isEqualTo("v1");
  }

  /** Paths of non-empty unknownFields maps in a tree of model objects. */
  static List<String> unknownPaths(Object value, String path) throws Exception {
    List<String> out = new ArrayList<>();
    collect(value, path, out);
    return out;
  }

  private static void collect(Object v, String path, List<String> out) throws Exception {
    if (v instanceof Optional<?> o) {
      if (o.isPresent()) {
        collect(o.get(), path + ".get", out);
      }
    } else if (v instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        collect(l.get(i), path + "[" + i + "]", out);
      }
    } else if (v instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        collect(e.getValue(), path + "[" + e.getKey() + "]", out);
      }
    } else if (v != null
        && v.getClass().getName().startsWith("io.dra4j.")
        && !v.getClass().isEnum()) {
      // The model's records and dra-api's classes alike: their fields hold what was read.
      for (Field f : v.getClass().getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        f.setAccessible(true);
        Object field = f.get(v);
        if (f.getName().equals("unknownFields")) {
          for (Object k : ((Map<?, ?>) field).keySet()) {
            out.add(path + "." + k);
          }
        } else if (!(field instanceof Collection<?> c && c.isEmpty())) {
          collect(field, path + "." + f.getName(), out);
        }
      }
    }
  }
}
