package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.claim.RecordedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Inventory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partitionable MIG: prepare creates the MIG device of an allocated slot, unprepare destroys it. A
 * second provider in static mode, sharing the fake's state, shows what exists on the GPU.
 */
class PartitionableMigTest {
  private static final ClaimRef CLAIM = ClaimRef.of("default", "mig-claim", "uid-1");
  private static final String SLOT = "gpu-0-mig-3g40gb-9-4";

  @TempDir Path tmp;
  private FakeNvml fake;
  private Path proc;

  @BeforeEach
  void setUp() throws Exception {
    fake = FakeNvml.current();
    proc = Files.createDirectories(tmp.resolve("proc"));
  }

  @AfterEach
  void nvmlShutDown() {
    if (fake != null) {
      assertThat(fake.initCount()).isZero();
    }
  }

  private NvidiaDeviceProvider partitionable(String... scenario) throws Exception {
    String[] all = new String[scenario.length + 1];
    all[0] = "proc_root=" + proc;
    System.arraycopy(scenario, 0, all, 1, scenario.length);
    fake.configure(tmp, all);
    NvidiaDeviceProvider p = new NvidiaDeviceProvider();
    p.discover(fake.context(tmp, Map.of("mig-mode", "partitionable")));
    return p;
  }

  /** The MIG devices that exist right now, by name, as static discovery sees them. */
  private List<String> existing() throws Exception {
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      Inventory inv = p.discover(fake.context(tmp));
      return inv.pools().get(0).devices().stream().map(Device::name).toList();
    }
  }

  private static ClaimAllocation claim(String... devices) {
    return ClaimAllocation.of(
        CLAIM,
        java.util.Arrays.stream(devices).map(d -> AllocatedDevice.of("gpu", "node-a", d)).toList());
  }

  private static PreparedClaim prepared(List<PreparedDevice> devices) {
    return PreparedClaim.of(CLAIM, devices.stream().map(RecordedDevice::of).toList(), true);
  }

  @Test
  void prepareCreatesTheSlotsMigDeviceAndUnprepareDestroysIt() throws Exception {
    try (NvidiaDeviceProvider p = partitionable("gpu.0.mig=0")) {
      List<PreparedDevice> r = p.prepare(claim(SLOT)).devices();
      PreparedDevice d = r.get(0);
      assertThat(d.recorded())
          .containsEntry("gpuInstanceId", "1")
          .containsEntry("computeInstanceId", "0");
      // MIG mode was switched on and the device exists under the same canonical name.
      assertThat(existing()).containsExactly(SLOT);
      assertThat(d.edits().deviceNodes())
          .extracting(DeviceNode::path)
          .contains("/dev/nvidia0")
          .anyMatch(path -> path.startsWith("/dev/nvidia-caps/nvidia-cap"))
          .hasSize(7);
      assertThat(proc.resolve("driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access")).exists();

      p.unprepare(prepared(r));
      assertThat(existing()).isEmpty();
      assertThat(proc.resolve("driver/nvidia/capabilities/gpu0/mig/gi1")).doesNotExist();
      // Unprepare again: nothing left, no error.
      p.unprepare(prepared(r));
    }
  }

  @Test
  void aRepeatedPrepareReusesTheMigDevice() throws Exception {
    try (NvidiaDeviceProvider p = partitionable("gpu.0.mig=1")) {
      PreparedDevice first = p.prepare(claim(SLOT)).devices().get(0);
      PreparedDevice again = p.prepare(claim(SLOT)).devices().get(0);
      assertThat(again.recorded()).isEqualTo(first.recorded());
      assertThat(again.edits()).isEqualTo(first.edits());
      assertThat(existing()).containsExactly(SLOT);
      p.unprepare(prepared(List.of(first)));
    }
  }

  @Test
  void unprepareAfterAnUnfinishedPrepareFindsTheDeviceByPlacement() throws Exception {
    try (NvidiaDeviceProvider p = partitionable("gpu.0.mig=1")) {
      p.prepare(claim("gpu-0-mig-1g10gb-19-2", SLOT));
      assertThat(existing()).containsExactly("gpu-0-mig-1g10gb-19-2", SLOT);
      PreparedClaim crashed =
          PreparedClaim.of(CLAIM, List.of(RecordedDevice.of("gpu", "node-a", SLOT)), false);
      p.unprepare(crashed);
      assertThat(existing()).containsExactly("gpu-0-mig-1g10gb-19-2");
    }
  }

  @Test
  void anOccupiedPlacementFailsTheClaimWithTheNvmlCall() throws Exception {
    // A MIG device someone made outside the driver sits where the 7g slot needs room.
    try (NvidiaDeviceProvider p = partitionable("gpu.0.mig=1", "gpu.0.instances=0@5")) {
      assertThatThrownBy(() -> p.prepare(claim("gpu-0-mig-7g80gb-0-0")))
          .isInstanceOf(DeviceException.class)
          .hasMessage(
              "gpu-0-mig-7g80gb-0-0: nvmlDeviceCreateGpuInstanceWithPlacement failed:"
                  + " INSUFFICIENT_RESOURCES (23): Unknown Error");
    }
  }

  @Test
  void theWholeGpuNeedsMigOff() throws Exception {
    try (NvidiaDeviceProvider p = partitionable("gpu.0.mig=1")) {
      List<PreparedDevice> mig = p.prepare(claim(SLOT)).devices();
      assertThatThrownBy(() -> p.prepare(claim("gpu-0")))
          .isInstanceOf(DeviceException.class)
          .hasMessageContaining("gpu-0: MIG is enabled and GPU instances [1] exist");
      p.unprepare(prepared(mig));
      PreparedDevice whole = p.prepare(claim("gpu-0")).devices().get(0);
      assertThat(whole.edits().deviceNodes().get(0)).isEqualTo(DeviceNode.required("/dev/nvidia0"));
      // MIG is off now, so the GPU is published whole by static discovery.
      assertThat(existing()).containsExactly("gpu-0");
    }
  }

  @Test
  void aGpuThatNeedsAResetToEnableMigFailsTheClaimSayingSo() throws Exception {
    try (NvidiaDeviceProvider p = partitionable("gpu.0.mig=0", "gpu.0.mig_toggle=0")) {
      assertThatThrownBy(() -> p.prepare(claim(SLOT)))
          .isInstanceOf(DeviceException.class)
          .hasMessage(
              SLOT
                  + ": enabling MIG mode on gpu-0 needs a GPU reset (NVML activation status"
                  + " RESET_REQUIRED); reset the GPU (nvidia-smi -r) and retry");
    }
  }
}
