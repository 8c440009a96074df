package io.dra4j.testkit.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.NodeAllocatableResource;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.internal.slices.LayoutOptions;
import io.dra4j.runtime.internal.slices.SliceLayout;
import io.dra4j.runtime.internal.slices.SliceNames;
import io.dra4j.validation.PoolValidation;
import io.dra4j.validation.PoolValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Every slice the layout produces, wrapped as the publisher will, is a valid ResourceSlice. */
class SliceLayoutSchemaTest {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";
  static final String NODE_UID = "4b6f2f0e-5c3a-4d2b-9a53-1f2d3c4b5a69";
  static final String SCHEMA = "io.k8s.api.resource.v1.ResourceSlice";

  final ObjectMapper mapper = new ObjectMapper().registerModule(new Jdk8Module());
  final OpenApiSchemas schemas = OpenApiSchemas.resourceV1();

  static Quantity q(String s) {
    return Quantity.parse(s);
  }

  static Device gpu(int i) {
    String bdf = String.format("0000:%02x:00.0", i % 256);
    return Device.builder("gpu-" + i)
        .attribute("model", "H200")
        .attribute("index", i)
        .attribute("healthy", true)
        .attribute("driverVersion", DeviceAttribute.version("550.54.15"))
        .attribute(StandardAttributes.PCI_BUS_ID, bdf)
        .attribute(StandardAttributes.PCIE_ROOT, "pci0000:00")
        .attribute(StandardAttributes.NUMA_NODE, i % 2)
        .capacity("memory", Quantity.ofBytes(141L << 30))
        .build();
  }

