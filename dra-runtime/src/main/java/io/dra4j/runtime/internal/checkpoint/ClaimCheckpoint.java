package io.dra4j.runtime.internal.checkpoint;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedClaim;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The checkpoint record of one claim this driver prepared or is preparing.
 *
 * @param claim the claim
 * @param driverName the DRA driver that prepared it
 * @param state how far the prepare got
 * @param bootId the host's boot id when the record was written: a record from an earlier boot
 *     describes devices the reboot reset, so the pipeline prepares such a claim again
 * @param createdAt when the prepare started
 * @param updatedAt when the record was last written
 * @param devices the claim's devices for this driver
 */
public record ClaimCheckpoint(
    ClaimRef claim,
    String driverName,
    PrepareState state,
    String bootId,
    Instant createdAt,
    Instant updatedAt,
    List<CheckpointDevice> devices) {

  public ClaimCheckpoint {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(driverName, "driverName");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(bootId, "bootId");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    devices = List.copyOf(devices);
  }

  /** The record written before the provider is called. */
  public static ClaimCheckpoint started(
      ClaimRef claim,
      String driverName,
      List<CheckpointDevice> devices,
      String bootId,
      Instant now) {
    return new ClaimCheckpoint(
        claim, driverName, PrepareState.PREPARE_STARTED, bootId, now, now, devices);
  }

  /** This record, completed with the prepared devices; {@link #createdAt()} is kept. */
  public ClaimCheckpoint completed(
      List<CheckpointDevice> preparedDevices, String bootId, Instant now) {
    return new ClaimCheckpoint(
        claim, driverName, PrepareState.PREPARE_COMPLETED, bootId, createdAt, now, preparedDevices);
  }

  public boolean isCompleted() {
    return state == PrepareState.PREPARE_COMPLETED;
  }

  /** What {@code DeviceProvider.unprepare} gets for this claim. */
  public PreparedClaim toPreparedClaim() {
    return PreparedClaim.of(
        claim, devices.stream().map(CheckpointDevice::toRecordedDevice).toList(), isCompleted());
  }

  /** Every CDI id of the claim, in device order. */
  public List<String> cdiDeviceIds() {
    return devices.stream().flatMap(d -> d.cdiDeviceIds().stream()).toList();
  }
}
