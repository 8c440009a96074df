package io.dra4j.api.status;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a driver reports about one allocated device in {@code ResourceClaim.status.devices}
 * (KEP-4817, GA in Kubernetes 1.37). The runtime validates it against the API limits and applies it
 * with server-side apply under the driver's field manager, only for devices allocated to this
 * driver. The runtime keeps it in its checkpoint; it is never read from the API server.
 */
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class DeviceStatus {
  private final List<Condition> conditions;
  private final Map<String, Object> data;
  private final Optional<NetworkDeviceData> networkData;

  @JsonCreator
  private DeviceStatus(
      @JsonProperty("conditions") List<Condition> conditions,
      @JsonProperty("data") Map<String, Object> data,
      @JsonProperty("networkData") Optional<NetworkDeviceData> networkData) {
    this.conditions = conditions == null ? List.of() : List.copyOf(conditions);
    this.data = data == null ? Map.of() : Map.copyOf(data);
    this.networkData = networkData == null ? Optional.empty() : networkData;
  }

  /** A status with these conditions (at most 8), no data and no network data. */
  public static DeviceStatus of(List<Condition> conditions) {
    return new DeviceStatus(conditions, Map.of(), Optional.empty());
  }

  /** A single {@code Ready=True} condition. */
  public static DeviceStatus ready(String reason, String message) {
    return of(List.of(Condition.of("Ready", true, reason, message)));
  }

  /** This status with a driver-specific JSON object of at most 10 KiB instead of its data. */
  public DeviceStatus withData(Map<String, Object> value) {
    return new DeviceStatus(conditions, value, networkData);
  }

  /** This status with network facts (interface name, IPs in CIDR form, hardware address). */
  public DeviceStatus withNetworkData(NetworkDeviceData value) {
    return new DeviceStatus(conditions, data, Optional.of(value));
  }

  /** At most 8; by convention {@code Ready=True} once the device is configured. */
  public List<Condition> conditions() {
    return conditions;
  }

  /** A driver-specific JSON object of at most 10 KiB. */
  public Map<String, Object> data() {
    return data;
  }

  /** Interface name, IPs in CIDR form, hardware address. */
  public Optional<NetworkDeviceData> networkData() {
    return networkData;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceStatus s
        && conditions.equals(s.conditions)
        && data.equals(s.data)
        && networkData.equals(s.networkData);
  }

  @Override
  public int hashCode() {
    return Objects.hash(conditions, data, networkData);
  }

  @Override
  public String toString() {
    return "DeviceStatus[conditions="
        + conditions
        + ", data="
        + data
        + ", networkData="
        + networkData
        + "]";
  }
}
