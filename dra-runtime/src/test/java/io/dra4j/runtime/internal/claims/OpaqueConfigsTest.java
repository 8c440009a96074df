package io.dra4j.runtime.internal.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.OpaqueConfig;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.OpaqueDeviceConfiguration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every opaque config that applies to a device, in the order a provider gets them. */
class OpaqueConfigsTest {

  static final String DRIVER = "gpu.example.com";
  static final OpaqueConfigs CONFIGS = new OpaqueConfigs(DRIVER, Optional.empty());

  static DeviceAllocationConfiguration config(
      String source, List<String> requests, String driver, int n) {
    return DeviceAllocationConfiguration.opaque(
        source, requests, OpaqueDeviceConfiguration.of(driver, Map.of("n", n)));
  }

  @Test
  void classConfigsComeFirstThenTheClaimsEachInItsOrderOnlyThoseThatApply() {
    AllocatedDevice gpu = AllocatedDevice.of("gpu", "p", "gpu-0");
    AllocatedDevice small =
        AllocatedDevice.builder("big", "p", "gpu-1").subrequest("small").build();
    List<DeviceAllocationConfiguration> status =
        List.of(
            config(DeviceAllocationConfiguration.FROM_CLAIM, List.of(), DRIVER, 1),
            config(DeviceAllocationConfiguration.FROM_CLASS, List.of("gpu"), DRIVER, 2),
            config(DeviceAllocationConfiguration.FROM_CLAIM, List.of("big/small"), DRIVER, 3),
            config(DeviceAllocationConfiguration.FROM_CLAIM, List.of(), "nic.example.com", 4),
            config("FromTheFuture", List.of("big"), DRIVER, 5),
            config(DeviceAllocationConfiguration.FROM_CLAIM, List.of("other"), DRIVER, 6));

    List<List<OpaqueConfig>> out = CONFIGS.applicable(List.of(gpu, small), status);

    assertThat(out.get(0))
        .containsExactly(
            OpaqueConfig.builder(OpaqueConfig.Source.CLASS, "{\"n\":2}")
                .requests(List.of("gpu"))
                .build(),
            OpaqueConfig.builder(OpaqueConfig.Source.CLAIM, "{\"n\":1}").build());
    assertThat(out.get(1))
        .extracting(OpaqueConfig::parametersJson)
        .containsExactly("{\"n\":1}", "{\"n\":3}", "{\"n\":5}");
    assertThat(out.get(1).get(2).source()).isEqualTo(OpaqueConfig.Source.CLAIM);
  }
}
