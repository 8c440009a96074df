package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.testkit.allocator.AllocatedState;
import io.dra4j.testkit.allocator.AllocationOutcome;
import io.dra4j.testkit.allocator.Allocator;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.DraManager;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes 1.37 DRA features with the real API server and scheduler (gates as cluster.sh sets
 * them) and our driver's slices: compatibility groups, fractional capacity ranges, claims reserved
 * for a PodGroup, and the scheduler's answer to a selector that fails on one device, each compared
 * with what the test kit does.
 */
class Kubernetes137IT {
  static final String NS = "e2e-k137";
  static final String CLASS = "gpu-137.example.com";
  static final String ATTRS = "device.attributes['gpu.example.com']";

  Cluster cluster = Cluster.shared();
  DriverNode node;
  Scenario scenario;

  @AfterEach
  void stop() {
    if (node != null) {
      scenario.cleanUp("deviceclass/" + CLASS);
      cluster.kubectl("delete", "podgroups.scheduling.k8s.io", "--all", "-n", NS, "--wait=false");
      node.close();
    }
  }

  private void startNode(String name, int devices, String... flags) {
    cluster.apply(Resources.namespace(NS));
    node =
        DriverNode.start(
            cluster,
            name,
            b -> {
              for (int i = 0; i < flags.length; i += 2) {
                b.flag(flags[i], flags[i + 1]);
              }
              return b;
            });
    cluster.apply(Resources.deviceClass(CLASS, "device.driver == 'gpu.example.com'"));
    scenario = new Scenario(cluster, node, NS);
    node.awaitDevices(devices);
  }

  private void claimAndPod(String claim, String selector) {
    cluster.apply(Resources.claim(NS, claim, CLASS, 1, selector, Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "pod-" + claim, claim, Optional.empty()));
  }

  private static String mode(String mode) {
    return "has(" + ATTRS + ".mode) && " + ATTRS + ".mode == '" + mode + "'";
  }

  @Test
  void compatibilityGroupsKeepOnePartitioningModePerDevice() throws Exception {
    // One GPU, two modes of two partitions each: gpu-0, gpu-0-mig-0/1, gpu-0-vgpu-0/1.
    startNode("k137-groups", 5, "devices", "1", "partitions", "2", "partition-modes", "mig,vgpu");
    assertThat(
            node.slices().stream()
                .flatMap(s -> s.spec().devices().stream())
                .filter(d -> d.name().equals("gpu-0-vgpu-0"))
                .flatMap(d -> d.consumesCounters().stream())
                .flatMap(c -> c.compatibilityGroups().stream()))
        .as("the API server kept compatibilityGroups (gate on)")
        .containsExactly("vgpu");

    claimAndPod("mig-a", mode("mig"));
    assertThat(Scenario.devices(scenario.allocated("mig-a"))).containsExactly("gpu-0-mig-0");
    // Half the counters are free, but a vgpu partition is in another group: the real scheduler
    // refuses it.
    claimAndPod("vgpu-a", mode("vgpu"));
    scenario.awaitUnschedulable("pod-vgpu-a");
    assertThat(Scenario.isAllocated(scenario.claim("vgpu-a"))).isFalse();
    // The test kit's allocator on the same slices agrees.
    AllocationOutcome kit = testKit("vgpu-a");
    assertThat(kit.isAllocated()).isFalse();
    assertThat(kit.describe()).contains("compatibility groups");
    // Another mig partition is fine.
    claimAndPod("mig-b", mode("mig"));
    assertThat(Scenario.devices(scenario.allocated("mig-b"))).containsExactly("gpu-0-mig-1");
    ClaimResult r = scenario.prepare(node.plugin(), "mig-a");
    assertThat(r.error()).as(node.context()).isEmpty();
  }

