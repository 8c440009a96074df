package ${package};

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.DraDriver;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.testkit.allocator.ClaimDecision;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver without a cluster: the test kit's API server, a kubelet simulator calling the driver
 * over its real Unix sockets, and an allocator playing the scheduler.
 */
class MyDeviceProviderTest {
  static final String DRIVER = Main.DRIVER_NAME;

  @TempDir Path dir;

  @Test
  void aClaimForTheSecondDeviceGetsItsDeviceNode() throws Exception {
    Path registry = dir.resolve("plugins_registry"); // the kubelet's /var/lib/kubelet/plugins_registry
    try (FakeApiServer api = FakeApiServer.start();
        HttpKubeClient client = api.newClient();
        KubeletSimulator kubelet = KubeletSimulator.start(registry);
        DraDriver driver =
            DraDriver.builder()
                .driverName(DRIVER)
                .nodeName("node-1")
                .provider(new MyDeviceProvider())
                .kubeClient(client)
                .registrarDirectory(registry)
                .pluginDirectory(dir.resolve("plugins").resolve(DRIVER)) // sockets, checkpoint
                .cdiDirectory(dir.resolve("cdi")) // the node's /var/run/cdi
                .build()) {
      api.putNode("node-1"); // in a cluster, the kubelet registers its Node
      driver.start();
      PluginInstance plugin = kubelet.awaitPlugin(DRIVER, Duration.ofSeconds(30));
      assertThat(driver.awaitPublished(Duration.ofSeconds(30))).isTrue(); // ResourceSlices

      // What a cluster admin and a user apply, as YAML.
      client.create(
          DeviceClass.TYPE,
          KubeJson.yaml()
              .readValue(
                  """
                  apiVersion: resource.k8s.io/v1
                  kind: DeviceClass
                  metadata: {name: ${driverName}}
                  spec:
                    selectors:
                    - cel: {expression: "device.driver == '${driverName}'"}
                  """,
                  DeviceClass.class));
      client.create(
          ResourceClaim.TYPE,
          KubeJson.yaml()
              .readValue(
                  """
                  apiVersion: resource.k8s.io/v1
                  kind: ResourceClaim
                  metadata: {name: train, namespace: default}
                  spec:
                    devices:
                      requests:
                      - name: accel
                        exactly:
                          deviceClassName: ${driverName}
                          selectors:
                          - cel: {expression: "device.attributes['${driverName}'].index == 1"}
                  """,
                  ResourceClaim.class));

      // The scheduler's part. A claim nothing fits throws, naming the request and its selectors.
      ClaimDecision decision =
          new ClusterAllocator(client).allocateClaim("default", "train", "node-1");
      assertThat(decision.allocated()).isTrue();
      ResourceClaim claim = decision.claim();

      // The kubelet's part: NodePrepareResources over the driver's socket.
      ClaimRef ref = ClaimRef.of("default", "train", claim.metadata().uid());
      ClaimResult result = plugin.prepare(List.of(ref)).get(ref.uid());
      assertThat(result.error()).isEmpty();
      assertThat(result.devices().get(0).deviceName()).isEqualTo("accel-1");
      assertThat(result.devices().get(0).cdiDeviceIds())
          .containsExactly("k8s." + DRIVER + "/claim=" + ref.uid() + "-accel-1");
      assertThat(plugin.unprepare(List.of(ref))).containsEntry(ref.uid(), Optional.empty());
    }
  }
}
