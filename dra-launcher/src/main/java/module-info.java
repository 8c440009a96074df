/**
 * A driver's command line: {@code Launcher} with the {@code run} command (its flags, metrics and
 * status endpoint) and the {@code deviceclass} command, and the commands other artifacts contribute
 * ({@code LauncherCommand}).
 */
module io.dra4j.launcher {
  requires transitive io.dra4j.runtime;
  requires transitive jdk.httpserver;
  requires transitive org.slf4j;
  requires transitive info.picocli;
  requires io.dra4j.cel;
  requires io.dra4j.validation;
  requires io.prometheus.metrics.core;
  requires io.prometheus.metrics.exporter.httpserver;
  requires io.prometheus.metrics.instrumentation.jvm;
  requires transitive io.prometheus.metrics.model;
  requires io.prometheus.writer.text;

  exports io.dra4j.launcher;
  exports io.dra4j.launcher.logging;

  uses io.dra4j.api.provider.DeviceEnricher;
  uses io.dra4j.api.provider.DeviceProvider;
  uses io.dra4j.launcher.LauncherCommand;
  uses org.slf4j.spi.SLF4JServiceProvider;
}
