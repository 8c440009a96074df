package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.runtime.internal.slices.LayoutOptions;
import io.dra4j.runtime.internal.slices.SliceLayout;
import io.dra4j.runtime.internal.slices.SliceNames;
import io.dra4j.testkit.allocator.Allocator;
import io.dra4j.testkit.schema.OpenApiSchemas;
import io.dra4j.validation.PoolValidator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our JSON against the real API server's own description of resource.k8s.io/v1: ResourceSlices as
 * the runtime lays out the fake driver's 1.37 inventory (compatibility groups, fractional capacity
 * ranges, consumable capacity, binding conditions, list-typed attributes), a DeviceClass from the
 * {@code deviceclass} command with {@code extendedResourceName}, and a claim status with the
 * allocation the test kit writes. Each is checked against the schemas the server serves at {@code
 * /openapi/v3/apis/resource.k8s.io/v1} (field names, types, no unknown field), and the objects are
 * created with a server-side dry run under strict field validation and must come back with every
 * field we sent (no gate strips one: cluster.sh switches the 1.37 gates on).
 */
class OpenApiContractIT {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "contract-node";
  static final ObjectMapper JSON = KubeJson.mapper();

  static Cluster cluster;
  static OpenApiSchemas live;

  @BeforeAll
  static void readTheServersSchemas() throws Exception {
    cluster = Cluster.shared();
    JsonNode doc =
        JSON.readTree(cluster.kubectl("get", "--raw", "/openapi/v3/apis/resource.k8s.io/v1"));
    live = OpenApiSchemas.fromDocument(doc);
    assertThat(live.schemaNames()).contains("io.k8s.api.resource.v1.ResourceSlice");
  }

  /** The fake driver's inventory with every 1.37 feature it simulates, laid out as published. */
  static List<ResourceSlice> slices(Map<String, String> config) {
    Inventory inv =
        new FakeDeviceProvider()
            .discover(ProviderContext.builder(DRIVER, NODE).config(config).build());
    List<ResourceSlice> out = new ArrayList<>();
    for (Pool found : inv.pools()) {
      // The list forms spi-numa publishes for a device spanning PCIe roots and NUMA nodes (it
      // needs a host's sysfs, so they are added here as it would add them).
      Pool pool =
          found.withDevices(
              found.devices().stream()
                  .map(
                      d ->
                          d.name().equals("gpu-0")
                              ? d.toBuilder()
                                  .attribute(
                                      StandardAttributes.PCI_BUS_ID,
                                      DeviceAttribute.of("0000:3b:00.0"))
                                  .attribute(
                                      StandardAttributes.PCIE_ROOT,
                                      DeviceAttribute.ofStrings(
                                          List.of("pci0000:3a", "pci0000:85")))
                                  .attribute(
                                      StandardAttributes.NUMA_NODE,
                                      DeviceAttribute.ofInts(List.of(0L, 1L)))
                                  .build()
                              : d)
                  .toList());
      assertThat(PoolValidator.validate(DRIVER, pool).errors()).isEmpty();
      List<ResourceSliceSpec> specs = SliceLayout.layout(DRIVER, pool, LayoutOptions.node(NODE));
      for (int i = 0; i < specs.size(); i++) {
        ResourceSliceSpec spec = specs.get(i);
        out.add(
            ResourceSlice.of(
                ObjectMeta.generated("", SliceNames.generateName(i, specs.size(), DRIVER, NODE)),
                spec.withPool(
                    new ResourceSliceSpec.ResourcePool(
                        spec.pool().name(), 1, spec.pool().resourceSliceCount()))));
      }
    }
    return out;
  }

  static final Map<String, String> PARTITIONS =
      Map.of("devices", "2", "partitions", "2", "partition-modes", "mig,vgpu");
  static final Map<String, String> SHARED =
      Map.of(
          "devices", "2",
          "consumable", "true",
          "fractional-compute", "true",
          "attach-devices", "gpu-1");

