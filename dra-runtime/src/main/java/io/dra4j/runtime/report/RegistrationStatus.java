package io.dra4j.runtime.report;

import java.time.Instant;
import java.util.Objects;

/**
 * What the kubelet last said about this plugin's registration ({@code NotifyRegistrationStatus}).
 *
 * @param registered true when the kubelet accepted the plugin
 * @param error the kubelet's reason when it did not; empty otherwise
 * @param receivedAt when the notification arrived
 */
public record RegistrationStatus(boolean registered, String error, Instant receivedAt) {
  public RegistrationStatus {
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(receivedAt, "receivedAt");
  }
}
