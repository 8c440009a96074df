package io.dra4j.api.claim;

import java.util.List;
import java.util.Objects;

/** What {@code DeviceProvider.unprepare} gets: the claim and the devices recorded for it. */
public final class PreparedClaim {
  private final ClaimRef claim;
  private final List<RecordedDevice> devices;
  private final boolean completed;

  private PreparedClaim(ClaimRef claim, List<RecordedDevice> devices, boolean completed) {
    this.claim = Objects.requireNonNull(claim, "claim");
    this.devices = List.copyOf(devices);
    this.completed = completed;
  }

  /**
   * A claim to unprepare.
   *
   * @param claim the claim
   * @param devices the devices prepared, or being prepared when the driver stopped
   * @param completed false when prepare never finished (a crash mid-prepare)
   */
  public static PreparedClaim of(ClaimRef claim, List<RecordedDevice> devices, boolean completed) {
    return new PreparedClaim(claim, devices, completed);
  }

  /** The claim. */
  public ClaimRef claim() {
    return claim;
  }

  /** The devices prepared, or being prepared when the driver stopped. */
  public List<RecordedDevice> devices() {
    return devices;
  }

  /** False when prepare never finished (a crash mid-prepare): undo what may exist. */
  public boolean completed() {
    return completed;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PreparedClaim p
        && claim.equals(p.claim)
        && devices.equals(p.devices)
        && completed == p.completed;
  }

  @Override
  public int hashCode() {
    return Objects.hash(claim, devices, completed);
  }

  @Override
  public String toString() {
    return "PreparedClaim[claim="
        + claim
        + ", devices="
        + devices
        + ", completed="
        + completed
        + "]";
  }
}
