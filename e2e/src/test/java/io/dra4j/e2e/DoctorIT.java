package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The migration doctor against the real control plane, mid-migration: one node served by our driver
 * with a pod the real scheduler placed there through its own extended-resource claim, one node
 * whose status still advertises {@code example.com/gpu} (a device plugin), and one node where both
 * serve the name (our driver told to only warn about the conflict).
 */
class DoctorIT {
  static final String NS = "e2e-doctor";
  static final String GPU = "example.com/gpu";

  Cluster cluster;
  final List<DriverNode> nodes = new ArrayList<>();
  final List<String> plainNodes = new ArrayList<>();

  @BeforeEach
  void start() {
    cluster = Cluster.shared();
    cluster.apply(Resources.namespace(NS));
    cluster.apply(Deployment.read("deviceclass.yaml"));
  }

  @AfterEach
  void stop() {
    cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
    cluster.kubectl("delete", "deviceclass", "gpu.example.com", "--ignore-not-found");
    nodes.forEach(DriverNode::close);
    nodes.forEach(n -> cluster.removeNode(n.name));
    plainNodes.forEach(cluster::removeNode);
  }

  DoctorRun doctor(String... flags) {
    return DoctorRun.of(cluster, flags);
  }

  @Test
  void judgesARealClusterMidMigration() throws Exception {
    DriverNode dra = DriverNode.start(cluster, "doc-dra", b -> b.flag("devices", "2"));
    nodes.add(dra);
    dra.awaitDevices(2);

    // The real scheduler places an unchanged pod on the DRA node through its own claim.
    cluster.create(Resources.podWithExtendedResource(NS, "train", GPU, 1));
    JsonNode bound =
        dra.await(
            "pod train bound with its extended-resource claim",
            () -> {
              JsonNode p = cluster.admin().get(Cluster.PODS, NS, "train");
              return p.path("status").path("extendedResourceClaimStatus").isMissingNode()
                      || p.path("spec").path("nodeName").asText().isEmpty()
                  ? Optional.empty()
                  : Optional.of(p);
            });
    String claim =
        bound.path("status").path("extendedResourceClaimStatus").path("resourceClaimName").asText();
    String boundTo = bound.path("spec").path("nodeName").asText();
    // Created after the pod is bound: its allocatable would otherwise let the scheduler take the
    // device-plugin path there.
    cluster.node("doc-plugin", GPU + "=4");
    plainNodes.add("doc-plugin");

    DoctorRun all = doctor();
    assertThat(all.report().path("versions").path("apiServer").asText()).startsWith("v1.37.2");
    assertThat(all.supply("doc-plugin", GPU).path("servedBy").asText()).isEqualTo("device-plugin");
    assertThat(all.supply("doc-plugin", GPU).path("phase").asText()).isEqualTo("device-plugin");
    assertThat(all.supply("doc-plugin", GPU).path("capacity").asText()).isEqualTo("4");
    assertThat(all.checks("error")).as(all.report().toPrettyString()).isEmpty();
    JsonNode ext = null;
    for (JsonNode c : all.report().path("claims").path("extendedResourceClaims")) {
      if (c.path("name").asText().equals(claim)) {
        ext = c;
      }
    }
    assertThat(ext).as("the scheduler's claim %s in %s", claim, all.report()).isNotNull();
    assertThat(ext.path("pod").asText()).isEqualTo("train");
    assertThat(ext.path("podExists").asBoolean()).isTrue();
    assertThat(ext.path("allocated").asBoolean()).isTrue();
    assertThat(ext.path("node").asText()).isEqualTo(boundTo);

    DoctorRun one = doctor("--node", "doc-dra");
    JsonNode s = one.supply("doc-dra", GPU);
    assertThat(s.path("servedBy").asText()).isEqualTo("dra");
    assertThat(s.path("phase").asText()).isEqualTo("dra");
    assertThat(s.path("deviceClass").asText()).isEqualTo("gpu.example.com");
    assertThat(s.path("draDevices").asInt()).isEqualTo(2);
    assertThat(s.path("podsOnNode").asInt()).isEqualTo(boundTo.equals("doc-dra") ? 1 : 0);
    assertThat(one.report().path("claims").path("podsWithExtendedResourceClaimStatus"))
        .anySatisfy(p -> assertThat(p.path("claimExists").asBoolean()).isTrue());
    assertThat(one.exit()).as(one.report().toPrettyString()).isZero();

    // A node that a device plugin and our driver (guard set to warn) serve at once.
    DriverNode both =
        DriverNode.start(
            cluster,
            "doc-both",
            b -> b.flag("devices", "1").flag("extended-resource-conflict", "warn"),
            GPU + "=4");
    nodes.add(both);
    both.awaitDevices(1);
    DoctorRun conflict = doctor("--node", "doc-both");
    assertThat(conflict.supply("doc-both", GPU).path("servedBy").asText()).isEqualTo("both");
    assertThat(conflict.supply("doc-both", GPU).path("phase").asText()).isEqualTo("conflict");
    assertThat(conflict.checks("error")).contains("supply.conflict doc-both");
    assertThat(conflict.exit()).isEqualTo(2);
  }
}