  @Test
  void aSelectorFailingOnTheFirstDeviceFailsTheWholeClaimInBothSchedulers() throws Exception {
    startNode("k137-cel", 5, "devices", "1", "partitions", "2", "partition-modes", "mig,vgpu");
    // gpu-0 has no "mode" attribute and comes first: the expression fails there.
    claimAndPod("unguarded", ATTRS + ".mode == 'mig'");
    String message =
        node.await(
            "pod-unguarded not scheduled",
            () -> {
              for (JsonNode c : scenario.pod("pod-unguarded").path("status").path("conditions")) {
                if (c.path("type").asText().equals("PodScheduled")
                    && c.path("status").asText().equals("False")) {
                  return Optional.of(c.path("message").asText());
                }
              }
              return Optional.<String>empty();
            });
    assertThat(message).contains("CEL runtime error").contains("gpu-0");
    assertThat(Scenario.isAllocated(scenario.claim("unguarded"))).isFalse();
    AllocationOutcome kit = testKit("unguarded");
    assertThat(kit.isAllocated()).isFalse();
    assertThat(kit.describe()).contains("failed for device \"gpu-0\"");
  }

  @Test
  void aFractionalCapacityRequestIsRoundedUpToTheRangeStep() throws Exception {
    startNode("k137-frac", 1, "devices", "1", "consumable", "true", "fractional-compute", "true");
    for (String c : List.of("frac-a", "frac-b", "frac-c")) {
      cluster.apply(Resources.capacityClaim(NS, c, CLASS, "compute", "420m"));
    }
    cluster.apply(Resources.podWithClaim(NS, "pod-frac-a", "frac-a", Optional.empty()));
    JsonNode a = Scenario.results(scenario.allocated("frac-a")).get(0);
    // min 100m, step 50m: 420m is rounded up to 450m.
    assertThat(a.path("consumedCapacity").path("compute").asText()).isEqualTo("450m");
    assertThat(testKitResult("frac-b").path("consumedCapacity").path("compute").asText())
        .isEqualTo("450m");
    cluster.apply(Resources.podWithClaim(NS, "pod-frac-b", "frac-b", Optional.empty()));
    scenario.allocated("frac-b");
    // 900m of 1 taken: a third 450m share does not fit.
    cluster.apply(Resources.podWithClaim(NS, "pod-frac-c", "frac-c", Optional.empty()));
    scenario.awaitUnschedulable("pod-frac-c");
    ClaimResult r = scenario.prepare(node.plugin(), "frac-a");
    assertThat(r.error()).as(node.context()).isEmpty();
    assertThat(node.driver.cdiDir().toFile().list()).isNotEmpty();
    assertThat(cdiText()).contains("DRA_FAKE_DEVICE_0_COMPUTE=450m");
  }

