package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
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
    healthFile = DriverNode.workDir("rk-health-file").resolve("health");
    node =
        KubeletNode.start(
            cluster,
            "rk-health",
            b ->
                b.flag("devices", "1").flag("health-file", healthFile.toAbsolutePath().toString()));
    node.awaitDevices(1);
  }

  @AfterEach
  void stop() {
    node.close();
    cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
  }

  @Test
  void theKubeletReceivesDeviceHealthAndThePodStatusShowsIt() throws Exception {
    cluster.create(
        Resources.podWithClaim(NS, "watched", "resourceClaimTemplateName: gpu-template", ""));
    JsonNode prepared = node.kubelet.awaitPod("prepared", NS + "/watched");
    String cdiId = RealKubelet.cdiIds(prepared, "main").get(0);
    node.awaitRunning(NS, "watched");
    assertThat(awaitHealth("Healthy", cdiId).path("message").isMissingNode()).isTrue();

    Files.writeString(healthFile, "gpu-0 xid-79 fell off the bus\n");
    JsonNode unhealthy = awaitHealth("Unhealthy", cdiId);
    assertThat(unhealthy.path("message").asText()).contains("fell off the bus");

    Files.writeString(healthFile, "");
    awaitHealth("Healthy", cdiId);
  }

  /** Waits until the pod's container status reports the device with {@code health}. */
  private JsonNode awaitHealth(String health, String cdiId) {
    return node.await(
        "pod status of " + NS + "/watched showing the device " + health,
        () -> {
          JsonNode status = node.pod(NS, "watched").path("status");
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
