package io.dra4j.testkit.kubelet;

import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The kubelet's health cache of one driver, as the v1.37.2 DRA manager keeps it ({@code
 * k8s.io/kubernetes@v1.37.2/pkg/kubelet/cm/dra/healthinfo.go}), so tests against the simulator see
 * what the kubelet shows in a pod's {@code allocatedResourcesStatus}:
 *
 * <ul>
 *   <li>a reported device is stored with the time of receipt, not the plugin's {@code
 *       last_updated_time} ({@code healthinfo.go:192}); its timeout is {@code
 *       health_check_timeout_seconds} when positive, else 30 s ({@code manager.go:1052-1076},
 *       {@code healthinfo.go:33});
 *   <li>a device reads as unknown, with no message, once more than its timeout passed since it was
 *       last received, or when it is not in the cache ({@code healthinfo.go:137-169});
 *   <li>on each message, devices not in it whose timeout passed are removed, and counted as changed
 *       when they were not unknown already ({@code healthinfo.go:216-245}); new devices beyond
 *       16384 are ignored ({@code healthinfo.go:44}, {@code :198-203});
 *   <li>when the stream ends, for any reason, the driver's entries are cleared ({@code
 *       manager.go:1082-1088}).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class KubeletHealthCache {

  /**
   * The kubelet's {@code DefaultHealthTimeout} ({@code healthinfo.go:33}), owned by {@link
   * DeviceHealth#KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT}.
   */
  public static final Duration DEFAULT_TIMEOUT = DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT;

  /** The kubelet's {@code maxDevicesPerDriver} ({@code healthinfo.go:44}). */
  public static final int MAX_DEVICES = 16384;

  /** What the kubelet shows for one device: a pod status' {@code ResourceHealth}. */
  public record ResourceHealth(HealthStatus health, String message) {
    static final ResourceHealth UNKNOWN = new ResourceHealth(HealthStatus.UNKNOWN, "");
  }

  private record Entry(DeviceHealthReport report, Instant received, Duration timeout) {
    boolean staleAt(Instant now) {
      return Duration.between(received, now).compareTo(timeout) > 0;
    }
  }

  private final Map<String, Entry> devices = new LinkedHashMap<>();

  /**
   * Applies one message of the stream received at {@code now}.
   *
   * @return the devices that changed (health, message or timeout differ, new, or gone stale), whose
   *     pods the kubelet would update
   */
  public synchronized List<String> apply(List<DeviceHealthReport> reported, Instant now) {
    List<String> changed = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (DeviceHealthReport d : reported) {
      String key = d.poolName() + "/" + d.deviceName();
      seen.add(key);
      Entry old = devices.get(key);
      if (old == null && devices.size() >= MAX_DEVICES) {
        continue;
      }
      Duration timeout =
          d.healthCheckTimeoutSeconds() > 0
              ? Duration.ofSeconds(d.healthCheckTimeoutSeconds())
              : DEFAULT_TIMEOUT;
      if (old == null
          || old.report.health() != d.health()
          || !old.report.message().equals(d.message())
          || !old.timeout.equals(timeout)) {
        changed.add(key);
      }
      devices.put(key, new Entry(d, now, timeout));
    }
    for (Iterator<Map.Entry<String, Entry>> it = devices.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Entry> e = it.next();
      if (!seen.contains(e.getKey()) && e.getValue().staleAt(now)) {
        if (e.getValue().report.health() != HealthStatus.UNKNOWN) {
          changed.add(e.getKey());
        }
        it.remove();
      }
    }
    return changed;
  }

  /** What the kubelet shows for the device at {@code now}. */
  public synchronized ResourceHealth health(String pool, String device, Instant now) {
    Entry e = devices.get(pool + "/" + device);
    if (e == null || e.staleAt(now)) {
      return ResourceHealth.UNKNOWN;
    }
    return new ResourceHealth(e.report.health(), e.report.message());
  }

  /** Forgets the driver's devices: its stream ended. */
  public synchronized void clear() {
    devices.clear();
  }
}
