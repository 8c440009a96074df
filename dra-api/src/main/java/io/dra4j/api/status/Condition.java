package io.dra4j.api.status;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * A metav1.Condition without the times: the runtime sets {@code lastTransitionTime} when it applies
 * the status.
 */
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class Condition {
  private final String type;
  private final String status;
  private final String reason;
  private final String message;

  @JsonCreator
  private Condition(
      @JsonProperty("type") String type,
      @JsonProperty("status") String status,
      @JsonProperty("reason") String reason,
      @JsonProperty("message") String message) {
    this.type = Objects.requireNonNull(type, "condition type");
    this.status = Objects.requireNonNull(status, "condition status");
    this.reason = Objects.requireNonNull(reason, "condition reason");
    this.message = Objects.requireNonNull(message, "condition message");
  }

  /**
   * A condition that is {@code True} or {@code False}.
   *
   * @param type CamelCase condition type, e.g. {@code Ready}
   * @param status whether it holds
   * @param reason CamelCase reason
   * @param message human-readable detail
   */
  public static Condition of(String type, boolean status, String reason, String message) {
    return of(type, status ? "True" : "False", reason, message);
  }

  /**
   * A condition with the status spelled out: {@code True}, {@code False} or {@code Unknown}.
   *
   * @param type CamelCase condition type, e.g. {@code Ready}
   * @param status {@code True}, {@code False} or {@code Unknown}
   * @param reason CamelCase reason
   * @param message human-readable detail
   */
  public static Condition of(String type, String status, String reason, String message) {
    return new Condition(type, status, reason, message);
  }

  /** CamelCase condition type, e.g. {@code Ready}. */
  public String type() {
    return type;
  }

  /** {@code True}, {@code False} or {@code Unknown}. */
  public String status() {
    return status;
  }

  /** CamelCase reason. */
  public String reason() {
    return reason;
  }

  /** Human-readable detail. */
  public String message() {
    return message;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Condition c
        && type.equals(c.type)
        && status.equals(c.status)
        && reason.equals(c.reason)
        && message.equals(c.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, status, reason, message);
  }

  @Override
  public String toString() {
    return "Condition[type="
        + type
        + ", status="
        + status
        + ", reason="
        + reason
        + ", message="
        + message
        + "]";
  }
}
