package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.runtime.cdi.CdiSpecDirectories;
import io.dra4j.runtime.testsupport.CdiValidators;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a machine with NVIDIA GPUs, the driver and the NVIDIA Container Toolkit: the ids the provider
 * answers with under {@code static-cdi-kind} name devices of the spec {@code nvidia-ctk cdi
 * generate --device-name-strategy=uuid} writes, as the runtime and the CDI library resolve them.
 * Runs with {@code -Ddra4j.realNvml} (README of spi-nvidia, "Tests on a GPU machine").
 */
@EnabledIfSystemProperty(named = "dra4j.realNvml", matches = ".*")
class RealNvmlStaticCdiTest {

  @TempDir Path tmp;

  @Test
  void everyGpuAndMigDeviceIsADeviceOfTheGeneratedSpec() throws Exception {
    Path cdi = tmp.resolve("cdi");
    Process generate =
        new ProcessBuilder(
                "nvidia-ctk",
                "cdi",
                "generate",
                "--device-name-strategy=uuid",
                "--output=" + cdi.resolve("nvidia.yaml"))
            .inheritIO()
            .start();
    assertThat(generate.waitFor()).as("nvidia-ctk cdi generate").isZero();

    ProviderContext context =
        ProviderContext.builder("gpu.nvidia.com", "gpu-node")
            .config(Map.of("static-cdi-kind", "nvidia.com/gpu"))
            .build();
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      Inventory inv = p.discover(context);
      List<AllocatedDevice> devices = new ArrayList<>();
      for (Device d : inv.pools().get(0).devices()) {
        devices.add(AllocatedDevice.of("gpu", "gpu-node", d.name()));
      }
      assertThat(devices).as("GPUs NVML reports").isNotEmpty();
      List<PreparedDevice> prepared =
          p.prepare(ClaimAllocation.of(ClaimRef.of("default", "c", "uid"), devices)).devices();
      List<String> ids = new ArrayList<>();
      for (PreparedDevice d : prepared) {
        assertThat(d.cdiDeviceIds()).as(d.device().device()).hasSize(1);
        ids.addAll(d.cdiDeviceIds());
      }
      new CdiSpecDirectories(List.of(cdi), Set.of()).requireDevices("all GPUs", ids);
      if (CdiValidators.available()) {
        CdiValidators.assertValid(cdi, ids);
      }
    }
  }
}
