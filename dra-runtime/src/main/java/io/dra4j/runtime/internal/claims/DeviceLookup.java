package io.dra4j.runtime.internal.claims;

import io.dra4j.api.device.Device;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Finds a device as this driver publishes it, for the attributes of the device metadata files
 * (KEP-5304).
 */
@FunctionalInterface
public interface DeviceLookup {

  /** The published device {@code device} of pool {@code pool}, if known. */
  Optional<Device> find(String pool, String device);

  /** A lookup that knows no device. */
  static DeviceLookup none() {
    return (pool, device) -> Optional.empty();
  }

  /**
   * A lookup over a map keyed by {@code pool/device}, read on each call (so it follows a changing
   * inventory).
   */
  static DeviceLookup fromMap(Supplier<Map<String, Device>> devicesByPoolSlashName) {
    Objects.requireNonNull(devicesByPoolSlashName, "devicesByPoolSlashName");
    return (pool, device) ->
        Optional.ofNullable(devicesByPoolSlashName.get().get(pool + "/" + device));
  }
}
