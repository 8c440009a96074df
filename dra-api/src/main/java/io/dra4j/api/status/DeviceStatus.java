package io.dra4j.api.status;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a driver reports about one allocated device in {@code ResourceClaim.status.devices}
 * (KEP-4817). The runtime validates it against the API limits and applies it with server-side apply
 * under the driver's field manager, only for devices allocated to this driver.
 *
 * @param conditions at most 8; by convention {@code Ready=True} once the device is configured
 * @param data a driver-specific JSON object of at most 10 KiB
 * @param networkData interface name, IPs in CIDR form, hardware address
 */
public record DeviceStatus(
    List<Condition> conditions, Map<String, Object> data, Optional<NetworkDeviceData> networkData) {

  public DeviceStatus {
    conditions = List.copyOf(conditions);
    data = Map.copyOf(data);
    Objects.requireNonNull(networkData, "networkData");
  }

  /** A single {@code Ready=True} condition. */
  public static DeviceStatus ready(String reason, String message) {
    return new DeviceStatus(
        List.of(Condition.of("Ready", true, reason, message)), Map.of(), Optional.empty());
  }

  public DeviceStatus withData(Map<String, Object> value) {
    return new DeviceStatus(conditions, value, networkData);
  }

  public DeviceStatus withNetworkData(NetworkDeviceData value) {
    return new DeviceStatus(conditions, data, Optional.of(value));
  }
}
