package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.DRIVER;
import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet deletes its node's ResourceSlices when it starts and a while after a driver's last
 * instance went (the e2e test RealKubeletRegistrationIT shows it); the simulator does too.
 */
class WipeSlicesTest {
  @TempDir Path tmp;
  Harness h;
  FakeApiServer api;
  HttpKubeClient client;

  @BeforeEach
  void setUp() {
    h = new Harness(tmp);
    api = FakeApiServer.start();
    client = api.newClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    h.close();
    client.close();
    api.close();
  }

  @Test
  void startingDeletesTheNodesSlicesOfEveryDriverAndNoOtherNodes() throws Exception {
    slice("node-1-gpu", "node-1", DRIVER);
    slice("node-1-nic", "node-1", "nic.example.com");
    slice("node-2-gpu", "node-2", DRIVER);

    h.kubelet.wipeSlices(client, "node-1", KubeletSimulator.WIPING_DELAY);
    SimulatorEvent wiped =
        h.kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.SLICES_WIPED, WAIT);

    assertThat(wiped.driverName()).isEmpty();
    assertThat(names()).containsExactly("node-2-gpu");
  }

  @Test
  void aDriverGoneLongerThanTheDelayLosesItsSlicesOneThatComesBackKeepsThem() throws Exception {
    h.kubelet.wipeSlices(client, "node-1", Duration.ofMillis(1500));
    h.kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.SLICES_WIPED, WAIT);
    KubeletPluginServer first = h.start(h.server(new ScriptedNodeService()));
    h.kubelet.awaitPluginAt(first.registrationSocket(), WAIT);
    slice("node-1-gpu", "node-1", DRIVER);

    // Back within the delay (a restarted driver): nothing is wiped.
    first.close();
    h.kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.DEREGISTERED, WAIT);
    KubeletPluginServer second = h.start(h.server(new ScriptedNodeService()));
    h.kubelet.awaitPluginAt(second.registrationSocket(), WAIT);
    // Another driver gone later: once its slices are wiped, the delay after first went is over.
    String marker = "marker.example.com";
    try (KubeletPluginServer other =
        h.server(new ScriptedNodeService())
            .driverName(marker)
            .pluginDataDirectory(tmp.resolve("plugins").resolve(marker))
            .start()) {
      h.kubelet.awaitPluginAt(other.registrationSocket(), WAIT);
    }
    h.kubelet.awaitEvent(
        e -> e.kind() == SimulatorEvent.Kind.SLICES_WIPED && e.driverName().equals(marker), WAIT);
    assertThat(names()).containsExactly("node-1-gpu");

    second.close();
    SimulatorEvent wiped =
        h.kubelet.awaitEvent(
            e -> e.kind() == SimulatorEvent.Kind.SLICES_WIPED && e.driverName().equals(DRIVER),
            WAIT);
    assertThat(wiped.detail()).contains("1 ResourceSlices");
    assertThat(names()).isEmpty();
  }

  private void slice(String name, String node, String driver) throws Exception {
    api.put(
        ResourceSlice.TYPE,
        KubeJson.mapper()
            .readValue(
                """
                {"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"%s"},
                 "spec":{"driver":"%s","nodeName":"%s",
                   "pool":{"name":"%s","generation":1,"resourceSliceCount":1},
                   "devices":[{"name":"gpu-0"}]}}
                """
                    .formatted(name, driver, node, node),
                ResourceSlice.class));
  }

  private List<String> names() {
    return api.objects(ResourceSlice.TYPE).stream().map(s -> s.metadata().name()).sorted().toList();
  }
}
