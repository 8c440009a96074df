package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.health.v1.DeviceHealth;
import io.dra4j.proto.health.v1.DeviceIdentifier;
import io.dra4j.proto.health.v1.HealthStatus;
import io.dra4j.proto.health.v1.NodeWatchResourcesResponse;

/** Converts health snapshots to the wire, in v1's messages (other versions convert from those). */
final class HealthProto {

  /** The kubelet keeps at most this many characters of a device's health message. */
  static final int MAX_MESSAGE_CHARS = 1024;

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
   * Cuts {@code message} to {@link #MAX_MESSAGE_CHARS} characters (Unicode code points, so a
   * surrogate pair is never split): the first 1021 plus {@code "..."}.
   */
  static String truncate(String message) {
    if (message.length() <= MAX_MESSAGE_CHARS
        || message.codePointCount(0, message.length()) <= MAX_MESSAGE_CHARS) {
      return message;
    }
    int end = message.offsetByCodePoints(0, MAX_MESSAGE_CHARS - 3);
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
