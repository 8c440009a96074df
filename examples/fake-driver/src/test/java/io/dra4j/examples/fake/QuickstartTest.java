package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.kube.DeviceClass;
import io.dra4j.runtime.kube.HttpKubeClient;
import io.dra4j.runtime.kube.KubeJson;
import io.dra4j.runtime.kube.ResourceClaim;
import io.dra4j.runtime.kube.ResourceSlice;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "write your own driver" section, compiled and run: a provider written against the
 * public API only, tested without a cluster.
 */
class QuickstartTest {

  /** The README's provider: two accelerators, each handed to a container as a device node. */
  public static final class AcmeProvider implements DeviceProvider {
    @Override
    public String name() {
      return "acme";
    }

    @Override
    public Inventory discover(ProviderContext context) {
      List<Device> devices = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        devices.add(
            Device.builder("accel-" + i)
                .attribute("model", "acme-x1")
                .attribute("index", i)
                .capacity("memory", Quantity.parse("16Gi"))
                .build());
      }
      return Inventory.nodeLocal(context, devices);
    }

    @Override
    public PrepareResult prepare(ClaimAllocation allocation) {
      List<PreparedDevice> prepared = new ArrayList<>();
      for (AllocatedDevice d : allocation.devices()) {
        ContainerEdits edits =
            ContainerEdits.builder()
                .env("ACME_DEVICE", d.device())
                // Required: a missing node fails the claim instead of starting a GPU-less pod.
                .deviceNode(DeviceNode.builder("/dev/acme0").hostPath("/dev/null").build())
                .build();
        prepared.add(PreparedDevice.of(d, edits));
      }
      return PrepareResult.of(prepared);
    }

    @Override
    public void unprepare(PreparedClaim claim) {
      // Nothing to release: the device node is all there is.
    }
  }

  @TempDir Path dir;

  @Test
  void aProviderOfAFewLinesIsACompleteDriver() throws Exception {
    try (FakeApiServer api = FakeApiServer.start();
        HttpKubeClient client = api.newClient();
        KubeletSimulator kubelet =
            KubeletSimulator.start(Files.createDirectories(dir.resolve("registry")));
        DraDriver driver =
            DraDriver.builder()
                .driverName("accel.acme.example")
                .nodeName("node-1")
                .provider(new AcmeProvider())
                .kubeClient(client)
                .registrarDirectory(kubelet.registryDirectory())
                .pluginDirectory(dir.resolve("plugin"))
                .cdiDirectory(Files.createDirectories(dir.resolve("cdi")))
                .build()) {
      api.putNode("node-1"); // in a cluster, the kubelet registered it
      driver.start();
      PluginInstance plugin = kubelet.awaitPlugin("accel.acme.example", Duration.ofSeconds(30));
      assertThat(driver.awaitPublished(Duration.ofSeconds(30))).isTrue();
      assertThat(api.objects(ResourceSlice.TYPE))
          .singleElement()
          .satisfies(s -> assertThat(s.spec().devices()).hasSize(2));

      // What a cluster admin and a user write; the test kit's allocator plays the scheduler.
      client.create(
          DeviceClass.TYPE,
          yaml(
              DeviceClass.class,
              """
              apiVersion: resource.k8s.io/v1
              kind: DeviceClass
              metadata: {name: accel.acme.example}
              spec:
                selectors:
                - cel: {expression: "device.driver == 'accel.acme.example'"}
              """));
      client.create(
          ResourceClaim.TYPE,
          yaml(
              ResourceClaim.class,
              """
              apiVersion: resource.k8s.io/v1
              kind: ResourceClaim
              metadata: {name: train, namespace: default}
              spec:
                devices:
                  requests:
                  - name: accel
                    exactly:
                      deviceClassName: accel.acme.example
                      selectors:
                      - cel: {expression: "device.attributes['accel.acme.example'].index == 1"}
              """));
      ResourceClaim claim =
          new ClusterAllocator(client).allocateClaim("default", "train", "node-1").claim();

      ClaimRef ref = new ClaimRef("default", "train", claim.metadata().uid());
      ClaimResult result = plugin.prepare(List.of(ref)).get(ref.uid());
      assertThat(result.error()).isEmpty();
      assertThat(result.devices().get(0).cdiDeviceIds())
          .containsExactly("k8s.accel.acme.example/claim=" + ref.uid() + "-accel-1");
      assertThat(plugin.unprepare(List.of(ref))).containsEntry(ref.uid(), Optional.empty());
    }
  }

  private static <T> T yaml(Class<T> type, String text) throws Exception {
    return KubeJson.yaml().readValue(text, type);
  }
}
