package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.health.HealthStatus;
import io.dra4j.runtime.internal.kubelet.DeviceHealthState;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import io.dra4j.runtime.internal.kubelet.InMemoryHealthSource;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.testsupport.Await;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The health streams, v1 and v1alpha1, and their absence. */
class HealthStreamTest {

  private static final HealthSnapshot FIRST =
      new HealthSnapshot(
          List.of(
              new DeviceHealthState("node-1", "gpu-0", HealthStatus.HEALTHY, 1_700_000_000L, "", 0),
              new DeviceHealthState(
                  "node-1",
                  "gpu-1",
                  HealthStatus.UNHEALTHY,
                  1_700_000_001L,
                  "XID 79: fell off the bus",
                  60)));
  private static final HealthSnapshot SECOND =
      new HealthSnapshot(
          List.of(
              new DeviceHealthState(
                  "node-1", "gpu-0", HealthStatus.UNKNOWN, 1_700_000_100L, "x".repeat(2000), 0),
              new DeviceHealthState(
                  "node-1", "gpu-1", HealthStatus.HEALTHY, 1_700_000_100L, "", 60)));

  @TempDir Path tmp;
  Harness h;
  final ScriptedNodeService service = new ScriptedNodeService();
  final InMemoryHealthSource health = new InMemoryHealthSource();

  @BeforeEach
  void setUp() {
    h = new Harness(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    h.close();
  }

  @Test
  void bothVersionsStreamTheFullListAndUpdates() throws Exception {
    health.publish(FIRST);
    PluginInstance plugin = h.register(h.server(service).healthSource(health));
    assertThat(plugin.healthVersion()).contains(HealthVersion.V1);
    try (HealthWatch v1 = plugin.watchHealth();
        HealthWatch alpha = plugin.watchHealth(HealthVersion.V1ALPHA1)) {
      for (HealthWatch watch : List.of(v1, alpha)) {
        HealthReport report = watch.awaitNext(WAIT);
        assertThat(report.version()).isEqualTo(watch.version());
        assertThat(report.devices())
            .containsExactly(
                new DeviceHealthReport(
                    "node-1", "gpu-0", HealthStatus.HEALTHY, 1_700_000_000L, 0, ""),
                new DeviceHealthReport(
                    "node-1",
                    "gpu-1",
                    HealthStatus.UNHEALTHY,
                    1_700_000_001L,
                    60,
                    "XID 79: fell off the bus"));
      }
      health.publish(SECOND);
      for (HealthWatch watch : List.of(v1, alpha)) {
        HealthReport report = watch.awaitNext(WAIT);
        assertThat(report.devices()).hasSize(2);
        DeviceHealthReport gpu0 = report.devices().get(0);
        assertThat(gpu0.health()).isEqualTo(HealthStatus.UNKNOWN);
        assertThat(gpu0.message()).hasSize(1024).endsWith("...");
        assertThat(report.devices().get(1).health()).isEqualTo(HealthStatus.HEALTHY);
      }
      // A resend of the same snapshot reaches the kubelet again (the hub relies on this).
      health.publish(SECOND);
      assertThat(v1.awaitNext(WAIT).devices().get(1).health()).isEqualTo(HealthStatus.HEALTHY);
      assertThat(health.subscriberCount()).isEqualTo(2);
    }
    awaitSubscribers(0); // closing the watches cancels the streams, which unsubscribes
  }

  @Test
  void serverCloseEndsTheStream() throws Exception {
    health.publish(FIRST);
    KubeletPluginServer server = h.start(h.server(service).healthSource(health));
    PluginInstance plugin = h.kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
    try (HealthWatch watch = plugin.watchHealth()) {
      watch.awaitNext(WAIT);
      server.close();
      assertThat(watch.awaitTermination(WAIT).getCode()).isEqualTo(Status.Code.OK);
    }
    assertThat(health.subscriberCount()).isZero();
  }

  @Test
  void withoutAHealthSourceNothingIsAdvertisedAndCallsAreUnimplemented() throws Exception {
    PluginInstance plugin = h.register(h.server(service));
    assertThat(plugin.supportedVersions())
        .doesNotContain("v1.DRAResourceHealth", "v1alpha1.DRAResourceHealth");
    assertThat(plugin.healthVersion()).isEmpty();
    assertThatThrownBy(plugin::watchHealth).hasMessageContaining("advertises no health service");
    // 1.34–1.36 kubelets call anyway: both versions must end with UNIMPLEMENTED.
    for (HealthVersion version : HealthVersion.values()) {
      try (HealthWatch watch = plugin.watchHealth(version)) {
        assertThat(watch.awaitTermination(WAIT).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
      }
    }
  }

  private void awaitSubscribers(int count) {
    Await.until(count + " subscribers", WAIT, () -> health.subscriberCount() == count);
  }
}
