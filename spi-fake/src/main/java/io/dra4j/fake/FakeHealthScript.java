package io.dra4j.fake;

import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Scripted device health, so tests and the demo can show a device going bad and coming back. Get it
 * from {@link FakeDeviceProvider#health()}.
 *
 * <p>Marking a full device ({@code gpu-0}) also makes its partitions unhealthy, as a fault of the
 * physical device would; marking a partition affects only that partition. Reports go to the sink
 * given to {@link FakeDeviceProvider#startHealthMonitoring} as soon as health changes; marks made
 * before monitoring starts are included in the first, full report. The provider also re-reports
 * every device within its health check timeout ({@link #reportAll}), as a provider must; {@link
 * #stopMonitor} simulates a monitor that hangs, so the kubelet shows the devices as unknown.
 *
 * <p>Thread-safe. The sink is called under this object's lock so reports arrive in the order the
 * changes were made.
 */
public final class FakeHealthScript {

  /** Label-value syntax: the reason becomes a taint value. */
  private static final Pattern REASON =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

  private final Object lock = new Object();
  private FakeInventory inventory;
  private HealthSink sink;
  private Optional<Duration> timeout = Optional.empty();
  private boolean stopped;

  /** Devices marked unhealthy: name to (reason, message). */
  private final Map<String, String[]> marked = new LinkedHashMap<>();

  FakeHealthScript() {}

  /**
   * Marks a device unhealthy and reports it (and, for a full device, its partitions).
   *
   * @param device a device name from the last discovery, e.g. {@code gpu-0}
   * @param reason short machine-friendly cause in label-value syntax, e.g. {@code XID79}
   * @param message detail for people
   * @throws IllegalArgumentException for an unknown device or a malformed reason
   * @throws IllegalStateException before the first discovery
   */
  public void markUnhealthy(String device, String reason, String message) {
    Objects.requireNonNull(reason, "reason");
    if (!REASON.matcher(reason).matches()) {
      throw new IllegalArgumentException(
          "reason \"" + reason + "\" must be 1-63 characters of label-value syntax, e.g. XID79");
    }
    change(device, new String[] {reason, message == null ? "" : message});
  }

  /**
   * Marks a device healthy again and reports it (and, for a full device, its partitions that are
   * not marked themselves).
   *
   * @throws IllegalArgumentException for an unknown device
   * @throws IllegalStateException before the first discovery
   */
  public void markHealthy(String device) {
    change(device, null);
  }

  /**
   * Simulates a monitor that hangs: no report at all, neither changes nor re-reports, until {@link
   * #resumeMonitor}. Marks made meanwhile are kept.
   */
  public void stopMonitor() {
    synchronized (lock) {
      stopped = true;
    }
  }

  /** Ends {@link #stopMonitor}: reports every device at once, as a monitor that came back would. */
  public void resumeMonitor() {
    synchronized (lock) {
      if (stopped) {
        stopped = false;
        reportAll();
      }
    }
  }

  /** Whether the monitor is stopped ({@link #stopMonitor}). */
  public boolean monitorStopped() {
    synchronized (lock) {
      return stopped;
    }
  }

  /** The current health of every device, in publishing order; empty before discovery. */
  public List<DeviceHealth> current() {
    synchronized (lock) {
      if (inventory == null) {
        return List.of();
      }
      return inventory.deviceNames().stream().map(this::effective).toList();
    }
  }

  private void change(String device, String[] mark) {
    synchronized (lock) {
      if (inventory == null) {
        throw new IllegalStateException("no devices yet: discover before scripting health");
      }
      if (inventory.entry(device).isEmpty()) {
        throw new IllegalArgumentException(
            "device \"" + device + "\" is not one of " + inventory.deviceNames());
      }
      if (mark == null) {
        marked.remove(device);
      } else {
        marked.put(device, mark);
      }
      if (sink != null && !stopped) {
        List<DeviceHealth> out = new ArrayList<>();
        for (String name : inventory.deviceNames()) {
          FakeInventory.Entry e = inventory.entry(name).orElseThrow();
          if (name.equals(device) || e.parent().equals(Optional.of(device))) {
            out.add(effective(name));
          }
        }
        sink.report(out);
      }
    }
  }

  private DeviceHealth effective(String name) {
    String pool = inventory.entry(name).orElseThrow().pool();
    String[] own = marked.get(name);
    if (own == null) {
      own =
          inventory.entry(name).flatMap(FakeInventory.Entry::parent).map(marked::get).orElse(null);
    }
    DeviceHealth h =
        own == null
            ? DeviceHealth.healthy(pool, name)
            : DeviceHealth.unhealthy(pool, name, own[0], own[1]);
    return timeout.map(h::withHealthCheckTimeout).orElse(h);
  }

  /** The health check timeout every report asks for; empty for the kubelet's default. */
  void timeout(Optional<Duration> value) {
    synchronized (lock) {
      timeout = value;
    }
  }

  /** The timeout the kubelet applies to this provider's reports. */
  Duration effectiveTimeout() {
    synchronized (lock) {
      return timeout.orElse(DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT);
    }
  }

  /**
   * Reports every device's current health, changed or not, unless the monitor is stopped: the
   * re-report each device needs within its timeout.
   */
  void reportAll() {
    synchronized (lock) {
      List<DeviceHealth> all = current();
      if (sink != null && !stopped && !all.isEmpty()) {
        sink.report(all);
      }
    }
  }

  /** A new inventory: marks of devices that are gone are dropped. */
  void inventory(FakeInventory value) {
    synchronized (lock) {
      inventory = value;
      marked.keySet().removeIf(d -> value.entry(d).isEmpty());
    }
  }

  /** Starts reporting: sends the full current health first. */
  void start(HealthSink value) {
    synchronized (lock) {
      sink = value;
      reportAll();
    }
  }

  boolean isUnhealthy(String device) {
    synchronized (lock) {
      return marked.containsKey(device);
    }
  }
}
