package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClients;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Claim status (KEP-4817) and the driver's rights on the real API server, with the pod-bound token
 * a DaemonSet pod gets and the deployment's RBAC and ValidatingAdmissionPolicy: conditions, data
 * and networkData the driver applies for a claim on its node are accepted; the same credentials are
 * Forbidden for a claim allocated on another node (granular status authorization, 1.36+), and the
 * policy refuses a ResourceSlice for another node.
 */
class ClaimStatusIT {
  static final String NS = "e2e-status";
  static final String CLASS = "gpu-status.example.com";

  Cluster cluster = Cluster.shared();
  DriverNode node;
  Scenario scenario;

  @BeforeEach
  void start() {
    cluster.apply(Resources.namespace(NS));
    node =
        DriverNode.start(
            cluster, "status-node", b -> b.flag("devices", "2").flag("network-data", "true"));
    node.awaitDevices(2);
    cluster.apply(Resources.deviceClass(CLASS, Resources.GPU_SELECTOR));
    scenario = new Scenario(cluster, node, NS);
  }

  @AfterEach
  void stop() {
    scenario.cleanUp("deviceclass/" + CLASS);
    node.close();
    cluster.removeNode("status-other");
  }

  @Test
  void statusWithConditionsAndNetworkDataIsAcceptedForOurNodesClaim() throws Exception {
    cluster.apply(Resources.claim(NS, "mine", CLASS, 1, "true", Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "mine", "mine", Optional.empty()));
    String device = Scenario.devices(scenario.allocated("mine")).get(0);
    scenario.bound("mine");

    PluginInstance plugin = node.plugin();
    ClaimResult r = scenario.prepare(plugin, "mine");
    assertThat(r.error()).as(node.context()).isEmpty();

    JsonNode status = scenario.claim("mine").path("status").path("devices");
    assertThat(status).as(node.context()).hasSize(1);
    JsonNode d = status.get(0);
    assertThat(d.path("driver").asText()).isEqualTo(DriverProcess.DRIVER);
    assertThat(d.path("pool").asText()).isEqualTo(node.name);
    assertThat(d.path("device").asText()).isEqualTo(device);
    JsonNode ready = d.path("conditions").get(0);
    assertThat(ready.path("type").asText()).isEqualTo("Ready");
    assertThat(ready.path("status").asText()).isEqualTo("True");
    assertThat(d.path("data").path("model").asText()).isEqualTo("FAKE-80");
    assertThat(d.path("networkData").path("interfaceName").asText()).isEqualTo("fake-" + device);
    assertThat(d.path("networkData").path("ips").get(0).asText()).startsWith("192.0.2.");
    assertThat(d.path("networkData").path("hardwareAddress").asText()).startsWith("02:");
    // Written by the driver's own field manager, next to the scheduler's allocation.
    assertThat(scenario.claim("mine").path("metadata").path("managedFields").toString())
        .contains("\"subresource\":\"status\"")
        .contains(DriverProcess.DRIVER);

    assertThat(scenario.unprepare(plugin, "mine")).isEmpty();
  }

  @Test
  void theDriversTokenIsForbiddenForAnotherNodesClaimAndSlices() throws Exception {
    cluster.node("status-other");
    // A claim allocated (by an admin, standing in for the scheduler) to a device on the other node.
    cluster.apply(Resources.claim(NS, "theirs", CLASS, 1, "true", Optional.empty()));
    cluster.kubectl(
        "patch",
        "resourceclaim",
        "theirs",
        "-n",
        NS,
        "--subresource=status",
        "--type=merge",
        "-p",
        """
        {"status": {"allocation": {
          "devices": {"results": [
            {"request": "gpus", "driver": "gpu.example.com", "pool": "status-other", "device": "gpu-0"}]},
          "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["status-other"]}]}]}}}}
        """);

    try (HttpKubeClient driver = KubeClients.fromKubeconfig(node.kubeconfig)) {
      Map<String, Object> patch =
          Map.of(
              "apiVersion",
              "resource.k8s.io/v1",
              "kind",
              "ResourceClaim",
              "metadata",
              Map.of("name", "theirs", "namespace", NS),
              "status",
              Map.of(
                  "devices",
                  List.of(
                      Map.of(
                          "driver",
                          DriverProcess.DRIVER,
                          "pool",
                          "status-other",
                          "device",
                          "gpu-0",
                          "conditions",
                          List.of()))));
      assertThatThrownBy(
              () ->
                  driver.apply(
                      ResourceClaim.TYPE,
                      NS,
                      "theirs",
                      "status",
                      patch,
                      new ApplyOptions(DriverProcess.DRIVER, true)))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                // Not a 403: the granular status authorization (1.36+) answers 422 Invalid with a
                // Forbidden field error on status.devices, naming the verb a driver would need.
                assertThat(e.status()).as(e.getMessage()).isEqualTo(422);
                assertThat(e.getMessage())
                    .contains("status.devices: Forbidden")
                    .contains("resourceclaims/driver")
                    .contains("arbitrary-node:patch");
              });

      // The admission policy keeps the driver to its own node's slices.
      ResourceSlice foreign =
          KubeJson.mapper()
              .convertValue(
                  Map.of(
                      "apiVersion",
                      "resource.k8s.io/v1",
                      "kind",
                      "ResourceSlice",
                      "metadata",
                      Map.of("name", "status-other-forged"),
                      "spec",
                      Map.of(
                          "driver",
                          DriverProcess.DRIVER,
                          "nodeName",
                          "status-other",
                          "pool",
                          Map.of(
                              "name", "status-other",
                              "generation", 1,
                              "resourceSliceCount", 1),
                          "devices",
                          List.of(Map.of("name", "gpu-0")))),
                  ResourceSlice.class);
      assertThatThrownBy(() -> driver.create(ResourceSlice.TYPE, foreign))
          .isInstanceOfSatisfying(
              KubeException.class,
              e ->
                  assertThat(e.getMessage())
                      .contains(
                          "the driver on node status-node may not modify ResourceSlices of node"
                              + " status-other"));
    }

    // Asked by a kubelet to prepare it anyway, the driver refuses and writes nothing.
    ClaimResult r = scenario.prepare(node.plugin(), "theirs");
    assertThat(r.error()).isPresent();
    assertThat(scenario.claim("theirs").path("status").path("devices").isMissingNode()).isTrue();
  }
}
