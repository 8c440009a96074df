package io.dra4j.testkit.kubelet;

import java.util.List;

/**
 * One message of a health stream: the devices it names (all of the plugin's, or a subset; the
 * kubelet keeps the others until their timeout passes).
 */
public record HealthReport(HealthVersion version, List<DeviceHealthReport> devices) {
  public HealthReport {
    devices = List.copyOf(devices);
  }
}
