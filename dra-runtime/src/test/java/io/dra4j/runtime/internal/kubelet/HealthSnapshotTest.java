package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.health.HealthStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthSnapshotTest {

  static DeviceHealthState state(String device, HealthStatus status, long at) {
    return new DeviceHealthState("node-1", device, status, at, "", 0);
  }

  @Test
  void unsentMessagesMergeIntoOneWithEachDevicesLatestStateLast() {
    HealthSnapshot first =
        new HealthSnapshot(
            List.of(
                state("gpu-0", HealthStatus.HEALTHY, 1), state("gpu-1", HealthStatus.HEALTHY, 1)));
    HealthSnapshot second = new HealthSnapshot(List.of(state("gpu-0", HealthStatus.UNHEALTHY, 2)));
    assertThat(first.then(second).devices())
        .containsExactly(
            state("gpu-1", HealthStatus.HEALTHY, 1), state("gpu-0", HealthStatus.UNHEALTHY, 2));
  }
}
