package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.health.HealthReporting;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.TypedConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SettingsTest {

  private static NvidiaSettings settings(Map<String, String> config) {
    return NvidiaSettings.from(
        ProviderContext.builder("gpu.nvidia.com", "n").config(config).build());
  }

  @Test
  void defaults() {
    NvidiaSettings s = settings(Map.of());
    assertThat(s.driverRoot()).isEqualTo(Path.of("/"));
    assertThat(s.hostDriverRoot()).isEqualTo(Path.of("/"));
    assertThat(s.nvmlLibrary()).isEmpty();
    assertThat(s.procRoot()).isEqualTo(Path.of("/proc"));
    assertThat(s.migMode()).isEqualTo(NvidiaSettings.MigMode.STATIC);
    assertThat(s.cdiHookPath()).isEmpty();
    assertThat(s.ignoredXids()).containsExactlyInAnyOrder(13L, 31L, 43L, 45L, 68L, 109L);
    assertThat(s.healthWaitMillis()).isEqualTo(5000);
    assertThat(s.staticCdiKind()).isEmpty();
  }

  @Test
  void everySettingIsRead() {
    NvidiaSettings s =
        settings(
            Map.of(
                "driver-root", "/driver-root",
                "host-driver-root", "/run/nvidia/driver",
                "nvml-library", "/opt/lib/libnvidia-ml.so.1",
                "proc-root", "/host/proc",
                "mig-mode", "Partitionable",
                "cdi-hook-path", "/usr/local/bin/nvidia-cdi-hook",
                "ignored-xids", " 13 ,79",
                "health-wait-ms", "250",
                "static-cdi-kind", " nvidia.com/gpu "));
    assertThat(s.driverRoot()).isEqualTo(Path.of("/driver-root"));
    assertThat(s.hostDriverRoot()).isEqualTo(Path.of("/run/nvidia/driver"));
    assertThat(s.nvmlLibrary()).contains(Path.of("/opt/lib/libnvidia-ml.so.1"));
    assertThat(s.procRoot()).isEqualTo(Path.of("/host/proc"));
    assertThat(s.migMode()).isEqualTo(NvidiaSettings.MigMode.PARTITIONABLE);
    assertThat(s.cdiHookPath()).contains("/usr/local/bin/nvidia-cdi-hook");
    assertThat(s.ignoredXids()).isEqualTo(Set.of(13L, 79L));
    assertThat(s.healthWaitMillis()).isEqualTo(250);
    assertThat(s.staticCdiKind()).contains("nvidia.com/gpu");
    assertThat(settings(Map.of("ignored-xids", "")).ignoredXids()).isEmpty();
  }

  @Test
  void pathsAreMappedBetweenTheDriversAndTheHostsView() {
    NvidiaSettings s =
        settings(Map.of("driver-root", "/driver-root", "host-driver-root", "/run/nvidia/driver"));
    Path lib = Path.of("/driver-root/usr/lib64/libcuda.so.1");
    assertThat(s.hostView(lib)).isEqualTo(Path.of("/run/nvidia/driver/usr/lib64/libcuda.so.1"));
    assertThat(s.containerView(lib)).isEqualTo("/usr/lib64/libcuda.so.1");
    NvidiaSettings plain = settings(Map.of());
    assertThat(plain.hostView(lib)).isEqualTo(lib);
    assertThat(plain.containerView(Path.of("/usr/bin/nvidia-smi")))
        .isEqualTo("/usr/bin/nvidia-smi");
  }

  @Test
  void badValuesNameTheKey() {
    assertThatThrownBy(() -> settings(Map.of("static-cdi-kind", "nvidia.com")))
        .hasMessage(
            "setting static-cdi-kind=\"nvidia.com\" must be a CDI kind vendor/class, e.g."
                + " nvidia.com/gpu");
    assertThatThrownBy(() -> settings(Map.of("mig-mode", "dynamic")))
        .hasMessage("setting mig-mode=\"dynamic\" must be \"static\" or \"partitionable\"");
    assertThatThrownBy(() -> settings(Map.of("driver-root", "run/nvidia/driver")))
        .hasMessage("setting driver-root=\"run/nvidia/driver\" must be an absolute path");
    assertThatThrownBy(() -> settings(Map.of("cdi-hook-path", "nvidia-cdi-hook")))
        .hasMessageContaining("cdi-hook-path");
    assertThatThrownBy(() -> settings(Map.of("ignored-xids", "13,x")))
        .hasMessage("setting ignored-xids=\"13,x\": \"x\" is not an XID (a non-negative integer)");
    assertThatThrownBy(() -> settings(Map.of("health-wait-ms", "0")))
        .hasMessageContaining("health-wait-ms");
    assertThatThrownBy(() -> settings(Map.of("health-wait-ms", "soon")))
        .hasMessageContaining("health-wait-ms");
  }

  @Test
  void theProviderIsFoundByServiceLoaderWithItsCapabilities() {
    Optional<DeviceProvider> p =
        ServiceLoader.load(DeviceProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(x -> x.name().equals("nvidia"))
            .findFirst();
    assertThat(p).get().isInstanceOf(NvidiaDeviceProvider.class);
    assertThat(p.get()).isInstanceOf(HealthReporting.class).isInstanceOf(TypedConfig.class);
    p.get().close(); // nothing loaded yet: closing is a no-op
  }
}
