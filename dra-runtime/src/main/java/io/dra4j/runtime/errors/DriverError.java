package io.dra4j.runtime.errors;

import java.util.Objects;
import java.util.Optional;

/**
 * One error of a driver's background work, as its {@link DriverErrorHandler} hears it.
 *
 * @param source the component that met it
 * @param severity whether the driver goes on by itself
 * @param message what went wrong, naming the object (pool, device, claim, class) and the rule, in
 *     words fit for the driver's log
 * @param cause the exception behind it, when there is one
 */
public record DriverError(
    Source source, Severity severity, String message, Optional<Throwable> cause) {

  /** The component that reports. */
  public enum Source {
    /** {@code DeviceProvider.discover} or an enricher; retried with backoff. */
    DISCOVERY,
    /** The slice publisher: failed writes (retried), invalid pools, dropped fields. */
    SLICES,
    /** The extended-resource guard (its {@code fail} policy reports a fatal error). */
    EXTENDED_RESOURCES,
    /** The health hub: subscribers, taint listeners, taints that do not fit. */
    HEALTH,
    /** The claim pipeline: recovery, unreadable checkpoint records, listeners. */
    CLAIMS,
    /** The kubelet plugin sockets: a registration the kubelet refused. */
    KUBELET
  }

  /** Whether the driver goes on. */
  public enum Severity {
    /** The component retries or skips what is wrong; the driver keeps serving. */
    RECOVERABLE,
    /** The driver cannot go on: a {@code DraDriver} closes itself after the handler returns. */
    FATAL
  }

  public DriverError {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(cause, "cause");
  }

  /** A recoverable error without an exception behind it. */
  public static DriverError recoverable(Source source, String message) {
    return new DriverError(source, Severity.RECOVERABLE, message, Optional.empty());
  }

  /** A recoverable error caused by {@code cause}. */
  public static DriverError recoverable(Source source, String message, Throwable cause) {
    return new DriverError(
        source, Severity.RECOVERABLE, message, Optional.of(Objects.requireNonNull(cause)));
  }

  /** A fatal error: the driver must stop. */
  public static DriverError fatal(Source source, String message) {
    return new DriverError(source, Severity.FATAL, message, Optional.empty());
  }

  public boolean isFatal() {
    return severity == Severity.FATAL;
  }
}
