package io.dra4j.runtime.internal.kubelet;

import io.dra4j.api.health.HealthStatus;
import java.util.Objects;

/**
 * The health of one device as the kubelet's health stream carries it.
 *
 * @param pool pool name
 * @param device device name
 * @param status the health
 * @param lastUpdatedSeconds when the driver last checked, Unix seconds (0 when unknown)
 * @param message detail for people; cut to the kubelet's 1024 bytes ({@link HealthProto#truncate})
 * @param healthCheckTimeoutSeconds after how long without a report the kubelet shows the device as
 *     unknown; 0 means the kubelet's default (30 s)
 */
public record DeviceHealthState(
    String pool,
    String device,
    HealthStatus status,
    long lastUpdatedSeconds,
    String message,
    long healthCheckTimeoutSeconds) {

  public DeviceHealthState {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(message, "message");
    if (healthCheckTimeoutSeconds < 0) {
      throw new IllegalArgumentException(
          "device "
              + pool
              + "/"
              + device
              + ": healthCheckTimeoutSeconds must be >= 0 (0 = kubelet default), got "
              + healthCheckTimeoutSeconds);
    }
  }
}
