package io.dra4j.runtime.errors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one outlet of a driver's background errors, set on {@code DraDriver.Builder#errorHandler} and
 * handed to every component the driver builds (the slice publisher, the extended-resource guard,
 * the health hub, the claim pipeline). A vendor's handler may count, alert or log differently; it
 * must not block, and it runs on the reporting component's thread. What it throws is logged and
 * ignored.
 *
 * <p>A handler decides nothing: a recoverable error is retried or skipped by its component whatever
 * the handler does, and after a fatal one the driver stops once the handler returns.
 */
@FunctionalInterface
public interface DriverErrorHandler {

  /** Hears one error. */
  void handle(DriverError error);

  /**
   * The default of every component: logs a recoverable error as a warning and a fatal one as an
   * error, with the cause's stack trace at debug level; never exits the JVM.
   */
  static DriverErrorHandler logging() {
    return Logging.INSTANCE;
  }

  /** Hands {@code error} to {@code handler}; what the handler throws is logged, not propagated. */
  static void report(DriverErrorHandler handler, DriverError error) {
    try {
      handler.handle(error);
    } catch (RuntimeException e) {
      Logging.LOG.warn("the error handler failed on \"{}\": {}", error.message(), e.toString(), e);
    }
  }
}

/** The default handler: the log. */
final class Logging implements DriverErrorHandler {
  static final Logger LOG = LoggerFactory.getLogger(DriverErrorHandler.class);
  static final Logging INSTANCE = new Logging();

  private Logging() {}

  @Override
  public void handle(DriverError error) {
    if (error.isFatal()) {
      LOG.error("{}", error.message());
    } else {
      LOG.warn("{}", error.message());
    }
    if (error.cause().isPresent() && LOG.isDebugEnabled()) {
      LOG.debug("cause of \"{}\"", error.message(), error.cause().get());
    }
  }

  @Override
  public String toString() {
    return "DriverErrorHandler.logging()";
  }
}
