package io.dra4j.testkit.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.testkit.allocator.ClaimDecision;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.DraManager;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One story per Kubernetes 1.37 DRA feature, with the whole fake driver (DraDriver with spi-fake)
 * publishing to the test kit's API server, the test kit's scheduler allocating from its slices and
 * the test kit's kubelet preparing through the driver's real sockets. Kubernetes137IT tells the
 * same stories to the real API server, scheduler and kubelet.
 */
class Kubernetes137FeaturesTest {
  static final String DRIVER = FakeNode.DRIVER;
  static final String NODE = FakeNode.NODE;
  static final String NS = "ns";
  static final ObjectMapper JSON = KubeJson.mapper();
  static final String ATTRS = "device.attributes['gpu.example.com']";

  @TempDir Path tmp;
  FakeApiServer api;
  HttpKubeClient client;
  KubeletSimulator kubelet;
  FakeNode node;
  ClusterAllocator scheduler;

  void start(Map<String, String> config) throws Exception {
    node = FakeNode.start(tmp);
    api = node.api;
    client = node.client;
    kubelet = node.kubelet;
    node.start(node.driver(new FakeDeviceProvider()).config(config));
    client.create(
        DeviceClass.TYPE,
        read(
            DeviceClassGenerator.yaml(DRIVER, "gpu", Optional.empty(), List.of()),
            DeviceClass.class));
    scheduler = new ClusterAllocator(client);
  }

  @AfterEach
  void tearDown() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void compatibilityGroupsRefuseAnotherModeOnTheSameDevice() throws Exception {
    start(Map.of("devices", "1", "partitions", "2", "partition-modes", "mig,vgpu"));
    claim("mig-a", mode("mig"), "");
    claim("vgpu-a", mode("vgpu"), "");
    claim("mig-b", mode("mig"), "");
    assertThat(device(allocate("mig-a"))).isEqualTo("gpu-0-mig-0");
    // Half the counters are free, but the vgpu partitions are in another group.
    ClaimDecision vgpu = scheduler.tryAllocateClaim(NS, "vgpu-a", NODE);
    assertThat(vgpu.allocated()).isFalse();
    assertThat(vgpu.outcome().describe()).contains("compatibility groups");
    assertThat(device(allocate("mig-b"))).isEqualTo("gpu-0-mig-1");
    DraManager manager = kubelet.draManager(client);
    assertThat(manager.prepare(pod("p", "mig-a", "")).cdiDevices("main")).hasSize(1);
  }

  @Test
  void aFractionalRequestIsRoundedUpToTheStepAndReachesTheDevice() throws Exception {
    start(Map.of("devices", "1", "consumable", "true", "fractional-compute", "true"));
    String capacity = ",\"capacity\":{\"requests\":{\"compute\":\"420m\"}}";
    for (String c : List.of("a", "b", "c")) {
      claim(c, "true", capacity);
    }
    DeviceRequestAllocationResult a = result(allocate("a"));
    assertThat(a.consumedCapacity().get("compute").toString()).isEqualTo("450m");
    assertThat(a.shareID()).isPresent();
    allocate("b");
    assertThat(scheduler.tryAllocateClaim(NS, "c", NODE).allocated()).isFalse();
    kubelet.draManager(client).prepare(pod("p", "a", ""));
    assertThat(cdiText()).contains("DRA_FAKE_DEVICE_0_COMPUTE=450m");
  }

  @Test
  void aClaimReservedForAPodGroupIsPreparedOnceByTheRuntimeForTheGroupsPods() throws Exception {
    start(Map.of("devices", "1"));
    claim("group", "true", "");
    scheduler.allocateClaim(
        NS,
        "group",
        NODE,
        Optional.of(
            ResourceClaimConsumerReference.podGroup("trainers", UUID.randomUUID().toString())));
    Pod first = pod("worker-0", "group", "trainers");
    Pod second = pod("worker-1", "group", "trainers");
    DraManager manager = kubelet.draManager(client, true);
    // The runtime prepares a claim whose only consumer is a PodGroup.
    List<String> ids = manager.prepare(first).cdiDevices("main");
    assertThat(ids).hasSize(1);
    assertThat(manager.prepare(second).cdiDevices("main")).isEqualTo(ids);
    assertThat(cdiSpecs()).hasSize(1);
    manager.unprepare(first);
    assertThat(cdiSpecs()).hasSize(1);
    manager.unprepare(second);
    assertThat(cdiSpecs()).isEmpty();
    assertThatThrownBy(() -> kubelet.draManager(client).prepare(first))
        .hasMessageContaining("is not allowed to use ResourceClaim group");
  }

