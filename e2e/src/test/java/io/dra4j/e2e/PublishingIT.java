package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceSlice;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Publishing to the real API server: the 300-device and 10,000-device inventories are accepted as
 * the driver published them (every device read back equal to what the provider discovered, no field
 * dropped, no write failed), and with a feature gate switched off the publisher notices the fields
 * the API server dropped.
 */
class PublishingIT {
  Cluster cluster = Cluster.shared();
  DriverNode node;
  Cluster gatesOff;

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    if (gatesOff != null) {
      gatesOff.down();
    }
  }

  @ParameterizedTest(name = "{0} devices, consumable={1}")
  @CsvSource({"300, true", "10000, false"})
  void inventoryIsStoredAsPublished(int devices, boolean consumable) throws Exception {
    String name = "publish-" + devices;
    Map<String, String> config =
        Map.of("devices", Integer.toString(devices), "consumable", Boolean.toString(consumable));
    long start = System.nanoTime();
    node =
        DriverNode.start(
            cluster,
            name,
            b -> {
              config.forEach(b::flag);
              return b;
            });
    node.awaitDevices(devices);
    long millis = (System.nanoTime() - start) / 1_000_000;

    Map<String, JsonNode> expected = new HashMap<>();
    for (Pool p : discover(name, config).pools()) {
      for (Device d : p.devices()) {
        // Through text, so numbers compare as JSON numbers, not as Java int or long nodes.
        expected.put(d.name(), KubeJson.mapper().readTree(KubeJson.mapper().writeValueAsString(d)));
      }
    }
    Map<String, JsonNode> stored = new HashMap<>();
    int slices = 0;
    for (ResourceSlice s : node.slices()) {
      slices++;
      JsonNode json = cluster.admin().get(Cluster.SLICES, "", s.metadata().name());
      for (JsonNode d : json.path("spec").path("devices")) {
        stored.put(d.path("name").asText(), d);
      }
    }
    assertThat(stored.keySet()).isEqualTo(expected.keySet());
    for (Map.Entry<String, JsonNode> e : expected.entrySet()) {
      assertThat(stored.get(e.getKey())).as("device " + e.getKey()).isEqualTo(e.getValue());
    }
    JsonNode stats = status().path("slices");
    assertThat(stats.path("droppedFieldReports").asLong()).as(stats.toString()).isZero();
    assertThat(stats.path("failures").asLong()).as(stats.toString()).isZero();
    assertThat(stats.path("validationFailures").asLong()).as(stats.toString()).isZero();
    System.out.printf(
        "published %d devices in %d slices: %d ms from driver start, %d creates%n",
        devices, slices, millis, stats.path("creates").asLong());
  }

  @Test
  void fieldsTheApiServerDropsAreNoticed() throws Exception {
    // Consumable capacity off (and the fractional ranges that build on it): the API server drops
    // allowMultipleAllocations and the request policy instead of refusing the slice.
    gatesOff =
        Cluster.start(
            cluster.script(),
            cluster.dir().resolveSibling("cluster-gates-off"),
            "--feature-gates",
            "DRAConsumableCapacity=false,DRAFractionalCapacityRange=false");
    node =
        DriverNode.start(
            gatesOff, "dropped-node", b -> b.flag("devices", "2").flag("consumable", "true"));
    node.await(
        "the publisher reporting dropped fields",
        () -> status().path("slices").path("droppedFieldReports").asLong() > 0);
    node.await(
        "a warning naming the gate", () -> node.driver.log().contains("DRAConsumableCapacity"));
    // What the server stored has no sharing: the scheduler would never share these devices.
    JsonNode stored =
        gatesOff.admin().get(Cluster.SLICES, "", node.slices().get(0).metadata().name());
    assertThat(stored.path("spec").path("devices").get(0).has("allowMultipleAllocations"))
        .isFalse();
  }

  private JsonNode status() throws Exception {
    return KubeJson.mapper().readTree(node.driver.health("/status").body());
  }

  /** What the driver process discovers with the same settings: the fake is deterministic. */
  private static Inventory discover(String nodeName, Map<String, String> config) {
    Path none = Path.of("/nonexistent");
    return new FakeDeviceProvider()
        .discover(
            ProviderContext.builder(DriverProcess.DRIVER, nodeName)
                .config(config)
                .sysfsRoot(none)
                .devRoot(none)
                .pluginDataDir(none)
                .build());
  }
}
