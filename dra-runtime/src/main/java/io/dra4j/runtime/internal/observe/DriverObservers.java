package io.dra4j.runtime.internal.observe;

import io.dra4j.runtime.DraDriver;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * The seam through which dra4j's own modules hand a {@link DraDriver.Builder} its {@link
 * DriverObserver}, as OkHttp's {@code Internal} does: the builder's public API names no internal
 * type, and the builder installs the setter when its class initialises.
 */
public final class DriverObservers {
  private static volatile BiConsumer<DraDriver.Builder, DriverObserver> setter;

  private DriverObservers() {}

  /**
   * Called once, by {@link DraDriver.Builder}'s class initialisation.
   *
   * @throws IllegalStateException when a setter was installed already
   */
  public static synchronized void install(BiConsumer<DraDriver.Builder, DriverObserver> value) {
    if (setter != null) {
      throw new IllegalStateException("a DriverObserver setter is installed already");
    }
    setter = Objects.requireNonNull(value, "setter");
  }

  /** {@code builder}, whose driver will report to {@code observer}. */
  public static DraDriver.Builder observe(DraDriver.Builder builder, DriverObserver observer) {
    // A builder exists, so its class has initialised and installed the setter.
    setter.accept(Objects.requireNonNull(builder, "builder"), Objects.requireNonNull(observer));
    return builder;
  }
}
