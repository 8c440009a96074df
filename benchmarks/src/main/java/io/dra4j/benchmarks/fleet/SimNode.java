package io.dra4j.benchmarks.fleet;

import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.report.PublisherStats;
import io.dra4j.testkit.kubelet.DraManager;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One simulated node in the harness's JVM: a driver built as a DaemonSet pod builds it (its own
 * {@link DraDriver} with the fake provider, so its own publisher, guard and health hub, and its own
 * API client at the client's default rate limit), its sockets in the node's own folder, and a
 * kubelet simulator on that folder's registry, with the kubelet's DRA manager to prepare the pods
 * the real scheduler binds to the node.
 */
final class SimNode implements AutoCloseable {
  static final String DRIVER = "gpu.example.com";

  final String name;
  final Path dir;
  final RequestCounter requests;
  final FakeDeviceProvider provider = new FakeDeviceProvider();
  private final HttpKubeClient client;
  private final KubeletSimulator kubelet;
  private final DraManager dra;
  private final DraDriver driver;
  private final AtomicLong errors = new AtomicLong();
  private volatile String firstError = "";

  SimNode(
      String name,
      Path dir,
      Path kubeconfig,
      RequestCounter requests,
      KubeClient kubeletClient,
      int devices,
      Duration recoveryDelay,
      Duration kubeletPoll)
      throws IOException {
    this.name = name;
    this.dir = dir;
    this.requests = requests;
    Path registry = Files.createDirectories(dir.resolve("registry"));
    Path cdi = Files.createDirectories(dir.resolve("cdi"));
    Path sys = Files.createDirectories(dir.resolve("sys"));
    // The client's defaults (rate limit, deadline, retries), as a driver pod gets them.
    this.client =
        HttpKubeClient.builder(KubeConfig.fromKubeconfig(kubeconfig))
            .observer(requests)
            .userAgent("dra4j-fleet/" + name)
            .build();
    this.kubelet = KubeletSimulator.start(registry, kubeletPoll);
    this.dra = kubelet.draManager(kubeletClient);
    this.driver =
        DraDriver.builder()
            .driverName(DRIVER)
            .nodeName(name)
            .provider(provider)
            .kubeClient(client)
            .registrarDirectory(registry)
            .pluginDirectory(dir.resolve("plugins").resolve(DRIVER))
            .cdiDirectory(cdi)
            .sysfsRoot(sys)
            .config(Map.of(FakeDeviceProvider.CONFIG_DEVICES, Integer.toString(devices)))
            .healthRecoveryDelay(recoveryDelay)
            .errorHandler(this::error)
            .build();
  }

  private void error(DriverError e) {
    if (errors.getAndIncrement() == 0) {
      firstError = e.message();
    }
  }

  void start() throws IOException, InterruptedException {
    driver.start();
  }

  /** The kubelet's DRA manager of this node. */
  DraManager kubelet() {
    return dra;
  }

  PublisherStats publisher() {
    return driver.publisherStats().orElse(new PublisherStats(0, 0, 0, 0, 0, 0, 0, 0));
  }

  long errors() {
    return errors.get();
  }

  String firstError() {
    return firstError;
  }

  boolean isReady() {
    return driver.isReady();
  }

  @Override
  public void close() {
    driver.close();
    kubelet.close();
    client.close();
  }
}
