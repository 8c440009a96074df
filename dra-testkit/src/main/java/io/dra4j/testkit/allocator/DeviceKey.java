package io.dra4j.testkit.allocator;

import java.util.Objects;

/**
 * The identity of a device in the cluster, as allocation results name it: driver, pool and device
 * name. (A device that allows multiple allocations is additionally told apart per allocation by its
 * shareID, which is not part of this key.)
 *
 * @param driver the driver name
 * @param pool the pool name
 * @param device the device name, unique in the pool
 */
public record DeviceKey(String driver, String pool, String device) {

  public DeviceKey {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
  }

  /** {@code driver/pool/device}. */
  @Override
  public String toString() {
    return driver + "/" + pool + "/" + device;
  }
}
