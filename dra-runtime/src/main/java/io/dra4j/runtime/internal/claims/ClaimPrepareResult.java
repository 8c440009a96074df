package io.dra4j.runtime.internal.claims;

import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of preparing one claim: either its devices as the checkpoint records them (the
 * kubelet's answer is made from the record, so a repeated prepare answers exactly the same), or an
 * error the kubelet reports on the pod (and retries later).
 *
 * @param devices the prepared devices; empty when {@code error} is present
 * @param error why this claim failed; never blank when present
 */
public record ClaimPrepareResult(List<CheckpointDevice> devices, Optional<String> error) {

  public ClaimPrepareResult {
    devices = List.copyOf(devices);
    Objects.requireNonNull(error, "error");
    if (error.isPresent()) {
      if (error.get().isBlank()) {
        throw new IllegalArgumentException(
            "ClaimPrepareResult error must not be blank: the kubelet treats an empty error as"
                + " success");
      }
      if (!devices.isEmpty()) {
        throw new IllegalArgumentException(
            "ClaimPrepareResult with an error must not carry devices (the kubelet ignores them)");
      }
    }
  }

  /** A successfully prepared claim. */
  public static ClaimPrepareResult ok(List<CheckpointDevice> devices) {
    return new ClaimPrepareResult(devices, Optional.empty());
  }

  /** A claim that failed; {@code error} must not be blank. */
  public static ClaimPrepareResult failed(String error) {
    return new ClaimPrepareResult(List.of(), Optional.of(error));
  }

  public boolean isOk() {
    return error.isEmpty();
  }
}
