package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Partitionable devices (shared counters, KEP-4815) and consumable capacity (KEP-5075) as the real
 * scheduler allocates them from our slices, then prepared through the kubelet simulator with the
 * claims the scheduler wrote.
 */
class PartitionsAndSharingIT {
  static final String NS = "e2e-sharing";
  static final String CLASS = "gpu-any.example.com";

  Cluster cluster = Cluster.shared();
  DriverNode node;
  Scenario scenario;

  @AfterEach
  void stop() {
    if (node != null) {
      scenario.cleanUp("deviceclass/" + CLASS);
      node.close();
    }
  }

  private void startNode(String name, String... flags) {
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
  }

  @Test
  void partitionsAndTheirFullDeviceShareCounters() throws Exception {
    startNode("part-node", "devices", "1", "partitions", "2");
    node.awaitDevices(3); // gpu-0, gpu-0-part-0, gpu-0-part-1
    String partition = "device.attributes['gpu.example.com'].type == 'gpu-partition'";
    String full = "device.attributes['gpu.example.com'].type == 'gpu'";
    claimAndPod("part-a", partition);
    claimAndPod("part-b", partition);
    List<String> parts =
        List.of(device(scenario.allocated("part-a")), device(scenario.allocated("part-b")));
    assertThat(parts).containsExactlyInAnyOrder("gpu-0-part-0", "gpu-0-part-1");

    // The full device draws the counters both partitions hold: the scheduler cannot place it.
    claimAndPod("whole", full);
    scenario.awaitUnschedulable("pod-whole");
    assertThat(
            cluster
                .admin()
                .get(Cluster.CLAIMS, NS, "whole")
                .path("status")
                .path("allocation")
                .isMissingNode())
        .isTrue();

    PluginInstance plugin = node.plugin();
    for (String c : List.of("part-a", "part-b")) {
      ClaimResult r = scenario.prepare(plugin, c);
      assertThat(r.error()).as(node.context()).isEmpty();
      assertThat(r.devices())
          .singleElement()
          .satisfies(d -> assertThat(parts).contains(d.deviceName()));
      assertThat(scenario.unprepare(plugin, c)).isEmpty();
    }

    // Once the partitions' pods are gone, their claims are deallocated and the full device fits.
    cluster.deletePod(NS, "pod-part-a");
    cluster.deletePod(NS, "pod-part-b");
    assertThat(device(scenario.allocated("whole"))).isEqualTo("gpu-0");
    ClaimResult whole = scenario.prepare(plugin, "whole");
    assertThat(whole.error()).as(node.context()).isEmpty();
    assertThat(scenario.unprepare(plugin, "whole")).isEmpty();
  }

  @Test
  void consumableCapacityIsSharedWithShareIds() throws Exception {
    startNode("share-node", "devices", "1", "consumable", "true");
    node.awaitDevices(1);
    for (String c : List.of("share-a", "share-b")) {
      cluster.apply(Resources.capacityClaim(NS, c, CLASS, "memory", "10Gi"));
      cluster.apply(Resources.podWithClaim(NS, "pod-" + c, c, Optional.empty()));
    }
    JsonNode a = result(scenario.allocated("share-a"));
    JsonNode b = result(scenario.allocated("share-b"));
    assertThat(a.path("device").asText()).isEqualTo("gpu-0");
    assertThat(b.path("device").asText()).isEqualTo("gpu-0");
    assertThat(a.path("shareID").asText()).isNotEmpty().isNotEqualTo(b.path("shareID").asText());
    assertThat(a.path("consumedCapacity").path("memory").asText()).isEqualTo("10Gi");

    PluginInstance plugin = node.plugin();
    for (String c : List.of("share-a", "share-b")) {
      ClaimResult r = scenario.prepare(plugin, c);
      assertThat(r.error()).as(node.context()).isEmpty();
      assertThat(r.devices().get(0).shareId()).isPresent();
    }
    // Each share gets its own CDI device, with the memory it consumes in its environment.
    try (Stream<java.nio.file.Path> specs = Files.list(node.driver.cdiDir())) {
      String all =
          specs
              .map(
                  p -> {
                    try {
                      return Files.readString(p);
                    } catch (java.io.IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .reduce("", String::concat);
      assertThat(all).contains("DRA_FAKE_DEVICE_0_MEMORY=10Gi");
    }
    assertThat(scenario.unprepare(plugin, "share-a")).isEmpty();
    assertThat(scenario.unprepare(plugin, "share-b")).isEmpty();
  }

  private void claimAndPod(String claim, String selector) {
    cluster.apply(Resources.claim(NS, claim, CLASS, 1, selector, Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "pod-" + claim, claim, Optional.empty()));
  }

  private static JsonNode result(JsonNode claim) {
    return Scenario.results(claim).get(0);
  }

  private static String device(JsonNode claim) {
    return result(claim).path("device").asText();
  }
}
