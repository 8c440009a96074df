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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health hub behind a real kubelet plugin server, watched by the kubelet simulator over real
 * Unix sockets: the kubelet gets the full device list every time, within its staleness timeout, and
 * sees a device turn unhealthy.
 */
class HealthStreamContractTest {

  static final String DRIVER = "fake.dra4j.io";
  static final String NODE = "node-1";
  static final Duration TIMEOUT = Duration.ofSeconds(2);
  static final Duration RESEND = Duration.ofMillis(500);
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
                    .build())
            .pools();
    deviceNames = pools.get(0).devices().stream().map(d -> d.name()).toList();
    hub = HealthHub.builder(DRIVER).healthCheckTimeout(TIMEOUT).resendInterval(RESEND).build();
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
  void fullListWellWithinTheTimeoutAndUnhealthyShowsUp() throws Exception {
    PluginInstance plugin = kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
    assertThat(plugin.healthVersion()).contains(HealthVersion.V1);
    try (HealthWatch watch = plugin.watchHealth()) {
      // A contract check, not a benchmark: the kubelet marks devices unknown after TIMEOUT
      // without a message, so every gap must stay below it.
      List<Long> arrivals = new ArrayList<>();
      List<HealthReport> reports = new ArrayList<>();
      long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < end) {
        HealthReport r = watch.awaitNext(TIMEOUT.multipliedBy(2));
        arrivals.add(System.nanoTime());
        reports.add(r);
      }
      assertThat(reports).hasSizeGreaterThanOrEqualTo(4);
      Duration largest = Duration.ZERO;
      for (int i = 1; i < arrivals.size(); i++) {
        Duration gap = Duration.ofNanos(arrivals.get(i) - arrivals.get(i - 1));
        assertThat(gap).as("gap before message %d", i).isLessThan(TIMEOUT);
        largest = gap.compareTo(largest) > 0 ? gap : largest;
      }
      System.out.printf(
          "health stream: %d messages in 3 s, largest gap %d ms (resend %d ms, timeout %d ms)%n",
          reports.size(), largest.toMillis(), RESEND.toMillis(), TIMEOUT.toMillis());
      for (HealthReport r : reports) {
        assertThat(r.devices()).extracting(DeviceHealthReport::deviceName).isEqualTo(deviceNames);
        assertThat(r.devices())
            .allSatisfy(
                d -> {
                  assertThat(d.poolName()).isEqualTo(NODE);
                  assertThat(d.health()).isEqualTo(HealthStatus.HEALTHY);
                  assertThat(d.healthCheckTimeoutSeconds()).isEqualTo(TIMEOUT.toSeconds());
                  assertThat(d.lastUpdatedSeconds()).isPositive();
                });
      }

      provider.health().markUnhealthy("gpu-5", "XID79", "GPU has fallen off the bus");
      HealthReport after = awaitReport(watch, "gpu-5", HealthStatus.UNHEALTHY);
      assertThat(after.devices()).hasSize(8);
      DeviceHealthReport gpu5 =
          after.devices().stream()
              .filter(d -> d.deviceName().equals("gpu-5"))
              .findFirst()
              .orElseThrow();
      assertThat(gpu5.message()).isEqualTo("GPU has fallen off the bus");
      assertThat(after.devices().stream().filter(d -> d.health() == HealthStatus.HEALTHY))
          .hasSize(7);

      provider.health().markHealthy("gpu-5");
      awaitReport(watch, "gpu-5", HealthStatus.HEALTHY);
    }
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
