package io.dra4j.runtime;

import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.runtime.kube.HttpKubeClient;
import io.dra4j.runtime.kube.KubeClient;
import io.dra4j.runtime.kube.KubeConfig;
import io.dra4j.runtime.status.StatusServer;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command-line launcher of a driver: parses {@link DriverOptions}, finds the {@link
 * DeviceProvider} and every {@link DeviceEnricher} on the class path with {@link ServiceLoader},
 * connects to the API server (kubeconfig or in-cluster), starts a {@link DraDriver} and the status
 * endpoint, and stops gracefully on SIGTERM.
 *
 * <p>Exit codes: 0 after a signal, 1 when the driver stopped on its own (e.g. the extended-resource
 * guard's {@code fail} policy), 2 for a usage error.
 */
public final class DriverMain {
  private static final Logger LOG = LoggerFactory.getLogger(DriverMain.class);

  private DriverMain() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), Optional.empty(), System.getenv(), System.err));
  }

  /**
   * Runs a driver until it is stopped.
   *
   * @param defaultProvider the provider to use when {@code --provider} is not given and several are
   *     on the class path
   * @return the process exit code
   */
  public static int run(
      List<String> args,
      Optional<String> defaultProvider,
      Map<String, String> env,
      PrintStream err) {
    DriverOptions options;
    try {
      options = DriverOptions.parse(args, env);
    } catch (DriverOptions.HelpRequested help) {
      err.println(DriverOptions.USAGE);
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(DriverOptions.USAGE);
      return 2;
    }
    DeviceProvider provider;
    try {
      provider = findProvider(options.provider().or(() -> defaultProvider));
    } catch (IllegalStateException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
    List<DeviceEnricher> enrichers = new ArrayList<>();
    ServiceLoader.load(DeviceEnricher.class).forEach(enrichers::add);

    KubeClient client =
        HttpKubeClient.builder(
                options
                    .kubeconfig()
                    .map(KubeConfig::fromKubeconfig)
                    .orElseGet(KubeConfig::inCluster))
            .rateLimit(options.kubeApiQps(), options.kubeApiBurst())
            .build();
    DraDriver.Builder builder =
        DraDriver.builder()
            .driverName(options.driverName())
            .nodeName(options.nodeName())
            .provider(provider)
            .enrichers(enrichers)
            .kubeClient(client)
            .registrarDirectory(options.registrarDirectory())
            .pluginDirectory(options.pluginDirectory())
            .cdiDirectory(options.cdiDirectory())
            .sysfsRoot(options.sysfsRoot())
            .devRoot(options.devRoot())
            .config(options.providerConfig())
            .healthTaintEffect(options.healthTaintEffect())
            .healthRecoveryDelay(options.healthRecoveryDelay())
            .extendedResourcePolicy(options.extendedResourceConflict())
            .deviceMetadata(options.deviceMetadata())
            .warmUp(options.warmUp());
    options.podUid().ifPresent(builder::podUid);
    DraDriver driver = builder.build();
    StatusServer status = null;
    Thread hook = new Thread(driver::close, "dra4j-shutdown");
    try {
      Runtime.getRuntime().addShutdownHook(hook);
      driver.start();
      if (options.healthPort() >= 0) {
        status =
            StatusServer.start(
                "0.0.0.0",
                options.healthPort(),
                driver::isAlive,
                driver::isReady,
                () -> DriverReports.statusJson(driver),
                () -> DriverReports.metricsText(driver));
      }
      driver.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.error("driver {} failed to start: {}", options.driverName(), e.toString(), e);
      err.println("error: " + e.getMessage());
      driver.close();
      return 1;
    } finally {
      if (status != null) {
        status.close();
      }
      client.close();
    }
    return driver.fatalReason().isPresent() ? 1 : 0;
  }

  /**
   * The provider named {@code name}, or the only one on the class path.
   *
   * @throws IllegalStateException listing what was found when the choice is impossible
   */
  static DeviceProvider findProvider(Optional<String> name) {
    List<DeviceProvider> all = new ArrayList<>();
    ServiceLoader.load(DeviceProvider.class).forEach(all::add);
    String found = all.stream().map(DeviceProvider::name).collect(Collectors.joining(", "));
    if (name.isPresent()) {
      return all.stream()
          .filter(p -> p.name().equals(name.get()))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no DeviceProvider named \""
                          + name.get()
                          + "\" on the class path (found: "
                          + (found.isEmpty() ? "none" : found)
                          + ")"));
    }
    if (all.size() == 1) {
      return all.get(0);
    }
    throw new IllegalStateException(
        all.isEmpty()
            ? "no DeviceProvider on the class path: list yours in"
                + " META-INF/services/io.dra4j.api.provider.DeviceProvider"
            : "several DeviceProviders on the class path ("
                + found
                + "): choose one with --provider");
  }
}
