package io.dra4j.testkit.claims;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.runtime.internal.claims.ClaimPreparer;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The full stack of a claims test: fake API server over HTTP, kubelet simulator over the real
 * sockets, the driver's KubeletPluginServer with a {@link ClaimPreparer} and a {@link
 * TestProvider}.
 */
final class ClaimsHarness implements AutoCloseable {

  static final String DRIVER = "gpu.example.com";
  static final String OTHER_DRIVER = "nic.example.com";
  static final Duration WAIT = Duration.ofSeconds(20);

  final Path root;
  final Path registry;
  final Path pluginDir;
  final Path cdiDir;
  final Path devRoot;
  final Path bootIdFile;
  final FakeApiServer api;
  final HttpKubeClient client;
  final KubeletSimulator kubelet;
  ClaimPreparer preparer;
  KubeletPluginServer server;
  PluginInstance plugin;

  ClaimsHarness(Path root) throws IOException {
    this.root = root;
    this.registry = root.resolve("registry");
    this.pluginDir = root.resolve("plugins").resolve(DRIVER);
    this.cdiDir = root.resolve("cdi");
    this.devRoot = root.resolve("dev");
    this.bootIdFile = root.resolve("boot_id");
    Files.createDirectories(registry);
    Files.createDirectories(cdiDir);
    Files.createDirectories(devRoot);
    Files.writeString(bootIdFile, "boot-1\n");
    this.api = FakeApiServer.start();
    // Few quick retries: fault tests see a failure within milliseconds.
    this.client =
        api.clientBuilder().retries(1, Duration.ofMillis(5), Duration.ofMillis(10)).build();
    this.kubelet = KubeletSimulator.start(registry, Duration.ofMillis(20));
    // Every successful prepare is checked as a node would use it: the reference CDI library loads
    // the spec directory and injects the returned ids.
    if (CdiValidators.available()) {
      kubelet.containerRuntime(
          (driver, prepared) -> {
            List<String> ids =
                prepared.values().stream()
                    .flatMap(r -> r.devices().stream())
                    .flatMap(d -> d.cdiDeviceIds().stream())
                    .toList();
            if (!ids.isEmpty()) {
              CdiValidators.assertValid(cdiDir, ids);
            }
          });
    } else {
      System.err.println(
          "WARNING: CDI specs of the claims tests are not validated: no cdi-validate");
    }
  }

  ClaimPreparer.Builder builder(DeviceProvider provider) {
    return ClaimPreparer.builder()
        .driverName(DRIVER)
        .provider(provider)
        .kubeClient(client)
        .pluginDataDirectory(pluginDir)
        .cdiDirectory(cdiDir)
        .devRoot(devRoot)
        .bootIdFile(bootIdFile);
  }

  /** Builds the pipeline, recovers and starts serving; returns the kubelet's view of the plugin. */
  PluginInstance start(DeviceProvider provider) throws Exception {
    return start(provider, b -> {});
  }

  PluginInstance start(DeviceProvider provider, Consumer<ClaimPreparer.Builder> customize)
      throws Exception {
    ClaimPreparer.Builder b = builder(provider);
    customize.accept(b);
    preparer = b.build();
    preparer.recover();
    // A driver killed on this socket path may still be registered with the simulator until it
    // notices the socket was replaced: wait for the registration of this server, not that one.
    // The simulator tells sockets apart by inode; where the new socket got the old one's inode it
    // keeps the old registration, which reaches the new server as well (it dials the path).
    List<PluginInstance> before = kubelet.plugins();
    Path socket = SocketNames.registrationSocket(registry, DRIVER, Optional.empty());
    Optional<Object> oldInode = inode(socket);
    server =
        KubeletPluginServer.builder()
            .driverName(DRIVER)
            .registrarDirectory(registry)
            .pluginDataDirectory(pluginDir)
            .nodeService(preparer)
            .start();
    boolean sameInode = oldInode.isPresent() && oldInode.equals(inode(socket));
    plugin =
        Await.until(
            "the registration of the new server",
            WAIT,
            () ->
                Optional.of(kubelet.awaitPluginAt(socket, WAIT))
                    .filter(p -> sameInode || !before.contains(p)),
            () -> "simulator events: " + kubelet.events());
    return plugin;
  }

  private static Optional<Object> inode(Path file) throws IOException {
    try {
      return Optional.ofNullable(
          Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
              .fileKey());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** Stops the driver (server and pipeline), keeping the files. */
  void stopDriver() {
    if (server != null) {
      server.close();
      server = null;
      // Let the simulator drop the old plugin first, so a restart on the same socket path is seen
      // as a new registration rather than racing with the old connection.
      Await.until("the old plugin dropped", WAIT, () -> kubelet.plugin(DRIVER).isEmpty());
    }
    preparer = null;
  }

  static DeviceRequestAllocationResult result(String request, String pool, String device) {
    return DeviceRequestAllocationResult.of(request, DRIVER, pool, device);
  }

  static DeviceRequestAllocationResult result(
      String request, String pool, String device, boolean admin, Optional<String> shareId) {
    return new DeviceRequestAllocationResult(
        request,
        DRIVER,
        pool,
        device,
        Optional.of(admin),
        null,
        null,
        null,
        shareId,
        null,
        null,
        null);
  }

  /** Seeds an allocated claim; returns its reference with the server-assigned UID. */
  ClaimRef seed(String name, List<DeviceRequestAllocationResult> results) {
    return seed("ns", name, results, List.of(), Map.of());
  }

  ClaimRef seed(
      String namespace,
      String name,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> config,
      Map<String, String> annotations) {
    ObjectMeta meta = ObjectMeta.named(namespace, name).withAnnotations(annotations);
    ResourceClaim claim =
        ResourceClaim.of(meta, null)
            .withStatus(
                new ResourceClaimStatus(
                    Optional.of(
                        AllocationResult.of(DeviceAllocationResult.of(results, config), null)),
                    null,
                    null,
                    null));
    ResourceClaim stored = api.put(ResourceClaim.TYPE, claim);
    return ClaimRef.of(namespace, name, stored.metadata().uid());
  }

  /** Regular files under a directory, relative names, sorted. */
  static List<String> files(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile).forEach(p -> out.add(dir.relativize(p).toString()));
    }
    out.sort(null);
    return out;
  }

  List<String> checkpointFiles() throws IOException {
    return files(pluginDir.resolve("checkpoints"));
  }

  List<String> cdiFiles() throws IOException {
    return files(cdiDir);
  }

  @Override
  public void close() {
    stopDriver();
    kubelet.close();
    client.close();
    api.close();
  }
}
