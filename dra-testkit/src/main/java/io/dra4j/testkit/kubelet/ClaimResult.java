package io.dra4j.testkit.kubelet;

import java.util.List;
import java.util.Optional;

/**
 * The plugin's answer for one claim of a NodePrepareResources call.
 *
 * @param devices the devices (the kubelet ignores them when {@code error} is present)
 * @param error the per-claim error; the kubelet treats an empty string as success
 */
public record ClaimResult(List<DeviceResult> devices, Optional<String> error) {
  public ClaimResult {
    devices = List.copyOf(devices);
  }

  public boolean isOk() {
    return error.isEmpty();
  }
}
