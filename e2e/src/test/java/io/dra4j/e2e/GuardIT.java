package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeJson;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The extended-resource guard on the real cluster: a node whose status still advertises {@code
 * example.com/gpu: 4} (a device plugin serves the name there) keeps our devices out of the API
 * under the default {@code wait} policy, so the scheduler never sees the name served twice; once
 * the node's allocatable falls to 0 (the device plugin was removed) they are published and the
 * unchanged pod schedules on DRA. {@code MigrationIT} does the same with a real device plugin and
 * the real kubelet.
 */
class GuardIT {
  static final String NS = "e2e-guard";

  Cluster cluster = Cluster.shared();
  DriverNode node;
  Scenario scenario;

  @BeforeEach
  void start() {
    cluster.apply(Resources.namespace(NS));
    // The DeviceClass that maps the name exists before the driver starts, as in a migration.
    cluster.apply(Deployment.read("deviceclass.yaml"));
    node =
        DriverNode.start(cluster, "guard-node", b -> b.flag("devices", "2"), "example.com/gpu=4");
    scenario = new Scenario(cluster, node, NS);
  }

  @AfterEach
  void stop() {
    scenario.cleanUp("deviceclass/gpu.example.com");
    node.close();
  }

  @Test
  void devicesWaitUntilTheDevicePluginIsGone() throws Exception {
    JsonNode guard =
        node.await(
            "the guard blocking on the node's example.com/gpu capacity",
            () -> {
              JsonNode g = status().path("extendedResources");
              // Before its first read of DeviceClasses and the Node it blocks too, with no
              // conflict known yet.
              return g.path("synced").asBoolean() && !g.path("conflicts").isEmpty()
                  ? Optional.of(g)
                  : Optional.empty();
            });
    assertThat(guard.path("blocking").asBoolean()).isTrue();
    assertThat(guard.path("policy").asText()).isEqualTo("wait");
    assertThat(guard.path("conflicts").toString()).contains("example.com/gpu");
    assertThat(node.publishedDevices()).isZero();

    // The unchanged pod does not run on DRA while the device plugin's name is on the node: the
    // scheduler sees only the node's device-plugin capacity (no kubelet runs it here).
    cluster.create(Resources.podWithExtendedResource(NS, "early", "example.com/gpu", 1));
    JsonNode early = scenario.bound("early");
    assertThat(early.path("status").path("extendedResourceClaimStatus").isMissingNode())
        .as("served by the device plugin, not DRA")
        .isTrue();
    cluster.deletePod(NS, "early");

    // The device plugin is removed: its capacity goes to 0 in the node status.
    cluster.node(node.name, "example.com/gpu=0");
    node.awaitDevices(2);
    cluster.create(Resources.podWithExtendedResource(NS, "late", "example.com/gpu", 1));
    JsonNode late = scenario.bound("late");
    assertThat(
            late.path("status")
                .path("extendedResourceClaimStatus")
                .path("resourceClaimName")
                .asText())
        .isNotEmpty();
    assertThat(status().path("extendedResources").path("blocking").asBoolean()).isFalse();
  }

  private JsonNode status() throws Exception {
    return KubeJson.mapper().readTree(node.driver.health("/status").body());
  }
}
