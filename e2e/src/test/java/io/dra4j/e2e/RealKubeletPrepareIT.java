package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Pod;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real kubelet's DRA manager prepares the claims of pods the real scheduler bound: it reads
 * each claim, checks its owner and {@code reservedFor}, calls our NodePrepareResources once per
 * claim however many pods share it, hands the CDI ids to the runtime per container, and calls
 * NodeUnprepareResources when the last pod using the claim is gone.
 */
class RealKubeletPrepareIT {
  static final String NS = "e2e-real-kubelet";

  static Cluster cluster;
  static KubeletNode node;

  @BeforeAll
  static void start() {
    cluster = Cluster.shared();
    cluster.apply(Resources.namespace(NS));
    cluster.apply(Deployment.read("deviceclass.yaml"));
    node = KubeletNode.start(cluster, "rk-node", b -> b.flag("devices", "2"));
    node.awaitRegistered(0);
    node.awaitDevices(2);
  }

  @AfterEach
  void noPodsLeft() {
    cluster.kubectl("delete", "pods", "--all", "-n", NS, "--wait=false");
    node.await(
        "every pod of " + NS + " deleted by the kubelet",
        () -> cluster.admin().list(Cluster.PODS, NS, ListOptions.ALL).items().isEmpty());
    cluster.kubectl("delete", "resourceclaims,resourceclaimtemplates", "--all", "-n", NS);
    node.await("every CDI spec removed", () -> node.cdiSpecs().isEmpty());
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
    cluster.kubectl("delete", "deviceclass", "gpu.example.com", "--ignore-not-found");
  }

  @Test
  void unchangedPodAskingForTheExtendedResourceGetsTheDeviceFromTheRealKubelet() throws Exception {
    long prepared = node.driver().metric(DriverProcess.PREPARED);
    long unprepared = node.driver().metric(DriverProcess.UNPREPARED);
    cluster.create(Resources.podWithExtendedResource(NS, "train", "example.com/gpu", 1));

    // Real scheduler -> real kubelet DRA manager -> our NodePrepareResources -> CDI ids for the
    // container, found in the spec our driver wrote.
    JsonNode event = node.kubelet.awaitPod("prepared", NS + "/train");
    List<String> ids = RealKubelet.cdiIds(event, "main");
    assertThat(ids).as(event.toString()).hasSize(1);
    assertThat(ids.get(0)).startsWith("k8s.gpu.example.com/");
    assertThat(node.cdiSpecs()).hasSize(1);
    assertThat(node.cdiSpecText()).contains(ids.get(0).substring(ids.get(0).indexOf('=') + 1));
    JsonNode pod = node.awaitRunning(NS, "train");
    String claimName =
        pod.path("status").path("extendedResourceClaimStatus").path("resourceClaimName").asText();
    JsonNode claim = cluster.admin().get(Cluster.CLAIMS, NS, claimName);
    assertThat(claim.path("status").path("reservedFor").get(0).path("uid").asText())
        .isEqualTo(pod.path("metadata").path("uid").asText());
    assertThat(node.driver().metric(DriverProcess.PREPARED)).isEqualTo(prepared + 1);

    // kubectl delete: the kubelet unprepares, then finishes the deletion; the claim goes with it.
    cluster.kubectl("delete", "pod", "train", "-n", NS, "--wait=false");
    node.kubelet.awaitPod("unprepared", NS + "/train");
    node.awaitGone(NS, "train");
    assertThat(node.cdiSpecs()).isEmpty();
    assertThat(node.driver().metric(DriverProcess.UNPREPARED)).isEqualTo(unprepared + 1);
    node.await("the scheduler's claim deleted with its pod", () -> gone(claimName));
  }

