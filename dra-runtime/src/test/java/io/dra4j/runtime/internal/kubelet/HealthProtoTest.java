package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.health.HealthStatus;
import io.dra4j.proto.health.v1.NodeWatchResourcesResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthProtoTest {

  private static final HealthSnapshot SNAPSHOT =
      new HealthSnapshot(
          List.of(
              new DeviceHealthState("node-1", "gpu-0", HealthStatus.HEALTHY, 1_700_000_000L, "", 0),
              new DeviceHealthState(
                  "node-1", "gpu-1", HealthStatus.UNHEALTHY, 1_700_000_005L, "XID 79", 45),
              new DeviceHealthState("node-1", "gpu-2", HealthStatus.UNKNOWN, 0, "", 0)));

  @Test
  void v1CarriesEveryField() {
    NodeWatchResourcesResponse r = HealthProto.toV1(SNAPSHOT);
    assertThat(r.getDevicesCount()).isEqualTo(3);
    var d = r.getDevices(1);
    assertThat(d.getDevice().getPoolName()).isEqualTo("node-1");
    assertThat(d.getDevice().getDeviceName()).isEqualTo("gpu-1");
    assertThat(d.getHealth()).isEqualTo(io.dra4j.proto.health.v1.HealthStatus.UNHEALTHY);
    assertThat(d.getLastUpdatedTime()).isEqualTo(1_700_000_005L);
    assertThat(d.getHealthCheckTimeoutSeconds()).isEqualTo(45);
    assertThat(d.getMessage()).isEqualTo("XID 79");
    assertThat(r.getDevices(0).getHealth())
        .isEqualTo(io.dra4j.proto.health.v1.HealthStatus.HEALTHY);
    assertThat(r.getDevices(2).getHealth())
        .isEqualTo(io.dra4j.proto.health.v1.HealthStatus.UNKNOWN);
  }

  @Test
  void v1alpha1IsTheSameMessageInTheOlderPackage() {
    var alpha = HealthV1alpha1Service.fromV1(HealthProto.toV1(SNAPSHOT));
    assertThat(alpha.getDevicesCount()).isEqualTo(3);
    assertThat(alpha.getDevices(1).getHealth())
        .isEqualTo(io.dra4j.proto.health.v1alpha1.HealthStatus.UNHEALTHY);
    assertThat(alpha.getDevices(1).getMessage()).isEqualTo("XID 79");
    assertThat(alpha.getDevices(1).getHealthCheckTimeoutSeconds()).isEqualTo(45);
    assertThat(alpha.getUnknownFields().asMap()).isEmpty();
    assertThat(alpha.getDevices(1).getUnknownFields().asMap()).isEmpty();
    assertThat(alpha.toByteString()).isEqualTo(HealthProto.toV1(SNAPSHOT).toByteString());
  }

  @Test
  void messagesAreCutTo1024BytesAsTheKubeletCuts() {
    assertThat(HealthProto.truncate("x".repeat(1024))).isEqualTo("x".repeat(1024));
    String cut = HealthProto.truncate("x".repeat(1025));
    assertThat(cut).hasSize(1024).endsWith("x...").startsWith("x".repeat(1021));
    // Bytes of UTF-8 (the kubelet's len()), never cutting inside a character: 256 emoji of 4
    // bytes stay whole; of 257, 255 (1,020 bytes) stay, as a 256th would pass 1,021 bytes.
    String emoji = "\uD83D\uDD25";
    assertThat(HealthProto.truncate(emoji.repeat(256))).isEqualTo(emoji.repeat(256));
    assertThat(HealthProto.truncate(emoji.repeat(257))).isEqualTo(emoji.repeat(255) + "...");
    // 2-byte characters: 510 (1,020 bytes) and the dots, where the kubelet keeps half of the 511th.
    assertThat(HealthProto.truncate("é".repeat(600))).isEqualTo("é".repeat(510) + "...");
    var onWire =
        HealthProto.toV1(
            new HealthSnapshot(
                List.of(
                    new DeviceHealthState(
                        "p", "d", HealthStatus.UNHEALTHY, 0, "y".repeat(5000), 0))));
    assertThat(onWire.getDevices(0).getMessage()).hasSize(1024).endsWith("...");
  }
}
