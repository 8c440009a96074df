package io.dra4j.numa;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects what a class logs through {@link System.Logger}, which the JDK routes to
 * java.util.logging when no other backend is installed (none is, on this module's class path).
 */
final class LogCapture extends Handler implements AutoCloseable {
  private final Logger logger;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();

  LogCapture(Class<?> source) {
    logger = Logger.getLogger(source.getName());
    setLevel(Level.ALL);
    logger.addHandler(this);
  }

  /** Formatted warnings, in order. */
  List<String> warnings() {
    return records.stream()
        .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
        .map(r -> new java.util.logging.SimpleFormatter().formatMessage(r))
        .toList();
  }

  @Override
  public void publish(LogRecord r) {
    records.add(r);
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
  }
}
