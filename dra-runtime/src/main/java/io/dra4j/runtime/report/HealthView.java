package io.dra4j.runtime.report;

import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.health.HealthStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the health hub knows, for people: a status endpoint or a log line. Immutable snapshot.
 *
 * @param taintKey the key of the health taint
 * @param taintEffect its effect
 * @param recoveryDelay how long a device must stay healthy before its taint is lifted
 * @param devices the driver's devices in publishing order, then devices reported but not (yet) in
 *     the device list
 */
public record HealthView(
    String taintKey, TaintEffect taintEffect, Duration recoveryDelay, List<DeviceState> devices) {

  public HealthView {
    Objects.requireNonNull(taintKey, "taintKey");
    Objects.requireNonNull(taintEffect, "taintEffect");
    Objects.requireNonNull(recoveryDelay, "recoveryDelay");
    devices = List.copyOf(devices);
  }

  /** The state of one device, if the hub knows it. */
  public Optional<DeviceState> device(String pool, String device) {
    return devices.stream()
        .filter(d -> d.pool().equals(pool) && d.device().equals(device))
        .findFirst();
  }

  /**
   * The health of one device.
   *
   * @param pool pool name
   * @param device device name
   * @param listed whether the device is in the driver's current device list (and hence in the
   *     kubelet stream)
   * @param status the last reported health, UNKNOWN when never reported
   * @param reason the last reported reason
   * @param message the last reported message
   * @param since when the status last changed
   * @param lastReport when the device was last reported
   * @param tainted whether the overlay taints the device now
   * @param taintValue the taint's value (the sanitized reason), empty when not tainted
   * @param taintedAt when the taint was added (its {@code timeAdded})
   * @param liftAt when the taint will be lifted if the device stays healthy; empty when not
   *     recovering
   * @param healthCheckTimeout the timeout of the last report (the kubelet's default when it set
   *     none)
   * @param stale whether the last report is older than its timeout (or there is none): the kubelet
   *     shows the device's health as unknown
   */
  public record DeviceState(
      String pool,
      String device,
      boolean listed,
      HealthStatus status,
      String reason,
      String message,
      Optional<Instant> since,
      Optional<Instant> lastReport,
      boolean tainted,
      String taintValue,
      Optional<Instant> taintedAt,
      Optional<Instant> liftAt,
      Duration healthCheckTimeout,
      boolean stale) {

    public DeviceState {
      Objects.requireNonNull(pool, "pool");
      Objects.requireNonNull(device, "device");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(since, "since");
      Objects.requireNonNull(lastReport, "lastReport");
      Objects.requireNonNull(taintValue, "taintValue");
      Objects.requireNonNull(taintedAt, "taintedAt");
      Objects.requireNonNull(liftAt, "liftAt");
      Objects.requireNonNull(healthCheckTimeout, "healthCheckTimeout");
    }
  }
}
