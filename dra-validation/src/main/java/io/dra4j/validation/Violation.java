package io.dra4j.validation;

import java.util.Objects;
import java.util.Optional;

/**
 * One broken rule of a desired pool. {@link #toString()} gives the message a user reads, e.g.
 * {@code pool "node-1", device "gpu-3": attributes["gpu.example.com/model"]: string value is 70
 * bytes, the limit is 64}.
 *
 * @param pool the pool name
 * @param device the device the rule is about, empty for pool-level rules
 * @param field the path of the field inside the device (or pool), e.g. {@code taints[2].key}
 * @param message what is wrong and what the rule is
 */
public record Violation(String pool, Optional<String> device, String field, String message) {
  public Violation {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("pool \"").append(pool).append('"');
    device.ifPresent(d -> sb.append(", device \"").append(d).append('"'));
    sb.append(": ");
    if (!field.isEmpty()) {
      sb.append(field).append(": ");
    }
    return sb.append(message).toString();
  }
}
