package io.dra4j.api.claim;

import java.util.List;

/**
 * What {@code DeviceProvider.prepare} returns: one entry per allocated device, in any order.
 *
 * @param devices prepared devices
 */
public record PrepareResult(List<PreparedDevice> devices) {
  public PrepareResult {
    devices = List.copyOf(devices);
  }

  public static PrepareResult of(List<PreparedDevice> devices) {
    return new PrepareResult(devices);
  }
}
