package io.dra4j.kube;

import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.feature.FeatureGate;
import io.dra4j.api.status.NetworkDeviceData;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An entry of {@code status.devices}, written by the driver that owns the device. The list is a map
 * keyed by (driver, pool, device, shareID), so server-side apply merges entry by entry.
 *
 * @param driver the driver
 * @param pool the pool
 * @param device the device
 * @param shareID set for shared (multi-allocatable) devices
 * @param conditions at most 8, keyed by type
 * @param data a driver-specific JSON object of at most 10 KiB
 * @param networkData interface name, IPs, hardware address
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record AllocatedDeviceStatus(
    String driver,
    String pool,
    String device,
    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA) Optional<String> shareID,
    List<Condition> conditions,
    Optional<JsonNode> data,
    Optional<NetworkDeviceData> networkData,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public AllocatedDeviceStatus {
    driver = Objects.requireNonNull(driver, "driver");
    pool = Objects.requireNonNull(pool, "pool");
    device = Objects.requireNonNull(device, "device");
    shareID = Norm.opt(shareID);
    conditions = Norm.list(conditions);
    data = Norm.opt(data).filter(n -> !n.isNull()).map(JsonNode::deepCopy);
    networkData = Norm.opt(networkData);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static AllocatedDeviceStatus of(
      String driver, String pool, String device, List<Condition> conditions) {
    return new AllocatedDeviceStatus(driver, pool, device, null, conditions, null, null, null);
  }

  /** {@code driver/pool/device} plus {@code #shareID} when shared: the list-map key. */
  public String key() {
    return driver + "/" + pool + "/" + device + shareID.map(s -> "#" + s).orElse("");
  }
}
