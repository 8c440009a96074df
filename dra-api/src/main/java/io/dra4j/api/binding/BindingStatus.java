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
public sealed interface BindingStatus {

  /** Still attaching. */
  record Pending(String message) implements BindingStatus {
    public Pending {
      Objects.requireNonNull(message, "message");
    }
  }

  /** Attached: the pod may bind. */
  record Ready(String message) implements BindingStatus {
    public Ready {
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * Attaching failed for good.
   *
   * @param reason a CamelCase word for the condition's reason, e.g. {@code FabricTimeout}
   */
  record Failed(String reason, String message) implements BindingStatus {
    public Failed {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
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
