package io.dra4j.api.binding;

import java.util.Objects;

/**
 * How attaching one device stands, as {@link DeviceBinding#bindingStatus} reports it. The runtime
 * turns it into the device's conditions in {@code status.devices}:
 *
 * <ul>
 *   <li>{@link Pending}: every binding condition {@code False} with reason {@code Pending} and the
 *       message, so that {@code kubectl get resourceclaim -o yaml} shows what the pod waits for;
 *   <li>{@link Ready}: every binding condition {@code True} (reason {@code Ready}): the pod binds;
 *   <li>{@link Failed}: the first failure condition {@code True} with the reason and message, the
 *       binding conditions {@code False}: the scheduler deallocates and tries again elsewhere.
 * </ul>
 */
public sealed interface BindingStatus
    permits BindingStatus.Pending, BindingStatus.Ready, BindingStatus.Failed {

  /** Still attaching. */
  final class Pending implements BindingStatus {
    private final String message;

    private Pending(String message) {
      this.message = Objects.requireNonNull(message, "message");
    }

    public String message() {
      return message;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Pending p && message.equals(p.message);
    }

    @Override
    public int hashCode() {
      return message.hashCode();
    }

    @Override
    public String toString() {
      return "Pending[message=" + message + "]";
    }
  }

  /** Attached: the pod may bind. */
  final class Ready implements BindingStatus {
    private final String message;

    private Ready(String message) {
      this.message = Objects.requireNonNull(message, "message");
    }

    public String message() {
      return message;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Ready r && message.equals(r.message);
    }

    @Override
    public int hashCode() {
      return message.hashCode();
    }

    @Override
    public String toString() {
      return "Ready[message=" + message + "]";
    }
  }

  /** Attaching failed for good. */
  final class Failed implements BindingStatus {
    private final String reason;
    private final String message;

    private Failed(String reason, String message) {
      this.reason = Objects.requireNonNull(reason, "reason");
      this.message = Objects.requireNonNull(message, "message");
    }

    /** A CamelCase word for the condition's reason, e.g. {@code FabricTimeout}. */
    public String reason() {
      return reason;
    }

    public String message() {
      return message;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Failed f && reason.equals(f.reason) && message.equals(f.message);
    }

    @Override
    public int hashCode() {
      return Objects.hash(reason, message);
    }

    @Override
    public String toString() {
      return "Failed[reason=" + reason + ", message=" + message + "]";
    }
  }

  static BindingStatus pending(String message) {
    return new Pending(message);
  }

  static BindingStatus ready(String message) {
    return new Ready(message);
  }

  static BindingStatus failed(String reason, String message) {
    return new Failed(reason, message);
  }
}
