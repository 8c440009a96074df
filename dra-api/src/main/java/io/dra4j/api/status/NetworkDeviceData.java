package io.dra4j.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * Network facts about an allocated device.
 *
 * @param interfaceName at most 256 bytes; empty when unknown
 * @param ips at most 16 unique interface addresses in CIDR form, e.g. {@code 192.0.2.5/24}
 * @param hardwareAddress at most 128 bytes; empty when unknown
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record NetworkDeviceData(String interfaceName, List<String> ips, String hardwareAddress) {
  public NetworkDeviceData {
    interfaceName = interfaceName == null ? "" : interfaceName;
    ips = ips == null ? List.of() : List.copyOf(ips);
    hardwareAddress = hardwareAddress == null ? "" : hardwareAddress;
  }
}