  /** Lays the pool out and returns the slices as the publisher would create them. */
  List<ResourceSlice> publish(Pool pool, LayoutOptions options, String owner) {
    PoolValidation validation = PoolValidator.validate(DRIVER, pool);
    assertThat(validation.errors()).as("validation of pool %s", pool.name()).isEmpty();
    List<ResourceSliceSpec> specs = SliceLayout.layout(DRIVER, pool, options);
    List<ResourceSlice> slices = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      ResourceSliceSpec spec = specs.get(i);
      ObjectMeta meta =
          ObjectMeta.generated("", SliceNames.generateName(i, specs.size(), DRIVER, owner))
              .withOwnerReferences(List.of(OwnerReference.node(NODE, NODE_UID)));
      slices.add(
          ResourceSlice.of(
              meta,
              spec.withPool(
                  new ResourceSliceSpec.ResourcePool(
                      spec.pool().name(), 1, spec.pool().resourceSliceCount()))));
    }
    return slices;
  }

  void assertAllValid(List<ResourceSlice> slices) throws Exception {
    assertThat(slices).isNotEmpty();
    for (ResourceSlice slice : slices) {
      JsonNode json = mapper.valueToTree(slice);
      schemas.assertValid(SCHEMA, json);
      // And the JSON reads back into the same slice.
      assertThat(mapper.treeToValue(json, ResourceSlice.class)).isEqualTo(slice);
    }
  }

  @Test
  void nodeLocalPoolWithTaintsAndListAttributes() throws Exception {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      Device.Builder b = gpu(i).toBuilder();
      if (i % 50 == 7) {
        b.taint(DeviceTaint.of(DRIVER + "/unhealthy", "XID79", TaintEffect.NO_EXECUTE))
            .taint(
                DeviceTaint.of(DRIVER + "/degraded", "", TaintEffect.NONE)
                    .withTimeAdded("2026-03-01T10:00:00Z"));
      }
      if (i >= 250) {
        b.attribute(StandardAttributes.NUMA_NODE, DeviceAttribute.ofInts(List.of(0L, 1L)))
            .attribute("links", DeviceAttribute.ofStrings(List.of("nvlink0", "nvlink1")))
            .attribute("flags", new DeviceAttribute.BoolValues(List.of(true, false)))
            .attribute("fw", new DeviceAttribute.VersionValues(List.of("1.0.0", "2.0.0-rc.1")));
      }
      devices.add(b.build());
    }
    List<ResourceSlice> slices = publish(Pool.of(NODE, devices), LayoutOptions.node(NODE), NODE);
    assertThat(slices).hasSize(5);
    assertThat(slices.get(0).metadata().generateName()).isEqualTo("00000-gpu.example.com-node-1-");
    assertAllValid(slices);
  }

  @Test
  void partitionableDevicesWithCounterSets() throws Exception {
    List<CounterSet> sets =
        IntStream.range(0, 10)
            .mapToObj(
                g ->
                    CounterSet.of(
                        "gpu-" + g,
                        Map.of(
                            "memory", Counter.of(Quantity.ofBytes(80L << 30)),
                            "sm", Counter.of(Quantity.of(132)))))
            .toList();
    List<Device> devices =
        IntStream.range(0, 70)
            .mapToObj(
                i ->
                    Device.builder("gpu-" + (i % 10) + "-mig-" + (i / 10))
                        .attribute("profile", "1g.10gb")
                        .capacity("memory", Quantity.ofBytes(10L << 30))
                        .consumesCounters(
                            DeviceCounterConsumption.of(
                                "gpu-" + (i % 10),
                                Map.of(
                                    "memory", Counter.of(Quantity.ofBytes(10L << 30)),
                                    "sm", Counter.of(Quantity.of(16)))))
                        .build())
            .toList();
    List<ResourceSlice> slices =
        publish(
            Pool.builder(NODE).devices(devices).counterSets(sets).build(),
            LayoutOptions.node(NODE),
            NODE);
    assertThat(slices).hasSize(4);
    assertAllValid(slices);
  }

  @Test
  void clusterWideScopesConsumableCapacityAndBindingConditions() throws Exception {
    Device nic =
        Device.builder("nic-0")
            .allowMultipleAllocations(true)
            .capacity(
                "bandwidth",
                DeviceCapacity.of(q("100G"))
                    .withRequestPolicy(
                        CapacityRequestPolicy.range(q("1G"), q("1G"), q("100G"), q("1G"))))
            .capacity(
                "queues",
                DeviceCapacity.of(q("16"))
                    .withRequestPolicy(
                        CapacityRequestPolicy.validValues(
                            q("1"), List.of(q("1"), q("2"), q("4"), q("8"), q("16")))))
            .bindsToNode(true)
            .bindingConditions(List.of(DRIVER + "/attached"), List.of(DRIVER + "/attach-failed"))
            .nodeAllocatableResource(
                "memory",
                NodeAllocatableResource.of(
                        NodeAllocatableResource.Mapping.capacity("bandwidth", q("1m")))
                    .withOverhead(NodeAllocatableResource.Overhead.perPod(q("64Mi"))))
            .build();
    assertAllValid(
        publish(
            Pool.builder("fabric").devices(List.of(nic)).scope(PoolScope.allNodes()).build(),
            LayoutOptions.clusterWide(),
            "fabric"));
    NodeSelector rack =
        NodeSelector.of(
            List.of(
                NodeSelector.Term.of(
                    List.of(
                        NodeSelector.Requirement.of(
                            "topology.example.com/rack", "In", List.of("r1", "r2"))),
                    List.of())));
    assertAllValid(
        publish(
            Pool.builder("rack/r1")
                .devices(List.of(nic))
                .scope(PoolScope.nodeSelector(rack))
                .build(),
            LayoutOptions.clusterWide(),
            "rack"));
  }

  @Test
  void perDeviceNodeSelection() throws Exception {
    List<Device> devices =
        List.of(
            Device.builder("a").nodeName("node-1").build(),
            Device.builder("b").allNodes(true).build(),
            Device.builder("c").nodeSelector(NodeSelector.forNodeName("node-2")).build());
    CounterSet set = CounterSet.of("shared", Map.of("lanes", Counter.of(q("8"))));
    assertAllValid(
        publish(
            Pool.builder("fabric")
                .devices(devices)
                .counterSets(List.of(set))
                .scope(PoolScope.perDevice())
                .build(),
            LayoutOptions.clusterWide(),
            "fabric"));
  }

  @Test
  void emptyPool() throws Exception {
    List<ResourceSlice> slices = publish(Pool.of(NODE, List.of()), LayoutOptions.node(NODE), NODE);
    assertThat(slices).hasSize(1);
    assertAllValid(slices);
  }

  @Test
  void theSchemaCatchesFieldsTheModelCarriesButTheApiDoesNotKnow() throws Exception {
    Device withFutureField =
        KubeJson.mapper()
            .readValue("{\"name\":\"gpu-0\",\"compatibilityGroups\":[\"a\"]}", Device.class);
    ResourceSlice slice =
        publish(Pool.of(NODE, List.of(withFutureField)), LayoutOptions.node(NODE), NODE).get(0);
    assertThat(schemas.validate(SCHEMA, slice))
        .containsExactly(
            "$.spec.devices[0].compatibilityGroups: unknown field (not in"
                + " io.k8s.api.resource.v1.Device)");
  }
}
