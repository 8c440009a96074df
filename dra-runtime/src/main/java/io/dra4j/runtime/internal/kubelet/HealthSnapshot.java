package io.dra4j.runtime.internal.kubelet;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One message of the kubelet's health stream: the devices one provider report named (or, when a
 * stream starts, the devices whose last report is still within its timeout). It may cover a subset
 * of the driver's devices; the kubelet keeps the others' last health until their timeout passes
 * (k8s.io/kubernetes v1.37.2 {@code pkg/kubelet/cm/dra/healthinfo.go:216-245}).
 */
public record HealthSnapshot(List<DeviceHealthState> devices) {
  public HealthSnapshot {
    devices = List.copyOf(devices);
  }

  /**
   * This message followed by {@code later}, as one message: each device with its latest state. The
   * kubelet's cache ends up the same as after the two messages, since it keeps only a device's
   * latest report ({@code healthinfo.go:191-211}).
   */
  public HealthSnapshot then(HealthSnapshot later) {
    Map<String, DeviceHealthState> merged = new LinkedHashMap<>();
    for (DeviceHealthState d : devices) {
      merged.put(d.pool() + "/" + d.device(), d);
    }
    for (DeviceHealthState d : later.devices) {
      merged.remove(d.pool() + "/" + d.device());
      merged.put(d.pool() + "/" + d.device(), d);
    }
    return new HealthSnapshot(List.copyOf(merged.values()));
  }
}
