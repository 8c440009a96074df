package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceSlice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Device health against the real scheduler and the real device-taint-eviction controller: a device
 * our driver reports unhealthy is tainted in our slice (NoExecute here), the controller evicts the
 * pod using it, the scheduler no longer allocates it, and after recovery the taint is lifted and
 * the device is allocatable again. An admin's DeviceTaintRule with effect None reports what it
 * would do.
 */
class HealthIT {
  static final String NS = "e2e-health";
  static final String CLASS = "gpu-health.example.com";
  static final String TAINT_KEY = "gpu.example.com/unhealthy";

  Cluster cluster = Cluster.shared();
  DriverNode node;
  Scenario scenario;
  Path healthFile;

  @BeforeEach
  void start() {
    cluster.apply(Resources.namespace(NS));
    healthFile = DriverNode.workDir("health-file").resolve("health");
    node =
        DriverNode.start(
            cluster,
            "health-node",
            b ->
                b.flag("devices", "2")
                    .flag("health-file", healthFile.toString())
                    .flag("health-taint-effect", "NoExecute")
                    .flag("health-recovery-delay", "2s"));
    node.awaitDevices(2);
    cluster.apply(Resources.deviceClass(CLASS, Resources.GPU_SELECTOR));
    scenario = new Scenario(cluster, node, NS);
  }

  @AfterEach
  void stop() {
    scenario.cleanUp("devicetaintrule/maintenance-gpu-1", "deviceclass/" + CLASS);
    node.close();
  }

  @Test
  void unhealthyDeviceIsTaintedEvictedAvoidedAndRecovers() throws Exception {
    String gpu0 = "device.attributes['gpu.example.com'].index == 0";
    cluster.apply(Resources.claim(NS, "victim", CLASS, 1, gpu0, Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "victim", "victim", Optional.empty()));
    scenario.allocated("victim");
    scenario.bound("victim");

    Files.writeString(healthFile, "gpu-0 XID79 fell off the bus\n");
    JsonNode taint =
        node.await(
            "the NoExecute taint on gpu-0 in our slice",
            () -> taintOf("gpu-0").filter(t -> t.path("effect").asText().equals("NoExecute")));
    assertThat(taint.path("key").asText()).isEqualTo(TAINT_KEY);
    assertThat(taint.path("value").asText()).isEqualTo("XID79");
    assertThat(taint.path("timeAdded").asText()).as("set by us or the API server").isNotEmpty();

    // The device-taint-eviction controller deletes the pod (its grace period is 0, so no kubelet
    // needs to confirm) and says why in an event.
    node.await(
        "pod victim evicted by the device taint",
        () -> {
          try {
            return !scenario
                .pod("victim")
                .path("metadata")
                .path("deletionTimestamp")
                .isMissingNode();
          } catch (KubeException e) {
            return e.isNotFound();
          }
        });
    assertThat(
            cluster.kubectl(
                "get",
                "events",
                "-n",
                NS,
                "--field-selector",
                "involvedObject.name=victim",
                "-o",
                "jsonpath={.items[*].reason}"))
        .contains("DeviceTaintManagerEviction");
    cluster.deletePod(NS, "victim");
    scenario.awaitDeallocated("victim");

    // While tainted, the scheduler does not allocate gpu-0 to a new claim.
    cluster.apply(Resources.claim(NS, "after", CLASS, 1, gpu0, Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "after", "after", Optional.empty()));
    scenario.awaitUnschedulable("after");
    assertThat(Scenario.isAllocated(scenario.claim("after"))).isFalse();

    // Recovery: healthy again, the taint goes after the recovery delay and the pod is placed.
    Files.delete(healthFile);
    node.await("the taint on gpu-0 lifted", () -> taintOf("gpu-0").isEmpty());
    scenario.allocated("after");
    scenario.bound("after");
  }

  @Test
  void deviceTaintRuleWithEffectNoneReportsWhatItWouldEvict() throws Exception {
    String gpu1 = "device.attributes['gpu.example.com'].index == 1";
    cluster.apply(Resources.claim(NS, "busy", CLASS, 1, gpu1, Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "busy", "busy", Optional.empty()));
    scenario.allocated("busy");
    scenario.bound("busy");
    cluster.apply(
        """
        apiVersion: resource.k8s.io/v1
        kind: DeviceTaintRule
        metadata: {name: maintenance-gpu-1}
        spec:
          deviceSelector: {driver: gpu.example.com, pool: %s, device: gpu-1}
          taint: {key: example.com/maintenance, value: planned, effect: None}
        """
            .formatted(node.name));
    JsonNode condition =
        node.await(
            "the rule's EvictionInProgress condition",
            () -> {
              JsonNode rule =
                  cluster.admin().get(Cluster.DEVICE_TAINT_RULES, "", "maintenance-gpu-1");
              for (JsonNode c : rule.path("status").path("conditions")) {
                if (c.path("type").asText().equals("EvictionInProgress")) {
                  return Optional.of(c);
                }
              }
              return Optional.empty();
            });
    assertThat(condition.path("status").asText()).isEqualTo("False");
    assertThat(condition.path("reason").asText()).isEqualTo("NoEffect");
    assertThat(condition.path("message").asText())
        .contains("1 published device selected")
        .contains("1 allocated device selected")
        .contains("1 pod would be evicted");
    // Effect None changes nothing: the pod keeps running, our slice is untouched.
    assertThat(scenario.pod("busy").path("metadata").path("deletionTimestamp").isMissingNode())
        .isTrue();
    assertThat(taintOf("gpu-1")).isEmpty();
  }

  private Optional<JsonNode> taintOf(String device) throws Exception {
    for (ResourceSlice s : node.slices()) {
      JsonNode json = cluster.admin().get(Cluster.SLICES, "", s.metadata().name());
      for (JsonNode d : json.path("spec").path("devices")) {
        if (d.path("name").asText().equals(device)) {
          for (JsonNode t : d.path("taints")) {
            if (t.path("key").asText().equals(TAINT_KEY)) {
              return Optional.of(t);
            }
          }
        }
      }
    }
    return Optional.empty();
  }
}