  @Test
  void ourResourceSlicesMatchTheServersSchemaAndSurviveAStrictCreate() throws Exception {
    for (Map<String, String> config : List.of(PARTITIONS, SHARED)) {
      for (ResourceSlice slice : slices(config)) {
        JsonNode ours = JSON.valueToTree(slice);
        assertThat(live.validate("io.k8s.api.resource.v1.ResourceSlice", ours))
            .as("slice of %s", config)
            .isEmpty();
        JsonNode back = JSON.readTree(cluster.createDryRunStrict(JSON.writeValueAsString(ours)));
        assertThat(missing(ours.path("spec"), back.path("spec"), "spec"))
            .as("fields the API server dropped from the slice of %s", config)
            .isEmpty();
      }
    }
  }

  @Test
  void theDeviceClassCommandsOutputIsAStrictlyValidDeviceClass() throws Exception {
    String yaml =
        DeviceClassGenerator.yaml(
            DRIVER,
            "contract-gpu",
            Optional.of("example.com/contract-gpu"),
            List.of("device.attributes['gpu.example.com'].type == 'gpu'"));
    JsonNode ours = KubeJson.yaml().readTree(yaml);
    assertThat(live.validate("io.k8s.api.resource.v1.DeviceClass", ours)).isEmpty();
    JsonNode back = JSON.readTree(cluster.createDryRunStrict(yaml));
    assertThat(missing(ours.path("spec"), back.path("spec"), "spec")).isEmpty();
    assertThat(back.path("spec").path("extendedResourceName").asText())
        .isEqualTo("example.com/contract-gpu");
  }

  @Test
  void theClaimStatusWeWriteMatchesTheServersSchema() throws Exception {
    // A share of a consumable, fractional device as the test kit allocates it, plus the status
    // the runtime writes for it after prepare (Ready and the binding condition).
    List<ResourceSlice> slices = slices(SHARED);
    io.dra4j.kube.ResourceClaim claim =
        JSON.readValue(
            """
            {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
             "metadata":{"name":"c","namespace":"ns"},
             "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu",
               "selectors":[{"cel":{"expression":"device.attributes['gpu.example.com'].index == 1"}}],
               "capacity":{"requests":{"compute":"420m"}}}}]}}}
            """,
            io.dra4j.kube.ResourceClaim.class);
    io.dra4j.kube.DeviceClass gpu =
        JSON.readValue(
            KubeJson.yaml()
                .readTree(DeviceClassGenerator.yaml(DRIVER, "gpu", Optional.empty(), List.of()))
                .toString(),
            io.dra4j.kube.DeviceClass.class);
    io.dra4j.kube.AllocationResult allocation =
        new Allocator()
            .allocate(slices, List.of(gpu), claim, NODE, java.util.Set.of())
            .orElseThrow();
    io.dra4j.kube.DeviceRequestAllocationResult r = allocation.devices().results().get(0);
    ObjectNode status = JSON.createObjectNode();
    status.set("allocation", JSON.valueToTree(allocation));
    ObjectNode device = status.putArray("devices").addObject();
    device.put("driver", r.driver()).put("pool", r.pool()).put("device", r.device());
    r.shareID().ifPresent(id -> device.put("shareID", id));
    ObjectNode cond = device.putArray("conditions").addObject();
    cond.put("type", "Attached")
        .put("status", "True")
        .put("reason", "Attached")
        .put("message", "gpu-1 is attached")
        .put("lastTransitionTime", "2026-12-02T19:00:00Z");
    device.putObject("data").put("uuid", "x");
    assertThat(allocation.devices().results().get(0).bindingConditions()).contains("Attached");
    assertThat(live.validate("io.k8s.api.resource.v1.ResourceClaimStatus", status)).isEmpty();
  }

  /** Paths of fields in {@code ours} that {@code back} lacks (values are not compared). */
  static List<String> missing(JsonNode ours, JsonNode back, String path) {
    List<String> out = new ArrayList<>();
    if (ours.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = ours.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!back.has(e.getKey())) {
          out.add(path + "." + e.getKey());
        } else {
          out.addAll(missing(e.getValue(), back.get(e.getKey()), path + "." + e.getKey()));
        }
      }
    } else if (ours.isArray()) {
      for (int i = 0; i < ours.size(); i++) {
        if (i >= back.size()) {
          out.add(path + "[" + i + "]");
        } else {
          out.addAll(missing(ours.get(i), back.get(i), path + "[" + i + "]"));
        }
      }
    }
    return out;
  }
}
