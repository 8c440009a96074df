package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthSink;
import io.dra4j.api.health.HealthStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** XID and ECC events from NVML become health reports; GPU loss marks everything. */
class HealthTest {
  @TempDir Path tmp;
  private FakeNvml fake;
  private final BlockingQueue<List<DeviceHealth>> reports = new LinkedBlockingQueue<>();
  private final HealthSink sink = reports::add;

  @BeforeEach
  void setUp() {
    fake = FakeNvml.current();
  }

  private NvidiaDeviceProvider provider;

  @AfterEach
  void stopped() {
    if (provider != null) {
      provider.close();
    }
    if (fake != null) {
      assertThat(fake.initCount()).isZero();
    }
    assertThat(monitorThreads()).as("health thread stopped by close()").isZero();
  }

  private static long monitorThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("nvidia-xid-monitor") && t.isAlive())
        .count();
  }

  /** The next report; a generous bound only so a broken build fails instead of hanging. */
  private List<DeviceHealth> next() throws InterruptedException {
    List<DeviceHealth> r = reports.poll(30, TimeUnit.SECONDS);
    assertThat(r).as("a health report arrived").isNotNull();
    return r;
  }

  private NvidiaDeviceProvider monitored(Map<String, String> settings, String... scenario)
      throws Exception {
    fake.configure(tmp, scenario);
    NvidiaDeviceProvider p = new NvidiaDeviceProvider();
    provider = p;
    p.discover(fake.context(tmp, settings));
    p.startHealthMonitoring(sink);
    List<DeviceHealth> initial = next();
    assertThat(initial).allSatisfy(h -> assertThat(h.status()).isEqualTo(HealthStatus.HEALTHY));
    return p;
  }

  private void inject(int gpu, long type, long data) {
    assertThat(fake.control().fake_nvml_inject_event(gpu, type, data, -1, -1)).isZero();
  }

  @Test
  void aCriticalXidMarksItsGpuUnhealthyAndIgnoredXidsAreSkipped() throws Exception {
    monitored(Map.of(), "gpus=2");
    inject(0, FakeNvml.XID, 13); // default ignore list: application fault
    inject(0, FakeNvml.XID, 43);
    inject(1, FakeNvml.XID, 79); // fallen off the bus
    List<DeviceHealth> r = next();
    assertThat(r)
        .containsExactly(
            DeviceHealth.unhealthy(
                "node-a",
                "gpu-1",
                "XID79",
                "critical XID 79 on gpu-1 (GPU-0000a100-1111-4222-8333-000000000001)"));
    assertThat(reports).isEmpty();
  }

  @Test
  void theIgnoreListIsConfigurable() throws Exception {
    monitored(Map.of("ignored-xids", "79, 94"), "gpus=1");
    inject(0, FakeNvml.XID, 79);
    inject(0, FakeNvml.XID, 94);
    inject(0, FakeNvml.XID, 13);
    List<DeviceHealth> r = next();
    assertThat(r).singleElement().satisfies(h -> assertThat(h.reason()).isEqualTo("XID13"));
  }

  @Test
  void doubleBitEccErrorsAreReported() throws Exception {
    monitored(Map.of(), "gpus=2");
    inject(0, FakeNvml.DBE, 0);
    List<DeviceHealth> r = next();
    assertThat(r)
        .singleElement()
        .satisfies(
            h -> {
              assertThat(h.device()).isEqualTo("gpu-0");
              assertThat(h.status()).isEqualTo(HealthStatus.UNHEALTHY);
              assertThat(h.reason()).isEqualTo("DoubleBitECC");
            });
  }

  @Test
  void anXidOfOneMigInstanceMarksOnlyItsMigDevice() throws Exception {
    monitored(Map.of(), "gpu.0.mig=1", "gpu.0.instances=0@0,0@1,2@4");
    assertThat(fake.control().fake_nvml_inject_event(0, FakeNvml.XID, 48, 2, 0)).isZero();
    assertThat(next())
        .extracting(DeviceHealth::device, DeviceHealth::reason)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("gpu-0-mig-1g10gb-19-1", "XID48"));
    // Without an instance the whole GPU is affected: all its MIG devices.
    inject(0, FakeNvml.XID, 48);
    assertThat(next())
        .extracting(DeviceHealth::device)
        .containsExactlyInAnyOrder(
            "gpu-0-mig-1g10gb-19-0", "gpu-0-mig-1g10gb-19-1", "gpu-0-mig-3g40gb-9-4");
  }

  @Test
  void aLostGpuMarksEveryDeviceAndEndsMonitoring() throws Exception {
    monitored(Map.of(), "gpus=3");
    fake.control().fake_nvml_set_lost(2, 1);
    List<DeviceHealth> r = next();
    assertThat(r).extracting(DeviceHealth::device).containsExactly("gpu-0", "gpu-1", "gpu-2");
    assertThat(r)
        .allSatisfy(
            h -> {
              assertThat(h.status()).isEqualTo(HealthStatus.UNHEALTHY);
              assertThat(h.reason()).isEqualTo("GPULost");
              assertThat(h.message()).contains("GPU_IS_LOST");
            });
  }

  @Test
  void aGpuLostDuringPrepareIsReportedToo() throws Exception {
    try (NvidiaDeviceProvider p =
        monitored(Map.of("mig-mode", "partitionable"), "gpus=2", "gpu.1.mig=1")) {
      fake.control().fake_nvml_set_lost(1, 1);
      ClaimAllocation c =
          ClaimAllocation.of(
              ClaimRef.of("default", "c", "u"),
              List.of(AllocatedDevice.of("gpu", "node-a", "gpu-1-mig-7g80gb-0-0")));
      assertThatThrownBy(() -> p.prepare(c))
          .isInstanceOf(DeviceException.class)
          .hasMessageContaining("GPU_IS_LOST");
      // Reported by prepare, or by the monitor, whichever notices first; both say GPULost.
      List<DeviceHealth> r = next();
      assertThat(r).isNotEmpty().allSatisfy(h -> assertThat(h.reason()).isEqualTo("GPULost"));
      assertThat(r).extracting(DeviceHealth::device).contains("gpu-0", "gpu-1-mig-7g80gb-0-0");
    }
  }

  @Test
  void monitoringNeedsADiscoverFirstAndStartsOnce() throws Exception {
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      assertThatThrownBy(() -> p.startHealthMonitoring(sink))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("discover");
    }
    try (NvidiaDeviceProvider p = monitored(Map.of(), "gpus=1")) {
      assertThatThrownBy(() -> p.startHealthMonitoring(sink))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("already started");
    }
  }

  @Test
  void gpusThatCannotReportXidsAreNotRegistered() throws Exception {
    monitored(Map.of(), "gpus=2", "gpu.0.events=0");
    inject(0, FakeNvml.XID, 79); // never delivered: gpu 0 is not registered
    inject(1, FakeNvml.XID, 79);
    assertThat(next()).extracting(DeviceHealth::device).containsExactly("gpu-1");
  }
}
