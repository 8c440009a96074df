package io.dra4j.testkit.kubelet;

import java.util.List;
import java.util.Optional;

/**
 * One device of a prepared claim, as the plugin returned it.
 *
 * @param shareId always empty over v1beta1, which has no such field
 */
public record DeviceResult(
    List<String> requestNames,
    String poolName,
    String deviceName,
    List<String> cdiDeviceIds,
    Optional<String> shareId) {
  public DeviceResult {
    requestNames = List.copyOf(requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
  }
}
