package io.dra4j.examples.fake;

import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java processes a test starts from the shipped jars (the API server, drivers), each writing
 * standard output and standard error to its own log file; a timed-out wait shows every log.
 */
final class JarProcesses {
  private final List<Process> processes = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();

  /** Starts {@code java args...} with both output streams in {@code log}. */
  Process start(Path log, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(args));
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    processes.add(p);
    logs.add(log);
    return p;
  }

  /** The processes started, in order. */
  List<Process> all() {
    return List.copyOf(processes);
  }

  void killAll() {
    processes.forEach(Process::destroyForcibly);
  }

  /**
   * Polls {@code check} for up to 60 s (an exception counts as not yet); a failure shows the logs.
   */
  void await(Await.Check check, String what) {
    Await.until(
        what,
        Duration.ofSeconds(60),
        check,
        () -> {
          StringBuilder message = new StringBuilder();
          for (Path log : logs) {
            message.append(log.getFileName()).append(":\n").append(read(log)).append('\n');
          }
          return message.toString();
        });
  }

  /** A log's text so far, or why it could not be read. */
  static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** A GET of {@code path} on the loopback port. */
  static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
