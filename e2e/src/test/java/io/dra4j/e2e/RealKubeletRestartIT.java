package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.ResourceSlice;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Crashes on both sides of the socket: the kubelet killed and restarted on its own checkpoint, and
 * the driver killed in the middle of NodePrepareResources. Either way the pod starts, no claim is
 * prepared twice and nothing is left behind once the pod is gone, even a pod deleted while the
 * kubelet was down.
 */
class RealKubeletRestartIT {
  static final String NS = "e2e-real-kubelet-restart";

  Cluster cluster;
  KubeletNode node;

  @BeforeEach
  void namespace() {
    cluster = Cluster.shared();
    cluster.apply(Resources.namespace(NS));
    cluster.apply(Deployment.read("deviceclass.yaml"));
    cluster.apply(Resources.claimTemplate(NS, "gpu-template"));
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
  }

  @Test
  void theKubeletRestartsOnItsCheckpointAndCleansUpAfterAPodDeletedWhileItWasDown()
      throws Exception {
    node = KubeletNode.start(cluster, "rk-restart", b -> b.flag("devices", "2"));
    node.awaitDevices(2);
    createPod("survivor");
    List<String> ids =
        RealKubelet.cdiIds(node.kubelet.awaitPod("prepared", NS + "/survivor"), "main");
    node.awaitRunning(NS, "survivor");
    assertThat(node.driver().metric(DriverProcess.PREPARED)).isEqualTo(1);
    Set<String> slicesBefore = sliceUids();

    node.kubelet.crash();
    int from = node.kubelet.events().size();
    node.kubelet.restart();

    // A restarted kubelet calls NodePrepareResources again for the pods it finds running (its
    // checkpoint only remembers what to unprepare); our checkpoint answers with the same devices
    // without preparing anything a second time.
    JsonNode again = node.kubelet.awaitPodFrom(from, "prepared", NS + "/survivor");
    assertThat(RealKubelet.cdiIds(again, "main")).isEqualTo(ids);
    assertThat(node.driver().metric(DriverProcess.PREPARED)).isEqualTo(1);
    assertThat(node.driver().metric(DriverProcess.REPEATED)).isEqualTo(1);
    // A starting kubelet deletes every ResourceSlice of its node; the driver publishes again.
    node.await(
        "the node's slices wiped by the starting kubelet and published again by the driver",
        () -> {
          Set<String> now = sliceUids();
          return !now.isEmpty()
              && now.stream().noneMatch(slicesBefore::contains)
              && node.publishedDevices() == 2;
        });

    // The pod goes while the kubelet is down: its checkpoint still names the claim, and its
    // reconcile loop (every 60 s) unprepares it once the pod is no longer active.
    node.kubelet.crash();
    cluster.deletePod(NS, "survivor");
    node.kubelet.restart();
    node.await(
        "NodeUnprepareResources from the kubelet's checkpoint",
        () -> node.driver().metric(DriverProcess.UNPREPARED) == 1);
    assertThat(node.cdiSpecs()).isEmpty();
    assertThat(node.driver().metric("dra4j_claims_prepared")).isZero();
  }

  @Test
  void theDriverKilledMidPrepareComesBackAndThePodStillStarts() throws Exception {
    // The driver stops after writing the CDI spec, before its checkpoint records the prepare as
    // complete and before it answers the kubelet: the worst place for a crash.
    node =
        KubeletNode.start(
            cluster,
            "rk-crash",
            b -> b.flag("devices", "2").systemProperty("dra4j.claims.crashPoint", "after-cdi"));
    node.awaitDevices(2);
    createPod("phoenix");
    node.await(
        "the driver inside NodePrepareResources",
        () -> node.driver().log().contains("DRA4J-CRASH-POINT after-cdi"));
    int from = node.kubelet.events().size();
    node.driver().kill();
    JsonNode failed = node.kubelet.awaitPodFrom(from, "prepare-failed", NS + "/phoenix");
    assertThat(failed.path("error").asText()).contains("NodePrepareResources");

    node.startDriver(b -> b.flag("devices", "2"));
    node.awaitRegistered(from);
    JsonNode prepared = node.kubelet.awaitPodFrom(from, "prepared", NS + "/phoenix");
    List<String> ids = RealKubelet.cdiIds(prepared, "main");
    assertThat(ids).hasSize(1);
    node.awaitRunning(NS, "phoenix");
    // One claim, one spec holding its device, one prepared claim in the driver's checkpoint.
    assertThat(node.cdiSpecs()).hasSize(1);
    assertThat(node.cdiSpecText()).contains(ids.get(0).substring(ids.get(0).indexOf('=') + 1));
    assertThat(node.driver().metric("dra4j_claims_prepared")).isEqualTo(1);

    cluster.kubectl("delete", "pod", "phoenix", "-n", NS, "--wait=false");
    node.kubelet.awaitPod("unprepared", NS + "/phoenix");
    node.awaitGone(NS, "phoenix");
    assertThat(node.cdiSpecs()).isEmpty();
    assertThat(node.driver().metric("dra4j_claims_prepared")).isZero();
  }

  private void createPod(String name) {
    cluster.create(Resources.podWithClaim(NS, name, "resourceClaimTemplateName: gpu-template", ""));
  }

  private Set<String> sliceUids() throws Exception {
    return node.slices().stream()
        .map(ResourceSlice::metadata)
        .map(m -> m.uid())
        .collect(Collectors.toSet());
  }
}
