package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.examples.fake.SampleSysfs;
import io.dra4j.runtime.kube.KubeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A ResourceClaimTemplate with a CEL selector on our own attributes and a {@code matchAttribute}
 * constraint on the standardized {@code resource.kubernetes.io/numaNode} over two devices: the real
 * resourceclaim controller makes the pod's claim and the real scheduler picks two devices of one
 * NUMA node from the slices our driver published (topology from a sample sysfs tree: gpu-0 and
 * gpu-1 on node 0, gpu-2 and gpu-3 on node 1).
 */
class NumaConstraintIT {
  static final String NS = "e2e-numa";

  Cluster cluster;
  DriverNode node;

  @BeforeEach
  void start() throws Exception {
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
                    .flag("sysfs-root", sysfs.toString()));
    node.awaitDevices(4);
    cluster.apply(Resources.deviceClass("gpu-numa.example.com", Resources.GPU_SELECTOR));
  }

  @AfterEach
  void stop() {
    cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
    cluster.kubectl("delete", "resourceclaims", "--all", "-n", NS, "--wait=false");
    cluster.kubectl("delete", "deviceclass", "gpu-numa.example.com", "--ignore-not-found");
    node.close();
  }

  @Test
  void templateWithMatchAttributeGetsTwoDevicesOfOneNumaNode() throws Exception {
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

    JsonNode holderClaim = allocated("first");
    assertThat(devices(holderClaim)).containsExactly("gpu-0");

    // The resourceclaim controller names the pod's claim in the pod's status.
    String claimName =
        node.await(
            "the claim made from the template",
            () -> {
              JsonNode pod = cluster.admin().get(Cluster.PODS, NS, "trainer");
              JsonNode statuses = pod.path("status").path("resourceClaimStatuses");
              return statuses.isEmpty()
                  ? Optional.empty()
                  : Optional.of(statuses.get(0).path("resourceClaimName").asText());
            });
    JsonNode claim = allocated(claimName);
    assertThat(devices(claim)).containsExactlyInAnyOrder("gpu-2", "gpu-3");
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

  private JsonNode allocated(String claim) {
    return node.await(
        "claim " + claim + " allocated by the real scheduler",
        () -> {
          try {
            JsonNode c = cluster.admin().get(Cluster.CLAIMS, NS, claim);
            return c.path("status").path("allocation").isMissingNode()
                ? Optional.empty()
                : Optional.of(c);
          } catch (KubeException e) {
            if (e.isNotFound()) {
              return Optional.empty();
            }
            throw e;
          }
        });
  }

  static List<String> devices(JsonNode claim) {
    List<String> out = new ArrayList<>();
    for (JsonNode r : claim.path("status").path("allocation").path("devices").path("results")) {
      out.add(r.path("device").asText());
    }
    return out;
  }
}
