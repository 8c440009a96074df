package io.dra4j.runtime.internal.kubelet;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One prepared device as the kubelet receives it in {@code NodePrepareResources}.
 *
 * @param requestNames the requests this device serves; the server strips {@code /<subrequest>}
 *     suffixes before sending. Empty means every request of the claim.
 * @param poolName pool name, required
 * @param deviceName device name, required
 * @param cdiDeviceIds fully qualified CDI device names ({@code vendor/class=name})
 * @param shareId share id of a device allocated with consumable capacity; sent over v1 only
 */
public record KubeletDevice(
    List<String> requestNames,
    String poolName,
    String deviceName,
    List<String> cdiDeviceIds,
    Optional<String> shareId) {

  public KubeletDevice {
    requestNames = List.copyOf(requestNames);
    Objects.requireNonNull(poolName, "poolName");
    Objects.requireNonNull(deviceName, "deviceName");
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
    Objects.requireNonNull(shareId, "shareId");
    if (poolName.isEmpty()) {
      throw new IllegalArgumentException(
          "KubeletDevice " + deviceName + ": poolName must not be empty (the kubelet requires it)");
    }
    if (deviceName.isEmpty()) {
      throw new IllegalArgumentException(
          "KubeletDevice in pool " + poolName + ": deviceName must not be empty");
    }
  }

  /** A device without a share id. */
  public static KubeletDevice of(
      List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds) {
    return new KubeletDevice(requestNames, poolName, deviceName, cdiDeviceIds, Optional.empty());
  }
}
