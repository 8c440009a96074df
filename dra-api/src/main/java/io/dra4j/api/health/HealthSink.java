package io.dra4j.api.health;

import java.util.List;

/**
 * Where a provider reports device health. Thread-safe.
 *
 * <p>The contract of the Go helper's {@code DRAPlugin.WatchHealthStatus}
 * (k8s.io/dynamic-resource-allocation v0.37.2 {@code kubeletplugin/draplugin.go:196-220}): the
 * runtime passes each report to the kubelet as it is, when it is made, and never repeats one. Each
 * report vouches for the devices it names for their {@linkplain DeviceHealth#healthCheckTimeout()
 * health check timeout} (30 s unless set); the kubelet shows a device whose observation is older as
 * unknown. So:
 *
 * <ul>
 *   <li>report every device once at the start, then on every change;
 *   <li>report every device again within its timeout even when nothing changed, from the code that
 *       actually checks the device (a third of the timeout is a good period), so that a monitor
 *       that hangs decays to unknown instead of being vouched for;
 *   <li>a provider with several sources of health (an event monitor plus a poller) reports per
 *       source, each naming only its own devices: then a stalled source decays exactly its devices.
 * </ul>
 *
 * <p>Earlier dra4j versions re-sent the last report themselves; a provider that reported only on
 * change must now re-report on a timer (see the README's "Device health" section).
 */
public interface HealthSink {

  /**
   * Reports the health of some devices; devices not named keep their last reported health at the
   * kubelet until their timeout passes, then show as unknown.
   */
  void report(List<DeviceHealth> health);

  default void report(DeviceHealth health) {
    report(List.of(health));
  }
}
