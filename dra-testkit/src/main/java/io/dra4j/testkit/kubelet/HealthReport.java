package io.dra4j.testkit.kubelet;

import java.util.List;

/** One message of a health stream: the plugin's full device list. */
public record HealthReport(HealthVersion version, List<DeviceHealthReport> devices) {
  public HealthReport {
    devices = List.copyOf(devices);
  }
}
