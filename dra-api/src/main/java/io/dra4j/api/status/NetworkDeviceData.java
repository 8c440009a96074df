package io.dra4j.api.status;

import java.util.List;

/**
 * Network facts about an allocated device.
 *
 * @param interfaceName at most 256 bytes; empty when unknown
 * @param ips at most 16 unique interface addresses in CIDR form, e.g. {@code 192.0.2.5/24}
 * @param hardwareAddress at most 128 bytes; empty when unknown
 */
public record NetworkDeviceData(String interfaceName, List<String> ips, String hardwareAddress) {
  public NetworkDeviceData {
    interfaceName = interfaceName == null ? "" : interfaceName;
    ips = List.copyOf(ips);
    hardwareAddress = hardwareAddress == null ? "" : hardwareAddress;
  }
}
