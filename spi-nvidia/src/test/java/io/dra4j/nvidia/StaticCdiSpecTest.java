package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.claim.RecordedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.provider.Inventory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code static-cdi-kind}, a node's static NVIDIA CDI spec ({@code nvidia-ctk cdi generate
 * --device-name-strategy=uuid}) serves the devices it lists: prepare answers with their ids and
 * writes no edits of its own. The runtime checks the ids against the spec directories
 * (NvidiaDriverTest).
 */
class StaticCdiSpecTest {
  private static final Map<String, String> STATIC = Map.of("static-cdi-kind", "nvidia.com/gpu");

  @TempDir Path tmp;
  private FakeNvml fake;

  @BeforeEach
  void setUp() {
    fake = FakeNvml.current();
  }

  @AfterEach
  void nvmlShutDown() {
    if (fake != null) {
      assertThat(fake.initCount()).isZero();
    }
  }

  private static ClaimAllocation claim(String... devices) {
    return ClaimAllocation.of(
        ClaimRef.of("default", "gpu-claim", "6f1c0e1e-uid"),
        Arrays.stream(devices).map(d -> AllocatedDevice.of("gpu", "node-a", d)).toList());
  }

  /** Checks that {@code id} is the static kind's device named by the device's UUID attribute. */
  private static void assertUuidDevice(Inventory inv, String device, String id, String prefix) {
    assertThat(id).startsWith("nvidia.com/gpu=" + prefix);
    Device d =
        inv.pools().get(0).devices().stream()
            .filter(x -> x.name().equals(device))
            .findFirst()
            .orElseThrow();
    assertThat(d.attribute("uuid"))
        .contains(DeviceAttribute.of(id.substring("nvidia.com/gpu=".length())));
  }

  @Test
  void wholeGpusAndExistingMigDevicesAreTheStaticSpecsDevicesByUuid() throws Exception {
    fake.configure(tmp, "gpus=2", "gpu.0.mig=1", "gpu.0.instances=0@0", "gpu.1.mig=0");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      Inventory inv = p.discover(fake.context(tmp, STATIC));
      List<PreparedDevice> r = p.prepare(claim("gpu-1", "gpu-0-mig-1g10gb-19-0")).devices();

      assertThat(r.get(0).cdiDeviceIds()).hasSize(1);
      assertUuidDevice(inv, "gpu-1", r.get(0).cdiDeviceIds().get(0), "GPU-");
      assertThat(r.get(1).cdiDeviceIds()).hasSize(1);
      assertUuidDevice(inv, "gpu-0-mig-1g10gb-19-0", r.get(1).cdiDeviceIds().get(0), "MIG-");
      assertThat(r).allSatisfy(d -> assertThat(d.edits().isEmpty()).isTrue());
    }
  }

  @Test
  void aMigDeviceMadeAtPrepareIsInNoStaticSpecAndGetsEdits() throws Exception {
    Path proc = Files.createDirectories(tmp.resolve("proc"));
    fake.configure(tmp, "proc_root=" + proc, "gpu.0.mig=1");
    Map<String, String> settings =
        Map.of("static-cdi-kind", "nvidia.com/gpu", "mig-mode", "partitionable");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      p.discover(fake.context(tmp, settings));
      PreparedDevice slot = p.prepare(claim("gpu-0-mig-3g40gb-9-4")).devices().get(0);
      assertThat(slot.cdiDeviceIds()).isEmpty();
      assertThat(slot.edits().deviceNodes()).isNotEmpty();
      p.unprepare(
          PreparedClaim.of(
              ClaimRef.of("default", "gpu-claim", "6f1c0e1e-uid"),
              List.of(
                  RecordedDevice.of("gpu", "node-a", "gpu-0-mig-3g40gb-9-4")
                      .withRecorded(slot.recorded())),
              true));
    }
  }

  @Test
  void withoutTheSettingEveryDeviceGetsEditsAndNoId() throws Exception {
    fake.configure(tmp, "gpus=1");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      p.discover(fake.context(tmp, Map.of()));
      PreparedDevice d = p.prepare(claim("gpu-0")).devices().get(0);
      assertThat(d.cdiDeviceIds()).isEmpty();
      assertThat(d.edits().deviceNodes()).isNotEmpty();
    }
  }
}
