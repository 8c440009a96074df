package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.examples.fake.SampleSysfs;
import io.dra4j.kube.ResourceSlice;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A ResourceClaimTemplate with a CEL selector on our own attributes and a {@code matchAttribute}
 * constraint on the standardized {@code resource.kubernetes.io/numaNode} over two devices: the real
 * resourceclaim controller makes the pod's claim and the real scheduler picks two devices of one
 * NUMA node from the slices our driver published (topology from a sample sysfs tree: gpu-0 and
 * gpu-1 on node 0, gpu-2 and gpu-3 on node 1). Once with the standard attributes' scalar forms (the
 * default) and once with their list forms (spi-numa's {@code numa-attribute-form=list} and {@code
 * pcie-root-attribute-form=list}, 1.37's alpha DRAListTypeAttributes, switched on by cluster.sh):
 * the real scheduler matches a list-typed {@code numaNode} the same way.
 */
class NumaConstraintIT {
  static final String NS = "e2e-numa";

  Cluster cluster;
  DriverNode node;
  Scenario scenario;

  void start(String form) throws Exception {
    cluster = Cluster.shared();
    cluster.apply(Resources.namespace(NS));
    Path sysfs = SampleSysfs.write(DriverNode.workDir("numa-sysfs").resolve("sys"));
    node =
        DriverNode.start(
            cluster,
            "numa-node",
            b ->
                b.flag("devices", "4")
                    .flag("pci-bus-ids", String.join(",", SampleSysfs.BUS_IDS))
                    .flag("sysfs-root", sysfs.toString())
                    .flag("numa-attribute-form", form)
                    .flag("pcie-root-attribute-form", form));
    node.awaitDevices(4);
    cluster.apply(Resources.deviceClass("gpu-numa.example.com", Resources.GPU_SELECTOR));
    scenario = new Scenario(cluster, node, NS);
  }

  @AfterEach
  void stop() {
    if (scenario != null) {
      scenario.cleanUp("deviceclass/gpu-numa.example.com");
    }
    if (node != null) {
      node.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"scalar", "list"})
  void templateWithMatchAttributeGetsTwoDevicesOfOneNumaNode(String form) throws Exception {
    start(form);
    // What the API server stored: the form asked for, not a conversion of it.
    Map<String, DeviceAttribute> gpu2 = published("gpu-2");
    if (form.equals("list")) {
      assertThat(gpu2.get("resource.kubernetes.io/numaNode"))
          .isEqualTo(new DeviceAttribute.IntValues(List.of(1L)));
      assertThat(gpu2.get("resource.kubernetes.io/pcieRoot"))
          .isInstanceOf(DeviceAttribute.StringValues.class);
    } else {
      assertThat(gpu2.get("resource.kubernetes.io/numaNode"))
          .isEqualTo(new DeviceAttribute.IntValue(1));
      assertThat(gpu2.get("resource.kubernetes.io/pcieRoot"))
          .isInstanceOf(DeviceAttribute.StringValue.class);
    }

    // gpu-0 is taken first, so only gpu-2 and gpu-3 still share a NUMA node.
    cluster.apply(
        Resources.claim(
            NS,
            "first",
            "gpu-numa.example.com",
            1,
            "device.attributes['gpu.example.com'].index == 0",
            Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "holder", "first", Optional.empty()));
    cluster.apply(
        Resources.claimTemplate(
            NS,
            "two-on-one-numa",
            "gpu-numa.example.com",
            2,
            "device.attributes['gpu.example.com'].model.startsWith('FAKE')",
            Optional.of("resource.kubernetes.io/numaNode")));
    cluster.apply(Resources.podWithClaim(NS, "trainer", "", Optional.of("two-on-one-numa")));

    JsonNode holderClaim = scenario.allocated("first");
    assertThat(Scenario.devices(holderClaim)).containsExactly("gpu-0");

    // The resourceclaim controller names the pod's claim in the pod's status.
    String claimName =
        node.await(
            "the claim made from the template",
            () -> {
              JsonNode pod = scenario.pod("trainer");
              JsonNode statuses = pod.path("status").path("resourceClaimStatuses");
              return statuses.isEmpty()
                  ? Optional.empty()
                  : Optional.of(statuses.get(0).path("resourceClaimName").asText());
            });
    JsonNode claim = scenario.allocated(claimName);
    assertThat(Scenario.devices(claim)).containsExactlyInAnyOrder("gpu-2", "gpu-3");
    assertThat(claim.path("metadata").path("ownerReferences").get(0).path("name").asText())
        .isEqualTo("trainer");
    assertThat(
            claim
                .path("metadata")
                .path("annotations")
                .path("resource.kubernetes.io/pod-claim-name")
                .asText())
        .isEqualTo("gpus");
  }

  /** The attributes of one of this node's devices as the API server holds them. */
  private Map<String, DeviceAttribute> published(String device) throws Exception {
    Map<String, DeviceAttribute> found = new TreeMap<>();
    for (ResourceSlice slice : node.slices()) {
      for (Device d : slice.spec().devices()) {
        if (d.name().equals(device)) {
          found.putAll(d.attributes());
        }
      }
    }
    assertThat(found).as(device + "'s published attributes").isNotEmpty();
    return found;
  }
}
