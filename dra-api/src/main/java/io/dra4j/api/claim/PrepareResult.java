package io.dra4j.api.claim;

import java.util.List;
import java.util.Objects;

/** What {@code DeviceProvider.prepare} returns: one entry per allocated device, in any order. */
public final class PrepareResult {
  private final List<PreparedDevice> devices;

  private PrepareResult(List<PreparedDevice> devices) {
    this.devices = List.copyOf(devices);
  }

  public static PrepareResult of(List<PreparedDevice> devices) {
    return new PrepareResult(devices);
  }

  /** The prepared devices. */
  public List<PreparedDevice> devices() {
    return devices;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PrepareResult r && devices.equals(r.devices);
  }

  @Override
  public int hashCode() {
    return Objects.hash(devices);
  }

  @Override
  public String toString() {
    return "PrepareResult[devices=" + devices + "]";
  }
}
