package io.dra4j.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar fake-dra-driver.jar run} (or another example's jar) as a real process, as its
 * DaemonSet pod runs it: the shipped jar, the DaemonSet's JVM flags, a kubeconfig (in the tests,
 * the pod-bound ServiceAccount token of {@code cluster.sh token}), its own registrar, plugin and
 * CDI folders.
 */
final class DriverProcess implements AutoCloseable {
  static final String DRIVER = "gpu.example.com";

  private final Process process;
  private final String driverName;
  private final Path log;
  private final int healthPort;
  private final Path registry;
  private final Path plugins;
  private final Path cdi;

  private DriverProcess(
      Process process,
      String driverName,
      Path log,
      int healthPort,
      Path registry,
      Path plugins,
      Path cdi) {
    this.process = process;
    this.driverName = driverName;
    this.log = log;
    this.healthPort = healthPort;
    this.registry = registry;
    this.plugins = plugins;
    this.cdi = cdi;
  }

  static Builder builder(Path workDir, String node, Path kubeconfig) {
    return new Builder(workDir, node, kubeconfig);
  }

  static final class Builder {
    private final Path workDir;
    private final String node;
    private final Path kubeconfig;
    private String driverName = DRIVER;
    private String logName = "driver";
    private Path jar = Path.of(System.getProperty("dra4j.jar"));
    private Path registry;
    private Path plugins;
    private Path cdi;
    private final Map<String, String> flags = new LinkedHashMap<>();
    private final Map<String, String> systemProperties = new LinkedHashMap<>();

    private Builder(Path workDir, String node, Path kubeconfig) {
      this.workDir = workDir;
      this.node = node;
      this.kubeconfig = kubeconfig;
      this.registry = workDir.resolve("registry");
      this.plugins = workDir.resolve("plugins");
      this.cdi = workDir.resolve("cdi");
    }

    /** Default: {@value DriverProcess#DRIVER}. */
    Builder driverName(String value) {
      driverName = value;
      return this;
    }

    /** The log file's name in the work folder. Default: {@code driver}. */
    Builder logName(String value) {
      logName = value;
      return this;
    }

    /** The driver's shaded jar. Default: the fake driver's ({@code dra4j.jar}). */
    Builder jar(Path value) {
      jar = value;
      return this;
    }

    /** Shared folders, as two driver pods of one node share the host's. */
    Builder folders(Path registry, Path plugins, Path cdi) {
      this.registry = registry;
      this.plugins = plugins;
      this.cdi = cdi;
      return this;
    }

    /** Any other {@code run} flag, e.g. {@code flag("devices", "4")}. */
    Builder flag(String name, String value) {
      flags.put(name, value);
      return this;
    }

    /** A JVM system property, e.g. a crash point of the claim pipeline. Default: none. */
    Builder systemProperty(String name, String value) {
      systemProperties.put(name, value);
      return this;
    }

    DriverProcess start() {
      try {
        Files.createDirectories(registry);
        Files.createDirectories(plugins);
        Files.createDirectories(cdi);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
          port = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // The DaemonSet's JVM flags (deploy/daemonset.yaml), without the image's CDS archive.
        cmd.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-Xmx256m"));
        systemProperties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.add("run");
        Map<String, String> all = new LinkedHashMap<>();
        all.put("driver-name", driverName);
        all.put("node-name", node);
        all.put("kubeconfig", kubeconfig.toString());
        all.put("registrar-dir", registry.toString());
        all.put("plugin-dir", plugins.resolve(driverName).toString());
        all.put("cdi-dir", cdi.toString());
        all.put("health-port", Integer.toString(port));
        all.putAll(flags);
        all.forEach(
            (k, v) -> {
              cmd.add("--" + k);
              cmd.add(v);
            });
        Path log = workDir.resolve(logName + ".log");
        Process p =
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new DriverProcess(
            p, driverName, log, port, registry, plugins.resolve(driverName), cdi);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  String driverName() {
    return driverName;
  }

  Path registryDir() {
    return registry;
  }

  Path pluginDir() {
    return plugins;
  }

  Path cdiDir() {
    return cdi;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String log() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  /** GET on the health port; empty string and -1 status when the driver does not answer. */
  HttpResponse<String> health(String path) {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + path))
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static final String PREPARED =
      "dra4j_claim_operations_total{operation=\"prepare\",result=\"success\"}";
  static final String REPEATED =
      "dra4j_claim_operations_total{operation=\"prepare\",result=\"repeat\"}";
  static final String PREPARE_FAILED =
      "dra4j_claim_operations_total{operation=\"prepare\",result=\"error\"}";
  static final String UNPREPARED =
      "dra4j_claim_operations_total{operation=\"unprepare\",result=\"success\"}";

  /**
   * One sample of the driver's {@code /metrics}, named with its labels as the text format writes
   * them (e.g. {@link #PREPARED}), or -1 while the driver does not answer.
   */
  long metric(String series) {
    HttpResponse<String> r;
    try {
      r = health("/metrics");
    } catch (UncheckedIOException e) {
      return -1;
    }
    for (String line : r.body().split("\n")) {
      if (line.startsWith(series + " ")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new IllegalStateException("no metric " + series + " in:\n" + r.body());
  }

  /**
   * Waits up to {@code timeout} for the process to exit on its own: its status, or -1 while it
   * still runs.
   *
   * @throws IllegalStateException when interrupted
   */
  int waitFor(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the driver to exit", e);
    }
  }

  /** SIGTERM, as the kubelet stops a pod; waits for the exit and returns its status. */
  int stop() {
    process.destroy();
    return waitExit();
  }

  /** SIGKILL: a crash. */
  int kill() {
    process.destroyForcibly();
    return waitExit();
  }

  private int waitExit() {
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      waitExit();
    }
  }
}
