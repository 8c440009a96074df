package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Registration through the real kubelet's plugin watcher and DRA handler: GetInfo, version
 * negotiation and NotifyRegistrationStatus, for both registration socket names (the plain one and
 * the rolling-update one of 1.37); de-registration when the driver stops, after which the kubelet
 * wipes the node's slices, unless another instance of the driver still serves.
 */
class RealKubeletRegistrationIT {
  Cluster cluster = Cluster.shared();
  KubeletNode node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void registersThroughThePluginWatcherAndTheKubeletWipesTheSlicesWhenItStops() throws Exception {
    node = KubeletNode.start(cluster, "rk-reg", b -> b.flag("devices", "2"));
    JsonNode registered = node.awaitRegistered(0);
    DriverProcess driver = node.driver();
    assertThat(registered.path("endpoint").asText())
        .isEqualTo(driver.pluginDir().resolve("dra.sock").toAbsolutePath().toString());
    assertThat(strings(registered.path("versions")))
        .startsWith("v1.DRAPlugin", "v1beta1.DRAPlugin")
        .contains("v1.DRAResourceHealth");
    assertThat(sockets()).containsExactly(DriverProcess.DRIVER + "-reg.sock");
    // The kubelet validated before it registered, and told the driver it did.
    JsonNode validated =
        node.kubelet.await("validation", e -> e.path("event").asText().equals("validate"));
    assertThat(validated.path("error").asText()).isEmpty();
    node.await("the driver told it is registered", () -> driver.metric("dra4j_registered") == 1);
    node.awaitDevices(2);

    int from = node.kubelet.events().size();
    driver.stop();
    node.kubelet.awaitFrom(
        from, "de-registration", e -> e.path("event").asText().equals("deregistered"));
    assertThat(sockets()).isEmpty();
    // The driver leaves its slices; the kubelet deletes them once its 30 s grace has passed.
    assertThat(node.publishedDevices()).isEqualTo(2);
    node.await("the kubelet wiped the node's slices", () -> node.publishedDevices() == 0);
  }

  @Test
  void rollingUpdateSocketNamesRegisterSideBySideAndTheSurvivorKeepsTheSlices() throws Exception {
    String oldUid = UUID.randomUUID().toString();
    String newUid = UUID.randomUUID().toString();
    node =
        KubeletNode.start(cluster, "rk-roll", b -> b.flag("devices", "2").flag("pod-uid", oldUid));
    DriverProcess old = node.driver();
    JsonNode first = node.awaitRegistered(0);
    assertThat(first.path("endpoint").asText()).endsWith("/dra-" + oldUid + ".sock");
    assertThat(sockets()).containsExactly(DriverProcess.DRIVER + "-" + oldUid + "-reg.sock");
    node.awaitDevices(2);

    int from = node.kubelet.events().size();
    DriverProcess fresh = node.startDriver(b -> b.flag("devices", "2").flag("pod-uid", newUid));
    JsonNode second = node.awaitRegistered(from);
    assertThat(second.path("endpoint").asText()).endsWith("/dra-" + newUid + ".sock");
    assertThat(sockets())
        .containsExactlyInAnyOrder(
            DriverProcess.DRIVER + "-" + oldUid + "-reg.sock",
            DriverProcess.DRIVER + "-" + newUid + "-reg.sock");
    node.await(
        "the new instance told it is registered", () -> fresh.metric("dra4j_registered") == 1);

    from = node.kubelet.events().size();
    old.stop();
    JsonNode gone =
        node.kubelet.awaitFrom(
            from,
            "the old instance de-registered",
            e -> e.path("event").asText().equals("deregistered"));
    assertThat(gone.path("endpoint").asText()).endsWith("/dra-" + oldUid + ".sock");
    // Past the kubelet's 30 s wiping delay: a connected instance remains, so nothing is wiped.
    Thread.sleep(35_000);
    assertThat(node.publishedDevices()).isEqualTo(2);
  }

  private List<String> sockets() throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(node.kubelet.registryDir())) {
      s.forEach(p -> out.add(p.getFileName().toString()));
    }
    return out;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(v -> out.add(v.asText()));
    return out;
  }
}