  @Test
  void aClaimSharedByTwoPodsIsPreparedOnceAndUnpreparedWithTheLastPod() throws Exception {
    long prepared = node.driver().metric(DriverProcess.PREPARED);
    long repeats = node.driver().metric(DriverProcess.REPEATED);
    long unprepared = node.driver().metric(DriverProcess.UNPREPARED);
    cluster.create(Resources.claim(NS, "shared"));
    cluster.create(Resources.podWithClaim(NS, "first", "resourceClaimName: shared", ""));
    cluster.create(Resources.podWithClaim(NS, "second", "resourceClaimName: shared", ""));

    List<String> first =
        RealKubelet.cdiIds(node.kubelet.awaitPod("prepared", NS + "/first"), "main");
    List<String> second =
        RealKubelet.cdiIds(node.kubelet.awaitPod("prepared", NS + "/second"), "main");
    assertThat(first).hasSize(1).isEqualTo(second);
    node.awaitRunning(NS, "first");
    node.awaitRunning(NS, "second");
    JsonNode claim = cluster.admin().get(Cluster.CLAIMS, NS, "shared");
    assertThat(claim.path("status").path("reservedFor")).hasSize(2);
    // The kubelet's own cache knows the claim is prepared: one NodePrepareResources in all.
    assertThat(node.driver().metric(DriverProcess.PREPARED)).isEqualTo(prepared + 1);
    assertThat(node.driver().metric(DriverProcess.REPEATED)).isEqualTo(repeats);

    cluster.kubectl("delete", "pod", "first", "-n", NS, "--wait=false");
    node.kubelet.awaitPod("unprepared", NS + "/first");
    node.awaitGone(NS, "first");
    assertThat(node.driver().metric(DriverProcess.UNPREPARED)).isEqualTo(unprepared);
    assertThat(node.cdiSpecs()).hasSize(1);

    cluster.kubectl("delete", "pod", "second", "-n", NS, "--wait=false");
    node.kubelet.awaitPod("unprepared", NS + "/second");
    node.awaitGone(NS, "second");
    assertThat(node.driver().metric(DriverProcess.UNPREPARED)).isEqualTo(unprepared + 1);
    assertThat(node.cdiSpecs()).isEmpty();
  }

  @Test
  void aClaimReservedForAPodGroupIsPreparedOnceForItsPodsByTheRealKubelet() throws Exception {
    // DRAWorkloadResourceClaims and GenericWorkload are on (cluster.sh): the real scheduler
    // reserves the claim for the PodGroup, and the kubelet lets each of its pods use it.
    long prepared = node.driver().metric(DriverProcess.PREPARED);
    long unprepared = node.driver().metric(DriverProcess.UNPREPARED);
    cluster.create(Resources.claim(NS, "group-claim"));
    cluster.create(Resources.podGroup(NS, "trainers", "gpu", "group-claim"));
    for (String p : List.of("member-0", "member-1")) {
      cluster.create(
          Resources.podWithClaim(NS, p, "resourceClaimName: group-claim", "")
              .replace("spec:\n", "spec:\n  schedulingGroup: {podGroupName: trainers}\n"));
    }
    List<String> first =
        RealKubelet.cdiIds(node.kubelet.awaitPod("prepared", NS + "/member-0"), "main");
    List<String> second =
        RealKubelet.cdiIds(node.kubelet.awaitPod("prepared", NS + "/member-1"), "main");
    assertThat(first).hasSize(1).isEqualTo(second);
    node.awaitRunning(NS, "member-0");
    node.awaitRunning(NS, "member-1");
    JsonNode reserved =
        cluster.admin().get(Cluster.CLAIMS, NS, "group-claim").path("status").path("reservedFor");
    assertThat(reserved).hasSize(1);
    assertThat(reserved.get(0).path("resource").asText()).isEqualTo("podgroups");
    assertThat(reserved.get(0).path("name").asText()).isEqualTo("trainers");
    assertThat(node.driver().metric(DriverProcess.PREPARED)).isEqualTo(prepared + 1);

    // The test kit's DRA manager (gate on) accepts the same pod; with the gate off it refuses it.
    Path registry = Files.createTempDirectory("rk-sim-");
    try (KubeletSimulator simulator = KubeletSimulator.start(registry)) {
      Pod pod = cluster.admin().get(Pod.TYPE, NS, "member-0");
      assertThatThrownBy(() -> simulator.draManager(cluster.admin()).prepare(pod))
          .hasMessageContaining("is not allowed to use ResourceClaim group-claim");
      // Gate on: the checks pass; it then fails only because this simulator has no driver.
      assertThatThrownBy(() -> simulator.draManager(cluster.admin(), true).prepare(pod))
          .hasMessageContaining("DRA driver gpu.example.com is not registered");
    } finally {
      AtomicFiles.deleteTreeQuietly(registry);
    }

    cluster.kubectl("delete", "pod", "member-0", "-n", NS, "--wait=false");
    node.kubelet.awaitPod("unprepared", NS + "/member-0");
    node.awaitGone(NS, "member-0");
    assertThat(node.driver().metric(DriverProcess.UNPREPARED)).isEqualTo(unprepared);
    assertThat(node.cdiSpecs()).hasSize(1);
    cluster.kubectl("delete", "pod", "member-1", "-n", NS, "--wait=false");
    node.kubelet.awaitPod("unprepared", NS + "/member-1");
    node.awaitGone(NS, "member-1");
    assertThat(node.driver().metric(DriverProcess.UNPREPARED)).isEqualTo(unprepared + 1);
    assertThat(node.cdiSpecs()).isEmpty();
    // The PodGroup goes too (its finalizer is removed by podgroup-protection-controller).
    cluster.kubectl("delete", "podgroups.scheduling.k8s.io", "trainers", "-n", NS, "--timeout=60s");
  }

