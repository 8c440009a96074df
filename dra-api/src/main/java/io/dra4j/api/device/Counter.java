package io.dra4j.api.device;

import java.util.Objects;

/** One counter of a counter set, or the amount of it a device consumes. */
public record Counter(Quantity value) {
  public Counter {
    Objects.requireNonNull(value, "counter value");
  }

  public static Counter of(Quantity value) {
    return new Counter(value);
  }
}
