package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeException;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The seeds' story with everything real but the kubelet: the deployment's DeviceClass with {@code
 * extendedResourceName: example.com/gpu}, an unchanged Pod asking for {@code example.com/gpu: 1},
 * and the real scheduler creating the claim, allocating one of our devices, recording {@code
 * status.extendedResourceClaimStatus} and binding the pod; then our driver prepares the claim the
 * scheduler wrote.
 */
class ExtendedResourceIT {
  static final String NS = "e2e-extended";

  Cluster cluster;
  DriverNode node;
  Scenario scenario;

  @BeforeEach
  void start() {
    cluster = Cluster.shared();
    cluster.apply(Resources.namespace(NS));
    node = DriverNode.start(cluster, "er-node", b -> b.flag("devices", "2"));
    node.awaitDevices(2);
    cluster.apply(Deployment.read("deviceclass.yaml"));
    scenario = new Scenario(cluster, node, NS);
  }

  @AfterEach
  void stop() {
    scenario.cleanUp("deviceclass/gpu.example.com");
    node.close();
  }

  @Test
  void unchangedPodAskingForTheExtendedResourceRunsOnDra() throws Exception {
    podAndPrepare("example.com/gpu");
  }

  @Test
  void implicitDeviceClassNameWorksToo() throws Exception {
    podAndPrepare("deviceclass.resource.kubernetes.io/gpu.example.com");
  }

  private void podAndPrepare(String resourceName) throws Exception {
    String pod = "train-" + Math.abs(resourceName.hashCode() % 1000);
    cluster.create(Resources.podWithExtendedResource(NS, pod, resourceName, 1));

    JsonNode bound = scenario.bound(pod);

    // The scheduler's record of which claim and request serve the container.
    JsonNode ers = bound.path("status").path("extendedResourceClaimStatus");
    assertThat(ers.path("resourceClaimName").asText()).as(bound.toPrettyString()).isNotEmpty();
    JsonNode mapping = ers.path("requestMappings").get(0);
    assertThat(mapping.path("containerName").asText()).isEqualTo("main");
    assertThat(mapping.path("resourceName").asText()).isEqualTo(resourceName);
    assertThat(mapping.path("requestName").asText()).isEqualTo("container-0-request-0");

    // The claim the scheduler created: annotated, owned by the pod, allocated from our slice.
    String claimName = ers.path("resourceClaimName").asText();
    JsonNode claim = scenario.claim(claimName);
    assertThat(
            claim
                .path("metadata")
                .path("annotations")
                .path("resource.kubernetes.io/extended-resource-claim")
                .asText())
        .isEqualTo("true");
    JsonNode owner = claim.path("metadata").path("ownerReferences").get(0);
    assertThat(owner.path("kind").asText()).isEqualTo("Pod");
    assertThat(owner.path("uid").asText()).isEqualTo(bound.path("metadata").path("uid").asText());
    assertThat(owner.path("controller").asBoolean()).isTrue();
    JsonNode request = claim.path("spec").path("devices").path("requests").get(0);
    assertThat(request.path("name").asText()).isEqualTo("container-0-request-0");
    assertThat(request.path("exactly").path("deviceClassName").asText())
        .isEqualTo("gpu.example.com");
    JsonNode result =
        claim.path("status").path("allocation").path("devices").path("results").get(0);
    assertThat(result.path("driver").asText()).isEqualTo(DriverProcess.DRIVER);
    assertThat(result.path("pool").asText()).isEqualTo(node.name);
    assertThat(result.path("device").asText()).startsWith("gpu-");
    assertThat(claim.path("status").path("reservedFor").get(0).path("uid").asText())
        .isEqualTo(bound.path("metadata").path("uid").asText());

    // What the kubelet would do next: NodePrepareResources with the claim the scheduler wrote.
    PluginInstance plugin = node.plugin();
    ClaimResult prepared = scenario.prepare(plugin, claimName);
    assertThat(prepared.error()).as(node.context()).isEmpty();
    assertThat(prepared.devices()).hasSize(1);
    assertThat(prepared.devices().get(0).deviceName()).isEqualTo(result.path("device").asText());
    assertThat(prepared.devices().get(0).cdiDeviceIds()).isNotEmpty();
    assertThat(cdiSpecs()).isNotEmpty();

    assertThat(scenario.unprepare(plugin, claimName)).isEmpty();
    assertThat(cdiSpecs()).isEmpty();
    deleteAndAwaitGone(pod, claimName);
  }

  private List<String> cdiSpecs() throws Exception {
    List<String> out = new ArrayList<>();
    try (var s = Files.list(node.driver.cdiDir())) {
      s.forEach(p -> out.add(p.getFileName().toString()));
    }
    return out;
  }

  /** The garbage collector removes the scheduler's claim with its owner, the pod. */
  private void deleteAndAwaitGone(String pod, String claimName) {
    cluster.deletePod(NS, pod);
    node.await(
        "claim " + claimName + " gone with its pod",
        () -> {
          try {
            scenario.claim(claimName);
            return false;
          } catch (KubeException e) {
            return e.isNotFound();
          }
        });
  }
}