  @Test
  void aClaimFromATemplateIsOwnedByItsPodAndPrepared() throws Exception {
    cluster.create(Resources.claimTemplate(NS, "gpu-template"));
    cluster.create(
        Resources.podWithClaim(NS, "templated", "resourceClaimTemplateName: gpu-template", ""));

    JsonNode event = node.kubelet.awaitPod("prepared", NS + "/templated");
    assertThat(RealKubelet.cdiIds(event, "main")).hasSize(1);
    JsonNode pod = node.awaitRunning(NS, "templated");
    String claimName =
        pod.path("status").path("resourceClaimStatuses").get(0).path("resourceClaimName").asText();
    JsonNode owner =
        cluster.admin().get(Cluster.CLAIMS, NS, claimName).path("metadata").path("ownerReferences");
    assertThat(owner.get(0).path("uid").asText())
        .isEqualTo(pod.path("metadata").path("uid").asText());

    cluster.kubectl("delete", "pod", "templated", "-n", NS, "--wait=false");
    node.kubelet.awaitPod("unprepared", NS + "/templated");
    node.awaitGone(NS, "templated");
    assertThat(node.cdiSpecs()).isEmpty();
    node.await("the template's claim deleted with its pod", () -> gone(claimName));
  }

  @Test
  void aPodNotInReservedForIsRefusedByTheKubeletBeforeItCallsTheDriver() throws Exception {
    long prepared = node.driver().metric(DriverProcess.PREPARED);
    long failures = node.driver().metric(DriverProcess.PREPARE_FAILED);
    // Bound to the node directly: the scheduler never allocates or reserves the claim for it.
    cluster.create(Resources.claim(NS, "unreserved"));
    cluster.create(
        Resources.podWithClaim(NS, "intruder", "resourceClaimName: unreserved", node.name));

    String uid = uid(NS, "intruder");
    // The first attempts may be Forbidden: the Node authorizer learns of the pod's claim from its
    // own informer, a moment after the kubelet's informer delivered the pod. The kubelet retries.
    JsonNode refused =
        node.kubelet.await(
            "the kubelet refusing pod intruder",
            e ->
                e.path("event").asText().equals("prepare-failed")
                    && e.path("pod").asText().equals(NS + "/intruder")
                    && e.path("error")
                        .asText()
                        .contains(
                            "pod intruder ("
                                + uid
                                + ") is not allowed to use"
                                + " ResourceClaim unreserved"));
    assertThat(node.driver().metric(DriverProcess.PREPARED)).isEqualTo(prepared);
    assertThat(node.driver().metric(DriverProcess.PREPARE_FAILED)).isEqualTo(failures);
    assertThat(node.pod(NS, "intruder").path("status").path("phase").asText())
        .isNotEqualTo("Running");
    assertThat(node.cdiSpecs()).isEmpty();

    // The test kit's DRA manager refuses the same pod with the same words.
    Path registry = Files.createTempDirectory("rk-sim-");
    try (KubeletSimulator simulator = KubeletSimulator.start(registry)) {
      Pod pod = cluster.admin().get(Pod.TYPE, NS, "intruder");
      assertThatThrownBy(() -> simulator.draManager(cluster.admin()).prepare(pod))
          .hasMessage(refused.path("error").asText());
    } finally {
      AtomicFiles.deleteTreeQuietly(registry);
    }
  }

  private static String uid(String namespace, String pod) throws KubeException {
    return node.pod(namespace, pod).path("metadata").path("uid").asText();
  }

  private static boolean gone(String claimName) {
    try {
      cluster.admin().get(Cluster.CLAIMS, NS, claimName);
      return false;
    } catch (KubeException e) {
      return e.isNotFound();
    }
  }
}
