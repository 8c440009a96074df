package io.dra4j.testkit.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.claims.NodeCall;
import io.dra4j.runtime.internal.claims.NodeService;
import io.dra4j.runtime.internal.health.HealthHub;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.testkit.kubelet.DeviceHealthReport;
import io.dra4j.testkit.kubelet.HealthReport;
import io.dra4j.testkit.kubelet.HealthVersion;
import io.dra4j.testkit.kubelet.HealthWatch;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health hub behind a real kubelet plugin server, watched by the kubelet simulator over real
 * Unix sockets, with the fake provider re-reporting every device within its timeout: the kubelet's
 * health cache (as the v1.37.2 DRA manager keeps it) shows the devices healthy, a device turning
 * unhealthy, every device unknown once the provider's monitor stops (the runtime does not vouch for
 * it), and healthy again when reports resume.
 */
class HealthStreamContractTest {

  static final String DRIVER = "fake.dra4j.io";
  static final String NODE = "node-1";
  static final Duration TIMEOUT = Duration.ofSeconds(2);
  static final Duration WAIT = Duration.ofSeconds(20);

  /** The prepare path plays no part here. */
  static final NodeService NO_CLAIMS =
      new NodeService() {
        @Override
        public Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call) {
          return Map.of();
        }

        @Override
        public Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call) {
          return Map.of();
        }
      };

  @TempDir Path tmp;
  KubeletSimulator kubelet;
  KubeletPluginServer server;
  HealthHub hub;
  final FakeDeviceProvider provider = new FakeDeviceProvider();
  List<String> deviceNames;

  @BeforeEach
  void setUp() throws Exception {
    List<Pool> pools =
        provider
            .discover(
                ProviderContext.builder(DRIVER, NODE)
                    .config(FakeDeviceProvider.CONFIG_DEVICES, "8")
                    .config(FakeDeviceProvider.CONFIG_HEALTH_TIMEOUT, "2s")
                    .build())
            .pools();
    deviceNames = pools.get(0).devices().stream().map(d -> d.name()).toList();
    hub = HealthHub.builder(DRIVER).build();
    hub.setDevices(pools);
    provider.startHealthMonitoring(hub);
    kubelet = KubeletSimulator.start(tmp.resolve("registry"), Duration.ofMillis(20));
    server =
        KubeletPluginServer.builder()
            .driverName(DRIVER)
            .registrarDirectory(tmp.resolve("registry"))
            .pluginDataDirectory(tmp.resolve("plugins").resolve(DRIVER))
            .nodeService(NO_CLAIMS)
            .healthSource(hub)
            .start();
  }

  @AfterEach
  void tearDown() {
    if (server != null) {
      server.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    hub.close();
    provider.close();
  }

  @Test
  void theKubeletShowsWhatTheProviderVouchesForAndUnknownOnceItsMonitorStops() throws Exception {
    PluginInstance plugin = kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
    assertThat(plugin.healthVersion()).contains(HealthVersion.V1);
    try (HealthWatch watch = plugin.watchHealth()) {
      HealthReport first = watch.awaitNext(WAIT);
      assertThat(first.devices())
          .allSatisfy(
              d -> {
                assertThat(d.poolName()).isEqualTo(NODE);
                assertThat(d.health()).isEqualTo(HealthStatus.HEALTHY);
                assertThat(d.lastUpdatedSeconds()).isPositive();
              });
      awaitKubelet(watch, deviceNames, HealthStatus.HEALTHY);
      // The provider's own re-reports carry its timeout.
      HealthReport again = watch.awaitNext(WAIT);
      assertThat(again.devices()).extracting(DeviceHealthReport::deviceName).isEqualTo(deviceNames);
      assertThat(again.devices())
          .allSatisfy(
              d -> assertThat(d.healthCheckTimeoutSeconds()).isEqualTo(TIMEOUT.toSeconds()));

      provider.health().markUnhealthy("gpu-5", "XID79", "GPU has fallen off the bus");
      awaitReport(watch, "gpu-5", HealthStatus.UNHEALTHY);
      awaitKubelet(watch, List.of("gpu-5"), HealthStatus.UNHEALTHY);
      assertThat(watch.kubeletHealth(NODE, "gpu-5").message())
          .isEqualTo("GPU has fallen off the bus");

      // A hung monitor: nothing more is sent, so the kubelet's entries go stale.
      provider.health().stopMonitor();
      awaitKubelet(watch, deviceNames, HealthStatus.UNKNOWN);
      assertThat(watch.kubeletHealth(NODE, "gpu-5").message()).isEmpty();

      provider.health().resumeMonitor();
      awaitKubelet(watch, List.of("gpu-0", "gpu-4"), HealthStatus.HEALTHY);
      awaitKubelet(watch, List.of("gpu-5"), HealthStatus.UNHEALTHY);
    }
  }

  @Test
  void aNewStreamStartsWithTheDevicesStillVouchedForAndNoMore() throws Exception {
    PluginInstance plugin = kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
    provider.health().stopMonitor();
    try (HealthWatch watch = plugin.watchHealth()) {
      // The last reports are at most 2 s old: the replay vouches for the rest of that only.
      HealthReport replay = watch.awaitNext(WAIT);
      assertThat(replay.devices())
          .allSatisfy(d -> assertThat(d.healthCheckTimeoutSeconds()).isBetween(1L, 2L));
      awaitKubelet(watch, deviceNames, HealthStatus.UNKNOWN);
    }
    try (HealthWatch late = plugin.watchHealth()) {
      // Nothing is vouched for any more: the stream stays silent and the kubelet shows unknown.
      assertThat(late.next(TIMEOUT)).isEmpty();
      assertThat(late.kubeletHealth(NODE, "gpu-0").health()).isEqualTo(HealthStatus.UNKNOWN);
    }
  }

  /** Waits until the kubelet's health cache shows each of {@code devices} with {@code status}. */
  private static void awaitKubelet(HealthWatch watch, List<String> devices, HealthStatus status)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (devices.stream().allMatch(d -> watch.kubeletHealth(NODE, d).health() == status)) {
        return;
      }
      watch.next(Duration.ofMillis(100));
    }
    throw new AssertionError("the kubelet never showed " + devices + " " + status);
  }

  @Test
  void v1alpha1GetsTheSameListAndAHugeMessageIsCut() throws Exception {
    PluginInstance plugin = kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
    try (HealthWatch watch = plugin.watchHealth(HealthVersion.V1ALPHA1)) {
      assertThat(watch.awaitNext(WAIT).devices()).hasSize(8);
      provider.health().markUnhealthy("gpu-0", "XID79", "x".repeat(5000));
      HealthReport r = awaitReport(watch, "gpu-0", HealthStatus.UNHEALTHY);
      assertThat(r.devices().get(0).message()).hasSize(1024).endsWith("...");
    }
  }

  private static HealthReport awaitReport(HealthWatch watch, String device, HealthStatus status)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      HealthReport r = watch.awaitNext(WAIT);
      boolean seen =
          r.devices().stream().anyMatch(d -> d.deviceName().equals(device) && d.health() == status);
      if (seen) {
        return r;
      }
    }
    throw new AssertionError(device + " never reported " + status);
  }
}
