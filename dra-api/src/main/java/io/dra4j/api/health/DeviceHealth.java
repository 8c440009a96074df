package io.dra4j.api.health;

import java.util.Objects;

/** One health observation of one device. */
public final class DeviceHealth {
  private final String pool;
  private final String device;
  private final HealthStatus status;
  private final String reason;
  private final String message;

  private DeviceHealth(
      String pool, String device, HealthStatus status, String reason, String message) {
    this.pool = Objects.requireNonNull(pool, "pool");
    this.device = Objects.requireNonNull(device, "device");
    this.status = Objects.requireNonNull(status, "status");
    this.reason = Objects.requireNonNull(reason, "reason");
    this.message = Objects.requireNonNull(message, "message");
  }

  public static DeviceHealth healthy(String pool, String device) {
    return new DeviceHealth(pool, device, HealthStatus.HEALTHY, "", "");
  }

  /**
   * An unhealthy device.
   *
   * @param reason short machine-friendly cause, e.g. {@code XID79}; becomes the taint value (at
   *     most 63 characters, label-value syntax)
   * @param message detail for people; the kubelet keeps 1024 characters
   */
  public static DeviceHealth unhealthy(String pool, String device, String reason, String message) {
    return new DeviceHealth(pool, device, HealthStatus.UNHEALTHY, reason, message);
  }

  /** A device whose health the provider cannot tell, with why for people. */
  public static DeviceHealth unknown(String pool, String device, String message) {
    return new DeviceHealth(pool, device, HealthStatus.UNKNOWN, "", message);
  }

  /** Pool name. */
  public String pool() {
    return pool;
  }

  /** Device name. */
  public String device() {
    return device;
  }

  /** The health. */
  public HealthStatus status() {
    return status;
  }

  /**
   * Short machine-friendly cause, e.g. {@code XID79}; becomes the taint value (at most 63
   * characters, label-value syntax); empty when healthy.
   */
  public String reason() {
    return reason;
  }

  /** Detail for people; the kubelet keeps 1024 characters. */
  public String message() {
    return message;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceHealth h
        && pool.equals(h.pool)
        && device.equals(h.device)
        && status == h.status
        && reason.equals(h.reason)
        && message.equals(h.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pool, device, status, reason, message);
  }

  @Override
  public String toString() {
    return "DeviceHealth[pool="
        + pool
        + ", device="
        + device
        + ", status="
        + status
        + ", reason="
        + reason
        + ", message="
        + message
        + "]";
  }
}
