package io.dra4j.launcher.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.event.Level;

class LineLoggingTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  @AfterEach
  void restore() {
    LineLogging.output(System.err);
    LineLogging.threshold(LineLogging.DEFAULT_LEVEL);
  }

  private Logger logger(Level level) {
    LineLogging.output(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    LineLogging.threshold(level);
    return LineLogging.logger("io.dra4j.runtime.internal.slices.SlicePublisher");
  }

  private String lines() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void oneLinePerEventWithTimeLevelAndShortLoggerName() {
    assertThat(
            LineLogging.format(
                Instant.parse("2026-01-02T03:04:05.678Z"),
                Level.WARN,
                "io.dra4j.runtime.internal.slices.SlicePublisher",
                "pool \"node-1\" is published, but:\nfirst\nsecond",
                new IllegalStateException("outer", new java.io.IOException("inner"))))
        .isEqualTo(
            "2026-01-02T03:04:05.678Z WARN  SlicePublisher: pool \"node-1\" is published, but:"
                + " | first | second: java.lang.IllegalStateException: outer; caused by"
                + " java.io.IOException: inner");
  }

  @Test
  void theLevelFiltersAndStackTracesAppearOnlyAtDebug() {
    Logger log = logger(Level.INFO);
    log.debug("hidden {}", 1);
    log.info("shown {} of {}", 1, 2);
    log.warn("failed", new IllegalStateException("boom"));
    String[] lines = lines().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(lines[0]).endsWith("INFO  SlicePublisher: shown 1 of 2");
    assertThat(lines[1])
        .endsWith("WARN  SlicePublisher: failed: java.lang.IllegalStateException: boom");

    bytes.reset();
    log = logger(Level.DEBUG);
    log.debug("now shown");
    log.error("failed", new IllegalStateException("boom"));
    assertThat(lines()).contains("DEBUG SlicePublisher: now shown").contains("\tat ");
  }

  @Test
  void levelsParseByName() {
    assertThat(LineLogging.parseLevel("debug")).isEqualTo(Level.DEBUG);
    assertThat(LineLogging.parseLevel(" WARN ")).isEqualTo(Level.WARN);
    assertThatThrownBy(() -> LineLogging.parseLevel("verbose"))
        .hasMessage("log level \"verbose\" must be one of error, warn, info, debug, trace");
  }
}
