package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Device health over the v1 health stream to the real kubelet's DRA manager, and where 1.37 shows
 * it: {@code status.containerStatuses[].allocatedResourcesStatus} of the pod using the device, one
 * entry {@code claim:<pod claim>} with the device's first CDI id as resource id.
 */
class RealKubeletHealthIT {
  static final String NS = "e2e-real-kubelet-health";

  Cluster cluster;
  KubeletNode node;
  Path healthFile;

  @BeforeEach
  void start() {
    cluster = Cluster.shared();
    cluster.apply(Resources.namespace(NS));
    cluster.apply(Deployment.read("deviceclass.yaml"));
    cluster.apply(Resources.claimTemplate(NS, "gpu-template"));
  }

  /** A node with one device whose health the health file drives. */
  private void startNode(
      String name, List<String> kubeletFlags, UnaryOperator<DriverProcess.Builder> flags) {
    healthFile = DriverNode.workDir(name + "-file").resolve("health");
    node =
        KubeletNode.start(
            cluster,
            name,
            kubeletFlags,
            b ->
                flags.apply(
                    b.flag("devices", "1")
                        .flag("health-file", healthFile.toAbsolutePath().toString())));
    node.awaitDevices(1);
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
  }

  @Test
  void theKubeletReceivesDeviceHealthAndThePodStatusShowsIt() throws Exception {
    startNode("rk-health", List.of(), b -> b);
    String cdiId = startPod("watched");
    assertThat(awaitHealth("watched", "Healthy", cdiId).path("message").isMissingNode()).isTrue();

    Files.writeString(healthFile, "gpu-0 xid-79 fell off the bus\n");
    JsonNode unhealthy = awaitHealth("watched", "Unhealthy", cdiId);
    assertThat(unhealthy.path("message").asText()).contains("fell off the bus");

    Files.writeString(healthFile, "");
    awaitHealth("watched", "Healthy", cdiId);
  }

  /**
   * The runtime does not vouch for a provider: when the provider's monitor stops (the fake's {@code
   * !stop}), no report reaches the kubelet, whose DRA manager shows the device Unknown once the
   * provider's 3 s timeout passed (at its next pod sync, every 2 s here instead of the kubelet's 1
   * min); when reports resume it shows Healthy again. The driver itself says the reports went
   * stale.
   */
  @Test
  void aStoppedMonitorDecaysToUnknownAndRecoversWhenReportsResume() throws Exception {
    startNode(
        "rk-health-decay", List.of("--sync-frequency=2s"), b -> b.flag("health-timeout", "3s"));
    String cdiId = startPod("decaying");
    awaitHealth("decaying", "Healthy", cdiId);

    Files.writeString(healthFile, "!stop\n");
    JsonNode unknown = awaitHealth("decaying", "Unknown", cdiId);
    assertThat(unknown.path("message").isMissingNode()).isTrue();
    node.await(
        "the driver reporting stale device health",
        () -> node.driver().log().contains("no device health report for 3 s"));

    Files.writeString(healthFile, "");
    awaitHealth("decaying", "Healthy", cdiId);
  }

  /** Creates a pod with a claim from the template, waits until it runs; its device's CDI id. */
  private String startPod(String pod) {
    cluster.create(Resources.podWithClaim(NS, pod, "resourceClaimTemplateName: gpu-template", ""));
    JsonNode prepared = node.kubelet.awaitPod("prepared", NS + "/" + pod);
    String cdiId = RealKubelet.cdiIds(prepared, "main").get(0);
    node.awaitRunning(NS, pod);
    return cdiId;
  }

  /** Waits until the pod's container status reports the device with {@code health}. */
  private JsonNode awaitHealth(String pod, String health, String cdiId) {
    return node.await(
        "pod status of " + NS + "/" + pod + " showing the device " + health,
        () -> {
          JsonNode status = node.pod(NS, pod).path("status");
          JsonNode container = status.path("containerStatuses").get(0);
          if (container == null) {
            return Optional.empty();
          }
          for (JsonNode rs : container.path("allocatedResourcesStatus")) {
            if (!rs.path("name").asText().equals("claim:gpu")) {
              continue;
            }
            JsonNode resources = rs.path("resources");
            if (resources.size() == 1
                && resources.get(0).path("resourceID").asText().equals(cdiId)
                && resources.get(0).path("health").asText().equals(health)) {
              return Optional.of(resources.get(0));
            }
          }
          return Optional.empty();
        });
  }
}