  @Test
  void aSelectorFailingOnTheFirstDeviceFailsTheClaim() throws Exception {
    start(Map.of("devices", "1", "partitions", "2", "partition-modes", "mig,vgpu"));
    claim("unguarded", ATTRS + ".mode == 'mig'", "");
    ClaimDecision d = scheduler.tryAllocateClaim(NS, "unguarded", NODE);
    assertThat(d.allocated()).isFalse();
    assertThat(d.outcome().describe()).contains("failed for device \"gpu-0\"");
    claim("guarded", mode("mig"), "");
    assertThat(device(allocate("guarded"))).isEqualTo("gpu-0-mig-0");
  }

  // ---- helpers ----

  private static String mode(String mode) {
    return "has(" + ATTRS + ".mode) && " + ATTRS + ".mode == '" + mode + "'";
  }

  private void claim(String name, String selector, String extra) throws Exception {
    client.create(
        ResourceClaim.TYPE,
        read(
            """
            {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
             "metadata":{"name":"%s","namespace":"%s"},
             "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu",
               "selectors":[{"cel":{"expression":"%s"}}]%s}}]}}}
            """
                .formatted(name, NS, selector, extra),
            ResourceClaim.class));
  }

  private ResourceClaim allocate(String claim) throws Exception {
    return scheduler
        .allocateClaim(
            NS,
            claim,
            NODE,
            Optional.of(ResourceClaimConsumerReference.pod("p", UUID.randomUUID().toString())))
        .claim();
  }

  /** A pod bound to the node using the claim as {@code gpu}, in PodGroup {@code group} if set. */
  private Pod pod(String name, String claim, String group) throws Exception {
    Pod pod =
        api.put(
            Pod.TYPE,
            read(
                """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s"},
                 "spec":{"nodeName":"%s",%s"resourceClaims":[{"name":"gpu","resourceClaimName":"%s"}],
                   "containers":[{"name":"main","image":"x","resources":{"claims":[{"name":"gpu"}]}}]}}
                """
                    .formatted(
                        name,
                        NS,
                        NODE,
                        group.isEmpty()
                            ? ""
                            : "\"schedulingGroup\":{\"podGroupName\":\"" + group + "\"},",
                        claim),
                Pod.class));
    if (group.isEmpty()) {
      // Reserved for this pod (the claim was reserved for a placeholder uid by allocate()).
      ResourceClaim c = client.get(ResourceClaim.TYPE, NS, claim);
      client.updateStatus(
          ResourceClaim.TYPE,
          c.withStatus(
              c.status()
                  .withReservedFor(
                      List.of(ResourceClaimConsumerReference.pod(name, pod.metadata().uid())))));
    }
    return pod;
  }

  private static DeviceRequestAllocationResult result(ResourceClaim claim) {
    return claim.status().allocation().orElseThrow().devices().results().get(0);
  }

  private static String device(ResourceClaim claim) {
    return result(claim).device();
  }

  private List<Path> cdiSpecs() throws Exception {
    try (Stream<Path> s = Files.list(tmp.resolve("cdi"))) {
      return s.toList();
    }
  }

  private String cdiText() throws Exception {
    StringBuilder sb = new StringBuilder();
    for (Path p : cdiSpecs()) {
      sb.append(Files.readString(p));
    }
    return sb.toString();
  }

  private static <T> T read(String json, Class<T> type) throws Exception {
    if (json.startsWith("apiVersion")) {
      return KubeJson.yaml().readValue(json, type);
    }
    return JSON.readValue(json, type);
  }
}
