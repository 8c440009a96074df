package io.dra4j.launcher.logging;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The launcher's logging: one line per event on standard error ({@code 2026-01-02T03:04:05.678Z
 * WARN SlicePublisher: message}), at the level of {@code --log-level}. It is used only when the
 * class path has no SLF4J binding of its own, so a driver that ships logback keeps it; the library
 * never registers it as a service, so embedding dra4j imposes nothing.
 *
 * <p>A multi-line message is joined with {@code " | "}; an exception adds its class and message and
 * those of its causes to the line; its stack trace follows on its own lines at {@code debug} and
 * {@code trace} only.
 */
public final class LineLogging implements SLF4JServiceProvider {
  /** The level when {@code --log-level} (or {@link #LEVEL_VARIABLE}) is not given. */
  public static final Level DEFAULT_LEVEL = Level.INFO;

  /**
   * The environment variable of the level, {@code --log-level}'s: read before anything logs, so its
   * name is a constant here rather than a field of a class whose loading logs.
   */
  public static final String LEVEL_VARIABLE = "LOG_LEVEL";

  private static volatile Level threshold = DEFAULT_LEVEL;
  private static volatile PrintStream out = System.err;

  private static final String SIMPLE_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";
  private static volatile boolean simpleLevelSetHere;

  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();

  /** For SLF4J, which instantiates providers itself. */
  public LineLogging() {}

  /**
   * Makes this binding SLF4J's, unless the class path brings one or {@code slf4j.provider} names
   * one. Call it before anything asks SLF4J for a logger; calling it again sets the level.
   *
   * @return whether this binding is used; when not, the level is up to the other binding (for
   *     slf4j-simple it is passed on, unless its own property is set)
   */
  public static boolean install(Level level) {
    threshold = level;
    if (System.getProperty("slf4j.provider") != null) {
      return LineLogging.class.getName().equals(System.getProperty("slf4j.provider"));
    }
    Optional<SLF4JServiceProvider> other =
        ServiceLoader.load(SLF4JServiceProvider.class).findFirst();
    if (other.isPresent()) {
      if (other.get().getClass().getName().equals("org.slf4j.simple.SimpleServiceProvider")
          && (simpleLevelSetHere || System.getProperty(SIMPLE_LEVEL) == null)) {
        // Read when slf4j-simple starts: a later call counts only if nothing logged yet.
        System.setProperty(SIMPLE_LEVEL, level.name().toLowerCase(Locale.ROOT));
        simpleLevelSetHere = true;
      }
      return false;
    }
    System.setProperty("slf4j.provider", LineLogging.class.getName());
    if (System.getProperty("slf4j.internal.verbosity") == null) {
      // Otherwise SLF4J announces on standard error that it loads the provider just named.
      System.setProperty("slf4j.internal.verbosity", "WARN");
    }
    return true;
  }

  /**
   * Parses a level name as {@code --log-level} takes it.
   *
   * @throws IllegalArgumentException naming the levels
   */
  public static Level parseLevel(String name) {
    for (Level l : Level.values()) {
      if (l.name().equalsIgnoreCase(name.trim())) {
        return l;
      }
    }
    throw new IllegalArgumentException(
        "log level \"" + name + "\" must be one of error, warn, info, debug, trace");
  }

  /** Where lines go (standard error unless a test says otherwise). */
  static void output(PrintStream stream) {
    out = stream;
  }

  static void threshold(Level level) {
    threshold = level;
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return LineLogger::new;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  /** The line for one event. */
  static String format(Instant time, Level level, String logger, String message, Throwable t) {
    StringBuilder line = new StringBuilder(128);
    // Padded by hand: String.format parses its pattern on every call, a fifth of a line's cost.
    String name = level.name();
    line.append(time).append(' ').append(name).append(" ".repeat(6 - name.length()));
    line.append(logger.substring(logger.lastIndexOf('.') + 1)).append(": ");
    line.append(message == null ? "" : message.strip().replace("\n", " | "));
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      line.append(c == t ? ": " : "; caused by ").append(c.toString().replace("\n", " | "));
    }
    return line.toString();
  }

  private static final class LineLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    LineLogger(String name) {
      this.name = name;
    }

    private static boolean on(Level level) {
      return level.toInt() >= threshold.toInt();
    }

    @Override
    public boolean isTraceEnabled() {
      return on(Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
      return on(Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
      return on(Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
      return on(Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
      return on(Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
      String message = MessageFormatter.basicArrayFormat(pattern, arguments);
      String line = format(Instant.now(), level, name, message, throwable);
      PrintStream stream = out;
      synchronized (stream) {
        stream.println(line);
        if (throwable != null && threshold.toInt() <= Level.DEBUG.toInt()) {
          throwable.printStackTrace(stream);
        }
      }
    }
  }

  /** A logger of this binding, for tests that do not go through SLF4J's provider lookup. */
  static Logger logger(String name) {
    return new LineLogger(name);
  }
}
