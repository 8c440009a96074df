package io.dra4j.testkit.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.runtime.DraDriver;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One node for the driver tests: the test kit's API server holding the node, the kubelet simulator
 * with its registry under a test's folder, and a {@link DraDriver} that registers with it over real
 * sockets. Closing stops the driver, the kubelet and the server.
 */
final class FakeNode implements AutoCloseable {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";
  static final Duration WAIT = Duration.ofSeconds(30);

  final FakeApiServer api;
  final HttpKubeClient client;
  final KubeletSimulator kubelet;
  private final Path dir;
  DraDriver driver;

  private FakeNode(Path dir) throws IOException {
    this.dir = dir;
    this.api = FakeApiServer.start();
    this.client = api.newClient();
    api.putNode(NODE);
    this.kubelet = KubeletSimulator.start(Files.createDirectories(dir.resolve("registry")));
  }

  /** The server with {@link #NODE} and the kubelet; no driver yet. */
  static FakeNode start(Path dir) throws IOException {
    return new FakeNode(dir);
  }

  /**
   * {@link #DRIVER} on {@link #NODE} with {@code provider}, registering with this kubelet, its
   * plugin folder {@code plugin} and its CDI folder {@code cdi} under the test's folder, no
   * warm-up; a test sets the rest, or overrides these.
   */
  DraDriver.Builder driver(DeviceProvider provider) throws IOException {
    return DraDriver.builder()
        .driverName(DRIVER)
        .nodeName(NODE)
        .provider(provider)
        .kubeClient(client)
        .registrarDirectory(kubelet.registryDirectory())
        .pluginDirectory(dir.resolve("plugin"))
        .cdiDirectory(Files.createDirectories(dir.resolve("cdi")))
        .warmUp(false);
  }

  /** Builds and starts the driver; returns once it published and the kubelet registered it. */
  PluginInstance start(DraDriver.Builder builder) throws Exception {
    driver = builder.build();
    driver.start();
    assertThat(driver.awaitPublished(WAIT)).isTrue();
    return kubelet.awaitPlugin(DRIVER, WAIT);
  }

  @Override
  public void close() {
    if (driver != null) {
      driver.close();
    }
    kubelet.close();
    client.close();
    api.close();
  }
}
