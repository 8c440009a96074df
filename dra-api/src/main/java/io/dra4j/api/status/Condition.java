package io.dra4j.api.status;

import java.util.Objects;

/**
 * A metav1.Condition without the times: the runtime sets {@code lastTransitionTime} when it applies
 * the status.
 *
 * @param type CamelCase condition type, e.g. {@code Ready}
 * @param status {@code True}, {@code False} or {@code Unknown}
 * @param reason CamelCase reason
 * @param message human-readable detail
 */
public record Condition(String type, String status, String reason, String message) {
  public Condition {
    Objects.requireNonNull(type, "condition type");
    Objects.requireNonNull(status, "condition status");
    Objects.requireNonNull(reason, "condition reason");
    Objects.requireNonNull(message, "condition message");
  }

  public static Condition of(String type, boolean status, String reason, String message) {
    return new Condition(type, status ? "True" : "False", reason, message);
  }
}
