package io.dra4j.testkit.kubelet;

import java.nio.file.Path;
import java.time.Instant;

/**
 * Something the simulator did with a registration socket, or with the node's ResourceSlices.
 *
 * @param kind what happened
 * @param registrationSocket the socket in the registration directory
 * @param driverName the plugin's name; empty when GetInfo failed
 * @param detail the rejection or failure reason, or a summary of the registration
 * @param time when
 */
public record SimulatorEvent(
    Kind kind, Path registrationSocket, String driverName, String detail, Instant time) {

  /** Event kinds. */
  public enum Kind {
    /** GetInfo validated and NotifyRegistrationStatus(true) delivered. */
    REGISTERED,
    /** The plugin was invalid; NotifyRegistrationStatus(false, reason) was sent. */
    REJECTED,
    /** A call failed (socket not answering, notify failed); retried with backoff. */
    FAILED,
    /** The socket disappeared or was re-created; the instance was dropped. */
    DEREGISTERED,
    /**
     * The node's ResourceSlices of the driver (of every driver when the name is empty) were
     * deleted, as the kubelet does ({@link KubeletSimulator#wipeSlices}); the socket is the
     * registration directory.
     */
    SLICES_WIPED
  }

  @Override
  public String toString() {
    return kind
        + " "
        + (driverName.isEmpty() ? "-" : driverName)
        + " "
        + registrationSocket
        + (detail.isEmpty() ? "" : ": " + detail);
  }
}
