package io.dra4j.api.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One health observation of one device, as the Go helper's {@code kubeletplugin.DeviceHealth}
 * (k8s.io/dynamic-resource-allocation v0.37.2 {@code kubeletplugin/health.go:51-70}).
 *
 * <p>An observation vouches for the device for its {@linkplain #healthCheckTimeout() health check
 * timeout}: the kubelet shows the device's health as unknown once that much time has passed without
 * a new observation of it. Report every device again within its timeout; see {@link HealthSink}.
 */
public final class DeviceHealth {

  /**
   * The kubelet's timeout for a device whose observation sets none: 30 s ({@code
   * DefaultHealthTimeout}, k8s.io/kubernetes v1.37.2 {@code pkg/kubelet/cm/dra/healthinfo.go:33}).
   */
  public static final Duration KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT = Duration.ofSeconds(30);

  private final String pool;
  private final String device;
  private final HealthStatus status;
  private final String reason;
  private final String message;
  private final Optional<Instant> lastUpdated;
  private final Optional<Duration> healthCheckTimeout;

  private DeviceHealth(
      String pool,
      String device,
      HealthStatus status,
      String reason,
      String message,
      Optional<Instant> lastUpdated,
      Optional<Duration> healthCheckTimeout) {
    this.pool = Objects.requireNonNull(pool, "pool");
    this.device = Objects.requireNonNull(device, "device");
    this.status = Objects.requireNonNull(status, "status");
    this.reason = Objects.requireNonNull(reason, "reason");
    this.message = Objects.requireNonNull(message, "message");
    this.lastUpdated = lastUpdated;
    this.healthCheckTimeout = healthCheckTimeout;
  }

  private DeviceHealth(String pool, String device, HealthStatus status, String reason, String msg) {
    this(pool, device, status, reason, msg, Optional.empty(), Optional.empty());
  }

  public static DeviceHealth healthy(String pool, String device) {
    return new DeviceHealth(pool, device, HealthStatus.HEALTHY, "", "");
  }

  /**
   * An unhealthy device.
   *
   * @param reason short machine-friendly cause, e.g. {@code XID79}; becomes the taint value (at
   *     most 63 characters, label-value syntax)
   * @param message detail for people; the kubelet keeps 1024 bytes (UTF-8): dra4j cuts a longer one
   *     to 1021 and "..." without splitting a character
   */
  public static DeviceHealth unhealthy(String pool, String device, String reason, String message) {
    return new DeviceHealth(pool, device, HealthStatus.UNHEALTHY, reason, message);
  }

  /** A device whose health the provider cannot tell, with why for people. */
  public static DeviceHealth unknown(String pool, String device, String message) {
    return new DeviceHealth(pool, device, HealthStatus.UNKNOWN, "", message);
  }

  /**
   * This observation with the time the provider made it (the Go helper's {@code LastUpdated}). It
   * is sent to the kubelet as Unix seconds. Without it the runtime sends the time it received the
   * report. The v1.37.2 kubelet keeps its own receipt time instead ({@code healthinfo.go:192}), so
   * this value never extends how long the kubelet trusts the observation.
   */
  public DeviceHealth withLastUpdated(Instant value) {
    return new DeviceHealth(
        pool,
        device,
        status,
        reason,
        message,
        Optional.of(Objects.requireNonNull(value, "lastUpdated")),
        healthCheckTimeout);
  }

  /**
   * This observation with the time after which the kubelet shows the device's health as unknown
   * unless a new observation of it arrived (the Go helper's {@code HealthCheckTimeout}). At least 1
   * s; the wire carries whole seconds, so a fraction is cut off as the Go helper does ({@code
   * health.go:214}). Without it the kubelet's default applies, {@link
   * #KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT}.
   *
   * @throws IllegalArgumentException when shorter than 1 s
   */
  public DeviceHealth withHealthCheckTimeout(Duration value) {
    Objects.requireNonNull(value, "healthCheckTimeout");
    if (value.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(
          "DeviceHealth "
              + pool
              + "/"
              + device
              + ": healthCheckTimeout must be at least 1 s (the kubelet receives whole seconds;"
              + " leave it unset for the kubelet's default of "
              + KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT.toSeconds()
              + " s), got "
              + value);
    }
    return new DeviceHealth(pool, device, status, reason, message, lastUpdated, Optional.of(value));
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

  /** Detail for people; the kubelet keeps 1024 bytes (UTF-8). */
  public String message() {
    return message;
  }

  /** When the provider made this observation; empty when it did not say. */
  public Optional<Instant> lastUpdated() {
    return lastUpdated;
  }

  /** The timeout this observation asks the kubelet for; empty for the kubelet's default. */
  public Optional<Duration> healthCheckTimeout() {
    return healthCheckTimeout;
  }

  /** The timeout the kubelet applies: the one asked for, else the kubelet's default. */
  public Duration effectiveHealthCheckTimeout() {
    return healthCheckTimeout.orElse(KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceHealth h
        && pool.equals(h.pool)
        && device.equals(h.device)
        && status == h.status
        && reason.equals(h.reason)
        && message.equals(h.message)
        && lastUpdated.equals(h.lastUpdated)
        && healthCheckTimeout.equals(h.healthCheckTimeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pool, device, status, reason, message, lastUpdated, healthCheckTimeout);
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
        + lastUpdated.map(t -> ", lastUpdated=" + t).orElse("")
        + healthCheckTimeout.map(t -> ", healthCheckTimeout=" + t).orElse("")
        + "]";
  }
}
