package io.dra4j.runtime.internal.kubelet;

import java.util.List;

/**
 * The full list of this driver's devices with their health: every message on the kubelet's health
 * stream carries all devices, and the kubelet shows a device as unknown when it has not been
 * reported within its timeout.
 */
public record HealthSnapshot(List<DeviceHealthState> devices) {
  public HealthSnapshot {
    devices = List.copyOf(devices);
  }
}
