package io.dra4j.launcher;

import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.launcher.internal.status.StatusServer;
import io.dra4j.launcher.logging.LineLogging;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.internal.observe.DriverObservers;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's launcher: {@code run} reads its {@link DriverSettings}, finds the {@link
 * DeviceProvider} and every {@link DeviceEnricher} on the class path with {@link ServiceLoader},
 * connects to the API server (kubeconfig or in-cluster), starts the status endpoint and a {@link
 * DraDriver}, and stops gracefully on SIGTERM. {@code main} is a {@link Launcher} with the built-in
 * commands ({@code DriverMain run ...}, {@code DriverMain deviceclass ...}, {@code DriverMain
 * doctor ...}); a vendor's {@code main} adds its own.
 *
 * <p>Exit status of {@code run}: after SIGTERM the JVM reports 143 (128 + signal 15) once the
 * graceful close ran; 1 when the driver failed to start or stopped on its own (the
 * extended-resource guard's {@code fail} policy); 2 for a usage or configuration error; 0 when
 * {@link #run} returns normally in-process.
 */
public final class DriverMain {
  private DriverMain() {}

  public static void main(String[] args) {
    Launcher.named(DriverMain.class.getName()).main(args);
  }

  /**
   * Runs a driver until it is stopped: the {@code run} command of a {@link Launcher}.
   *
   * @param defaults flag values used when neither the flag nor its environment variable is given,
   *     by flag name without dashes, e.g. {@code provider=fake, driver-name=gpu.example.com}: how a
   *     vendor's launcher sets its own defaults
   * @param out where {@code --help} goes
   * @param err where errors go
   * @return the process exit status
   */
  public static int run(
      List<String> args,
      Map<String, String> defaults,
      Map<String, String> env,
      PrintStream out,
      PrintStream err) {
    DriverSettings options;
    try {
      options = DriverSettings.parse(args, defaults, env);
    } catch (DriverSettings.HelpRequested help) {
      out.println(help.getMessage());
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(DriverSettings.usage(defaults));
      return Launcher.EXIT_USAGE;
    }
    // Before this class asks SLF4J for a logger; a Launcher installed the binding already.
    LineLogging.install(options.logLevel());
    Logger log = LoggerFactory.getLogger(DriverMain.class);
    DeviceProvider provider;
    HttpKubeClient client;
    DriverMetrics metrics = DriverMetrics.create();
    try {
      provider = findProvider(options.provider());
      client =
          options
              .applyTo(
                  HttpKubeClient.builder(
                      options
                          .kubeconfig()
                          .map(KubeConfig::fromKubeconfig)
                          .orElseGet(KubeConfig::inCluster)))
              .observer(metrics.apiRequests())
              .build();
    } catch (IllegalStateException | IllegalArgumentException | ServiceConfigurationError e) {
      err.println("error: " + e.getMessage());
      return Launcher.EXIT_USAGE;
    }
    List<DeviceEnricher> enrichers = loadEnrichers();

    DraDriver driver;
    try {
      driver =
          DriverObservers.observe(options.applyTo(DraDriver.builder()), metrics.observer())
              .provider(provider)
              .enrichers(enrichers)
              .kubeClient(client)
              .build();
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      client.close();
      return Launcher.EXIT_USAGE;
    }
    StatusServer status = null;
    Thread hook = new Thread(driver::close, "dra4j-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      // Probes get answers while the driver starts: alive, not yet ready.
      if (options.healthPort() >= 0) {
        status =
            StatusServer.start(
                options.healthSocketAddress(),
                driver::isAlive,
                driver::isReady,
                () -> DriverReports.statusJson(driver),
                metrics.httpHandler());
      }
      driver.start();
      driver.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.error("driver {} failed: {}", options.driverName(), e.toString(), e);
      err.println("error: " + e.getMessage());
      return 1;
    } finally {
      driver.close();
      if (status != null) {
        status.close();
      }
      client.close();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // The JVM is already shutting down (a signal): the hook is running.
      }
    }
    if (driver.fatalReason().isPresent()) {
      err.println("error: " + driver.fatalReason().get());
      return 1;
    }
    return 0;
  }

  /**
   * The provider named {@code name}, or the only one on the class path. The others found are closed
   * again.
   *
   * @throws IllegalStateException listing what was found when the choice is impossible
   */
  public static DeviceProvider findProvider(Optional<String> name) {
    List<DeviceProvider> all = new ArrayList<>();
    ServiceLoader.load(DeviceProvider.class).forEach(all::add);
    String found = all.stream().map(DeviceProvider::name).collect(Collectors.joining(", "));
    Optional<DeviceProvider> chosen;
    if (name.isPresent()) {
      chosen = all.stream().filter(p -> p.name().equals(name.get())).findFirst();
    } else {
      chosen = all.size() == 1 ? Optional.of(all.get(0)) : Optional.empty();
    }
    for (DeviceProvider p : all) {
      if (chosen.isEmpty() || p != chosen.get()) {
        p.close();
      }
    }
    if (chosen.isPresent()) {
      return chosen.get();
    }
    if (name.isPresent()) {
      throw new IllegalStateException(
          "no DeviceProvider named \""
              + name.get()
              + "\" on the class path (found: "
              + (found.isEmpty() ? "none" : found)
              + ")");
    }
    throw new IllegalStateException(
        all.isEmpty()
            ? "no DeviceProvider on the class path: list yours in"
                + " META-INF/services/io.dra4j.api.provider.DeviceProvider"
            : "several DeviceProviders on the class path ("
                + found
                + "): choose one with --provider");
  }

  /** Every {@link DeviceEnricher} on the class path, in ServiceLoader order. */
  public static List<DeviceEnricher> loadEnrichers() {
    List<DeviceEnricher> enrichers = new ArrayList<>();
    ServiceLoader.load(DeviceEnricher.class).forEach(enrichers::add);
    return enrichers;
  }
}
