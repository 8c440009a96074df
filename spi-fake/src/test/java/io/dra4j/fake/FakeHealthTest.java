package io.dra4j.fake;

import static io.dra4j.fake.Fixtures.NODE;
import static io.dra4j.fake.Fixtures.discovered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthSink;
import io.dra4j.api.health.HealthStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FakeHealthTest {

  /** Collects every report call, in order. */
  static final class QueueSink implements HealthSink {
    final BlockingQueue<List<DeviceHealth>> reports = new LinkedBlockingQueue<>();

    @Override
    public void report(List<DeviceHealth> health) {
      reports.add(List.copyOf(health));
    }

    /** The next report; the bound only keeps a broken build from hanging. */
    List<DeviceHealth> next() throws InterruptedException {
      List<DeviceHealth> r = reports.poll(30, TimeUnit.SECONDS);
      assertThat(r).as("a health report").isNotNull();
      return r;
    }
  }

  @Test
  void startReportsEveryDeviceThenEachChange() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("devices", "3"));
    QueueSink sink = new QueueSink();
    p.health().markUnhealthy("gpu-2", "XID79", "fell off the bus");

    p.startHealthMonitoring(sink);
    assertThat(sink.next())
        .containsExactly(
            DeviceHealth.healthy(NODE, "gpu-0"),
            DeviceHealth.healthy(NODE, "gpu-1"),
            DeviceHealth.unhealthy(NODE, "gpu-2", "XID79", "fell off the bus"));

    p.health().markUnhealthy("gpu-1", "XID48", "double-bit ECC error");
    assertThat(sink.next())
        .containsExactly(DeviceHealth.unhealthy(NODE, "gpu-1", "XID48", "double-bit ECC error"));
    p.health().markHealthy("gpu-1");
    assertThat(sink.next()).containsExactly(DeviceHealth.healthy(NODE, "gpu-1"));
    assertThat(p.health().current())
        .extracting(DeviceHealth::status)
        .containsExactly(HealthStatus.HEALTHY, HealthStatus.HEALTHY, HealthStatus.UNHEALTHY);
    assertThat(sink.reports).isEmpty();
    p.close();
  }

  @Test
  void aFaultyDeviceTakesItsPartitionsWithIt() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("devices", "2", "partitions", "2"));
    QueueSink sink = new QueueSink();
    p.startHealthMonitoring(sink);
    assertThat(sink.next()).hasSize(6);

    p.health().markUnhealthy("gpu-1-part-0", "Degraded", "");
    assertThat(sink.next())
        .containsExactly(DeviceHealth.unhealthy(NODE, "gpu-1-part-0", "Degraded", ""));
    p.health().markUnhealthy("gpu-1", "XID79", "gone");
    assertThat(sink.next())
        .containsExactly(
            DeviceHealth.unhealthy(NODE, "gpu-1", "XID79", "gone"),
            DeviceHealth.unhealthy(NODE, "gpu-1-part-0", "Degraded", ""),
            DeviceHealth.unhealthy(NODE, "gpu-1-part-1", "XID79", "gone"));
    p.health().markHealthy("gpu-1");
    // The partition's own fault outlives the recovery of its parent.
    assertThat(sink.next())
        .containsExactly(
            DeviceHealth.healthy(NODE, "gpu-1"),
            DeviceHealth.unhealthy(NODE, "gpu-1-part-0", "Degraded", ""),
            DeviceHealth.healthy(NODE, "gpu-1-part-1"));
  }

  @Test
  void scriptingChecksItsInput() {
    assertThatThrownBy(() -> new FakeDeviceProvider().health().markHealthy("gpu-0"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("discover");
    FakeDeviceProvider p = discovered(Map.of("devices", "1"));
    assertThatThrownBy(() -> p.health().markUnhealthy("gpu-1", "XID79", ""))
        .hasMessageContaining("\"gpu-1\" is not one of [gpu-0]");
    assertThatThrownBy(() -> p.health().markUnhealthy("gpu-0", "not a label value!", ""))
        .hasMessageContaining("label-value");
    assertThatThrownBy(() -> p.health().markUnhealthy("gpu-0", "x".repeat(64), ""))
        .hasMessageContaining("1-63");
  }

  @Test
  void theFlapScheduleAlternatesUntilClosed() throws Exception {
    FakeDeviceProvider p =
        discovered(Map.of("devices", "2", "flap-period", "20ms", "flap-device", "gpu-1"));
    QueueSink sink = new QueueSink();
    p.startHealthMonitoring(sink);
    assertThat(sink.next()).hasSize(2);

    List<DeviceHealth> down = sink.next();
    List<DeviceHealth> up = sink.next();
    List<DeviceHealth> downAgain = sink.next();
    p.close();

    assertThat(down)
        .singleElement()
        .satisfies(
            h -> {
              assertThat(h.device()).isEqualTo("gpu-1");
              assertThat(h.status()).isEqualTo(HealthStatus.UNHEALTHY);
              assertThat(h.reason()).isEqualTo(FakeDeviceProvider.FLAP_REASON);
            });
    assertThat(up).containsExactly(DeviceHealth.healthy(NODE, "gpu-1"));
    assertThat(downAgain).isEqualTo(down);
    // close() waits for the schedule's thread to end.
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().equals("dra4j-fake-health") && t.isAlive());
    sink.reports.clear();
    p.health().markUnhealthy("gpu-0", "Manual", "");
    assertThat(sink.next()).containsExactly(DeviceHealth.unhealthy(NODE, "gpu-0", "Manual", ""));
    assertThat(sink.reports).isEmpty();
  }

  @Test
  void healthFileMarksListedDevicesAndHealsTheOnesNoLongerListed(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("health");
    Files.writeString(file, "gpu-1 XID79 fell off the bus\n");
    FakeDeviceProvider p = discovered(Map.of("devices", "3", "health-file", file.toString()));
    QueueSink sink = new QueueSink();
    p.startHealthMonitoring(sink);
    // The file's marks are part of the first, full report.
    assertThat(sink.next())
        .contains(DeviceHealth.unhealthy(NODE, "gpu-1", "XID79", "fell off the bus"));

    // Comments and blank lines are ignored; an unknown device does not stop the others.
    Files.writeString(
        file, "# simulated faults\n\ngpu-9 XID1\ngpu-2 XID48\ngpu-1 XID79 fell off the bus\n");
    assertThat(sink.next()).containsExactly(DeviceHealth.unhealthy(NODE, "gpu-2", "XID48", ""));

    Files.delete(file);
    List<DeviceHealth> healed = new ArrayList<>(sink.next());
    healed.addAll(sink.next());
    assertThat(healed)
        .containsExactlyInAnyOrder(
            DeviceHealth.healthy(NODE, "gpu-1"), DeviceHealth.healthy(NODE, "gpu-2"));
    p.close();
    assertThat(p.health().current())
        .extracting(DeviceHealth::status)
        .containsOnly(HealthStatus.HEALTHY);
  }

  @Test
  void healthFileMustBeAbsolute() {
    assertThatThrownBy(() -> discovered(Map.of("health-file", "relative/health")))
        .hasMessage("setting health-file=\"relative/health\" must be an absolute path");
  }
}
