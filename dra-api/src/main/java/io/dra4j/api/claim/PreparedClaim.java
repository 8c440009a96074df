package io.dra4j.api.claim;

import java.util.List;
import java.util.Objects;

/**
 * What {@code DeviceProvider.unprepare} gets: the claim and the devices recorded for it.
 *
 * @param claim the claim
 * @param devices the devices prepared, or being prepared when the driver stopped
 * @param completed false when prepare never finished (a crash mid-prepare): undo what may exist
 */
public record PreparedClaim(ClaimRef claim, List<RecordedDevice> devices, boolean completed) {
  public PreparedClaim {
    Objects.requireNonNull(claim, "claim");
    devices = List.copyOf(devices);
  }
}