  @Test
  void aClaimReservedForAPodGroupIsPreparedOnceForItsPods() throws Exception {
    startNode("k137-group", 1, "devices", "1");
    cluster.apply(Resources.claim(NS, "group-gpu", CLASS, 1, "true", Optional.empty()));
    cluster.apply(Resources.podGroup(NS, "trainers", "gpus", "group-gpu"));
    for (String p : List.of("worker-0", "worker-1")) {
      cluster.apply(
          Resources.podWithClaim(NS, p, "group-gpu", Optional.empty())
              .replace("spec:\n", "spec:\n  schedulingGroup: {podGroupName: trainers}\n"));
    }
    JsonNode claim = scenario.allocated("group-gpu");
    scenario.bound("worker-0");
    scenario.bound("worker-1");
    claim = scenario.claim("group-gpu");
    assertThat(claim.path("status").path("reservedFor")).hasSize(1);
    JsonNode entry = claim.path("status").path("reservedFor").get(0);
    assertThat(entry.path("apiGroup").asText()).isEqualTo("scheduling.k8s.io");
    assertThat(entry.path("resource").asText()).isEqualTo("podgroups");
    assertThat(entry.path("name").asText()).isEqualTo("trainers");

    // The test kit's kubelet, gate on, as the real kubelet in RealKubeletPrepareIT.
    node.plugin();
    DraManager kubelet = node.kubelet.draManager(cluster.admin(), true);
    long prepared = node.driver.metric(DriverProcess.PREPARED);
    Pod first = cluster.admin().get(Pod.TYPE, NS, "worker-0");
    Pod second = cluster.admin().get(Pod.TYPE, NS, "worker-1");
    assertThat(first.spec().podGroupName()).contains("trainers");
    List<String> ids = kubelet.prepare(first).cdiDevices("main");
    assertThat(ids).hasSize(1);
    assertThat(kubelet.prepare(second).cdiDevices("main")).isEqualTo(ids);
    assertThat(node.driver.metric(DriverProcess.PREPARED)).isEqualTo(prepared + 1);
    long unprepared = node.driver.metric(DriverProcess.UNPREPARED);
    kubelet.unprepare(first);
    assertThat(node.driver.metric(DriverProcess.UNPREPARED)).isEqualTo(unprepared);
    kubelet.unprepare(second);
    assertThat(node.driver.metric(DriverProcess.UNPREPARED)).isEqualTo(unprepared + 1);
    // With the gate off the same pod is refused, as the kubelet's gate off refuses it.
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> node.kubelet.draManager(cluster.admin()).prepare(first))
        .hasMessageContaining("is not allowed to use ResourceClaim group-gpu");
  }

  @Test
  void theRealSchedulerBindsOnlyOnceOurDriverReportsTheDeviceAttached() throws Exception {
    startNode(
        "k137-bind",
        2,
        "devices",
        "2",
        "attach-devices",
        "all",
        "attach-failures",
        "gpu-1",
        "attach-delay",
        "2s");
    claimAndPod("attach-ok", ATTRS + ".index == 0");
    JsonNode allocated = scenario.allocated("attach-ok");
    assertThat(Scenario.results(allocated).get(0).path("bindingConditions").get(0).asText())
        .isEqualTo("Attached");
    // PreBind waits for the binding condition our driver writes; then the pod is bound.
    scenario.bound("pod-attach-ok");
    assertThat(condition("attach-ok", "gpu-0", "Attached"))
        .as("bound only with the binding condition True")
        .contains("True");

    // gpu-1's attachment fails: our driver sets the failure condition and the scheduler does not
    // bind the pod (it takes the allocation back and tries again, failing each time).
    claimAndPod("attach-bad", ATTRS + ".index == 1");
    node.await(
        "AttachFailed=True on gpu-1",
        () -> condition("attach-bad", "gpu-1", "AttachFailed").equals(Optional.of("True")));
    assertThat(scenario.pod("pod-attach-bad").path("spec").path("nodeName").asText()).isEmpty();
  }

  /** The status of a condition of the claim's device in {@code status.devices}. */
  private Optional<String> condition(String claim, String device, String type) throws Exception {
    for (JsonNode d : scenario.claim(claim).path("status").path("devices")) {
      if (d.path("device").asText().equals(device)) {
        for (JsonNode c : d.path("conditions")) {
          if (c.path("type").asText().equals(type)) {
            return Optional.of(c.path("status").asText());
          }
        }
      }
    }
    return Optional.empty();
  }

  /** The test kit's allocator on what the real cluster holds now, for the claim on this node. */
  private AllocationOutcome testKit(String claim) throws Exception {
    List<ResourceSlice> slices =
        cluster.admin().list(ResourceSlice.TYPE, "", ListOptions.ALL).items();
    List<DeviceClass> classes = cluster.admin().list(DeviceClass.TYPE, "", ListOptions.ALL).items();
    List<ResourceClaim> claims =
        cluster.admin().list(ResourceClaim.TYPE, NS, ListOptions.ALL).items();
    ResourceClaim c = cluster.admin().get(ResourceClaim.TYPE, NS, claim);
    Node n = cluster.admin().get(Node.TYPE, "", node.name);
    List<ResourceClaim> others =
        claims.stream().filter(x -> !x.metadata().name().equals(claim)).toList();
    return new Allocator().allocate(slices, classes, c, n, AllocatedState.fromClaims(others));
  }

  private JsonNode testKitResult(String claim) throws Exception {
    return io.dra4j.kube.KubeJson.mapper()
        .valueToTree(testKit(claim).orElseThrow())
        .path("devices")
        .path("results")
        .get(0);
  }

  private String cdiText() throws Exception {
    StringBuilder sb = new StringBuilder();
    try (var specs = java.nio.file.Files.list(node.driver.cdiDir())) {
      for (java.nio.file.Path p : specs.toList()) {
        sb.append(java.nio.file.Files.readString(p));
      }
    }
    return sb.toString();
  }
}
