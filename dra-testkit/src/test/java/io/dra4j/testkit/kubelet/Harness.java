package io.dra4j.testkit.kubelet;

import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** A registry directory with a kubelet simulator on it, and servers that close with it. */
final class Harness implements AutoCloseable {

  static final String DRIVER = "gpu.example.com";
  static final Duration WAIT = Duration.ofSeconds(20);

  /**
   * For calls that block: a thread each. The common pool may have a single worker on a small
   * machine, and two blocking calls queued there would wait for each other.
   */
  static final ExecutorService THREADS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "test-call");
            t.setDaemon(true);
            return t;
          });

  final Path root;
  final Path registry;
  final KubeletSimulator kubelet;
  private final List<KubeletPluginServer> closeables = new ArrayList<>();

  Harness(Path root) {
    this.root = root;
    this.registry = root.resolve("registry");
    this.kubelet = KubeletSimulator.start(registry, Duration.ofMillis(20));
  }

  /** A builder for a server of {@link #DRIVER} in this harness's directories. */
  KubeletPluginServer.Builder server(ScriptedNodeService service) {
    return KubeletPluginServer.builder()
        .driverName(DRIVER)
        .registrarDirectory(registry)
        .pluginDataDirectory(root.resolve("plugins").resolve(DRIVER))
        .nodeService(service);
  }

  KubeletPluginServer start(KubeletPluginServer.Builder builder) throws IOException {
    KubeletPluginServer server = builder.start();
    closeables.add(server);
    return server;
  }

  /** Starts a default server and waits until the simulator registered it. */
  PluginInstance register(KubeletPluginServer.Builder builder) throws Exception {
    KubeletPluginServer server = start(builder);
    return kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
  }

  @Override
  public void close() throws IOException {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    kubelet.close();
  }
}
