package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.health.v1.DeviceHealth;
import io.dra4j.proto.health.v1.DeviceIdentifier;
import io.dra4j.proto.health.v1.HealthStatus;
import io.dra4j.proto.health.v1.NodeWatchResourcesResponse;
import java.nio.charset.StandardCharsets;

/**
 * Converts health snapshots to the wire, in v1's messages (other versions convert from those), and
 * owns the kubelet's limit on a health message.
 */
public final class HealthProto {

  /** The kubelet keeps at most this many bytes (UTF-8) of a device's health message. */
  public static final int MAX_MESSAGE_BYTES = 1024;

  private HealthProto() {}

  static NodeWatchResourcesResponse toV1(HealthSnapshot snapshot) {
    NodeWatchResourcesResponse.Builder response = NodeWatchResourcesResponse.newBuilder();
    for (DeviceHealthState d : snapshot.devices()) {
      response.addDevices(
          DeviceHealth.newBuilder()
              .setDevice(
                  DeviceIdentifier.newBuilder().setPoolName(d.pool()).setDeviceName(d.device()))
              .setHealth(toV1(d.status()))
              .setLastUpdatedTime(d.lastUpdatedSeconds())
              .setHealthCheckTimeoutSeconds(d.healthCheckTimeoutSeconds())
              .setMessage(truncate(d.message())));
    }
    return response.build();
  }

  /**
   * What the kubelet keeps of a device's health message: at most {@value #MAX_MESSAGE_BYTES} bytes
   * of UTF-8, a longer one cut to its first 1021 bytes and {@code "..."} (k8s.io/kubernetes v1.37.2
   * {@code pkg/kubelet/cm/dra/manager.go:512-517}, the limit {@code ResourceHealthMessageMaxLength}
   * of k8s.io/api v0.37.2 {@code core/v1/types.go:3652}). Cut here the same way, but never inside a
   * character, which the kubelet's byte cut can do: what the kubelet then receives is within its
   * limit and it cuts nothing.
   */
  public static String truncate(String message) {
    // Three bytes at most per UTF-16 unit: a short message needs no counting.
    if (message.length() <= MAX_MESSAGE_BYTES / 3
        || message.getBytes(StandardCharsets.UTF_8).length <= MAX_MESSAGE_BYTES) {
      return message;
    }
    int bytes = 0;
    int end = 0;
    while (end < message.length()) {
      int c = message.codePointAt(end);
      int n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      if (bytes + n > MAX_MESSAGE_BYTES - 3) {
        break;
      }
      bytes += n;
      end += Character.charCount(c);
    }
    return message.substring(0, end) + "...";
  }

  private static HealthStatus toV1(io.dra4j.api.health.HealthStatus status) {
    return switch (status) {
      case HEALTHY -> HealthStatus.HEALTHY;
      case UNHEALTHY -> HealthStatus.UNHEALTHY;
      case UNKNOWN -> HealthStatus.UNKNOWN;
    };
  }
}
