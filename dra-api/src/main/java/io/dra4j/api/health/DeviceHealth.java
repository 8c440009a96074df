package io.dra4j.api.health;

import java.util.Objects;

/**
 * One health observation of one device.
 *
 * @param pool pool name
 * @param device device name
 * @param status the health
 * @param reason short machine-friendly cause, e.g. {@code XID79}; becomes the taint value (at most
 *     63 characters, label-value syntax); empty when healthy
 * @param message detail for people; the kubelet keeps 1024 characters
 */
public record DeviceHealth(
    String pool, String device, HealthStatus status, String reason, String message) {
  public DeviceHealth {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(status, "status");
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
  }

  public static DeviceHealth healthy(String pool, String device) {
    return new DeviceHealth(pool, device, HealthStatus.HEALTHY, "", "");
  }

  public static DeviceHealth unhealthy(String pool, String device, String reason, String message) {
    return new DeviceHealth(pool, device, HealthStatus.UNHEALTHY, reason, message);
  }
}
