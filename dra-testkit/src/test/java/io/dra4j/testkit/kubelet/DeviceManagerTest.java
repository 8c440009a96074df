package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Quantity;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The device manager's node status through a migration, over real HTTP to the fake API server. */
class DeviceManagerTest {
  static final String NODE = "node-1";
  static final String FUSE = "devic.es/fuse";
  static final String MARKER = "devic.es/marker";

  FakeApiServer server;
  HttpKubeClient client;

  @BeforeEach
  void setUp() throws Exception {
    server = FakeApiServer.start();
    client = server.newClient();
    Map<String, Quantity> cpu = Map.of("cpu", Quantity.of(8));
    server.put(
        Node.TYPE,
        Node.of(ObjectMeta.named("", NODE), new Node.Status(cpu, cpu, Map.of("phase", "Running"))));
  }

  @AfterEach
  void tearDown() {
    client.close();
    server.close();
  }

  Node.Status status() throws Exception {
    return client.get(Node.TYPE, "", NODE).status();
  }

  @Test
  void aStoppedPluginLosesAllocatableAtOnceAndCapacityAfterTheGracePeriod() throws Exception {
    try (DeviceManager dm = DeviceManager.start(client, NODE, Duration.ofMillis(200))) {
      dm.register(FUSE, 10);
      assertThat(status().capacity()).containsEntry(FUSE, Quantity.of(10));
      assertThat(status().allocatable()).containsEntry(FUSE, Quantity.of(10));
      // What the kubelet does not own stays.
      assertThat(status().capacity()).containsEntry("cpu", Quantity.of(8));
      assertThat(status().unknownFields()).containsEntry("phase", "Running");

      dm.health(FUSE, 7);
      assertThat(status().capacity()).containsEntry(FUSE, Quantity.of(10));
      assertThat(status().allocatable()).containsEntry(FUSE, Quantity.of(7));

      dm.stop(FUSE);
      assertThat(status().capacity()).containsEntry(FUSE, Quantity.of(10));
      assertThat(status().allocatable()).containsEntry(FUSE, Quantity.of(0));
      Await.until(
          "capacity 0 after the grace period",
          WAIT,
          () -> status().capacity().get(FUSE).equals(Quantity.of(0)));
      // The name stays at 0: the kubelet keeps it to mark it as a device plugin's.
      assertThat(status().allocatable()).containsEntry(FUSE, Quantity.of(0));
      assertThatThrownBy(() -> dm.stop(FUSE)).hasMessageContaining("no device plugin registered");
    }
  }

  @Test
  void aPluginThatRegistersAgainWithinTheGracePeriodTakesOver() throws Exception {
    try (DeviceManager dm = DeviceManager.start(client, NODE, Duration.ofMillis(300))) {
      dm.register(FUSE, 2);
      dm.stop(FUSE);
      dm.register(FUSE, 3);
      // A plugin stopped later: once its grace period is over, so is the first one's.
      dm.register(MARKER, 1);
      dm.stop(MARKER);
      Await.until(
          "the marker's grace period over",
          WAIT,
          () -> Quantity.of(0).equals(status().capacity().get(MARKER)));
      assertThat(status().capacity()).containsEntry(FUSE, Quantity.of(3));
      assertThat(status().allocatable()).containsEntry(FUSE, Quantity.of(3));
    }
  }
}
