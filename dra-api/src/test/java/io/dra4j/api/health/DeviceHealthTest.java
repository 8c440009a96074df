package io.dra4j.api.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DeviceHealthTest {

  @Test
  void withoutTimeoutOrTimeTheKubeletDefaultApplies() {
    DeviceHealth h = DeviceHealth.healthy("node-1", "gpu-0");
    assertThat(h.lastUpdated()).isEmpty();
    assertThat(h.healthCheckTimeout()).isEmpty();
    assertThat(h.effectiveHealthCheckTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void withMethodsKeepEverythingElse() {
    Instant at = Instant.parse("2026-03-01T10:00:00Z");
    DeviceHealth h =
        DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", "fell off the bus")
            .withLastUpdated(at)
            .withHealthCheckTimeout(Duration.ofSeconds(5));
    assertThat(h.status()).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(h.reason()).isEqualTo("XID79");
    assertThat(h.message()).isEqualTo("fell off the bus");
    assertThat(h.lastUpdated()).contains(at);
    assertThat(h.healthCheckTimeout()).contains(Duration.ofSeconds(5));
    assertThat(h.effectiveHealthCheckTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(h)
        .isNotEqualTo(DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", "fell off the bus"))
        .isEqualTo(
            DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", "fell off the bus")
                .withHealthCheckTimeout(Duration.ofSeconds(5))
                .withLastUpdated(at));
  }

  @Test
  void aTimeoutUnderOneSecondIsRefusedWithTheDevice() {
    assertThatThrownBy(
            () ->
                DeviceHealth.healthy("node-1", "gpu-0")
                    .withHealthCheckTimeout(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node-1/gpu-0")
        .hasMessageContaining("at least 1 s");
    assertThatThrownBy(
            () ->
                DeviceHealth.healthy("node-1", "gpu-0")
                    .withHealthCheckTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
