package io.dra4j.testkit.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.launcher.DriverMain;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import io.dra4j.testkit.slices.PublishedSlices;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole driver (DraDriver with the fake provider) against the test kit's API server: what the
 * extended-resource guard and device health do to the ResourceSlices the scheduler reads.
 */
class DriverGuardAndHealthTest {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";
  static final String GPU = "example.com/gpu";
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path tmp;
  FakeApiServer api;
  HttpKubeClient client;
  KubeletSimulator kubelet;
  PublishedSlices published;
  String nodeUid;

  @BeforeEach
  void setUp() throws Exception {
    api = FakeApiServer.start();
    client = api.newClient();
    kubelet = KubeletSimulator.start(Files.createDirectories(tmp.resolve("registry")));
    published = new PublishedSlices(api, DRIVER);
  }

  @AfterEach
  void tearDown() {
    kubelet.close();
    client.close();
    api.close();
  }

  /** The node, advertising {@code value} of example.com/gpu as a device plugin does. */
  void node(String value) throws Exception {
    Node.Status status =
        Node.Status.of(Map.of(GPU, Quantity.parse(value)), Map.of(GPU, Quantity.parse(value)));
    if (nodeUid == null) {
      nodeUid = api.put(Node.TYPE, Node.of(ObjectMeta.named("", NODE), status)).metadata().uid();
    } else {
      client.updateStatus(Node.TYPE, client.get(Node.TYPE, "", NODE).withStatus(status));
    }
  }

  /** A DeviceClass that maps example.com/gpu to every device of the driver. */
  void gpuClass() throws Exception {
    DeviceClass.Spec spec =
        DeviceClass.Spec.of(List.of(DeviceSelector.cel("device.driver == '" + DRIVER + "'")))
            .withExtendedResourceName(GPU);
    client.create(DeviceClass.TYPE, DeviceClass.of(ObjectMeta.named("", "gpu"), spec));
  }

  DraDriver.Builder driver(FakeDeviceProvider provider) throws Exception {
    return DraDriver.builder()
        .driverName(DRIVER)
        .nodeName(NODE)
        .provider(provider)
        .kubeClient(client)
        .config(FakeDeviceProvider.CONFIG_DEVICES, "2")
        .registrarDirectory(kubelet.registryDirectory())
        .pluginDirectory(tmp.resolve("plugin"))
        .cdiDirectory(Files.createDirectories(tmp.resolve("cdi")))
        .warmUp(false);
  }

  List<String> publishedDevices() {
    return published.devices(NODE).stream().map(Device::name).toList();
  }

  @Test
  void waitPublishesTheDevicesOnlyOnceTheDevicePluginIsGone() throws Exception {
    node("4");
    gpuClass();
    try (DraDriver driver = driver(new FakeDeviceProvider()).build()) {
      driver.start();
      assertThat(driver.awaitPublished(WAIT)).isTrue();
      // The pool is there, empty: the driver runs and offers nothing the device plugin serves.
      assertThat(published.byPool()).containsOnlyKeys(NODE);
      assertThat(publishedDevices()).isEmpty();
      assertThat(driver.guardReport().orElseThrow().blocking()).isTrue();
      published.assertValid(Optional.of(NODE), nodeUid);

      // The device plugin goes and its grace period ends: allocatable and capacity are zero.
      node("0");
      Await.until("the devices in the API server", WAIT, () -> publishedDevices().size() == 2);
      assertThat(publishedDevices()).containsExactly("gpu-0", "gpu-1");
      assertThat(driver.guardReport().orElseThrow().blocking()).isFalse();
      published.assertValid(Optional.of(NODE), nodeUid);
    }
  }

  @Test
  void failStopsTheLauncherWithStatusOneAndTheReasonBeforePublishingTheConflict() throws Exception {
    node("4");
    gpuClass();
    Path kubeconfig = api.writeKubeconfig(tmp.resolve("kubeconfig"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> args =
        List.of(
            "--driver-name",
            DRIVER,
            "--node-name",
            NODE,
            "--provider",
            FakeDeviceProvider.NAME,
            "--kubeconfig",
            kubeconfig.toString(),
            "--registrar-dir",
            kubelet.registryDirectory().toString(),
            "--plugin-dir",
            tmp.resolve("plugin").toString(),
            "--cdi-dir",
            Files.createDirectories(tmp.resolve("cdi")).toString(),
            "--health-port",
            "-1",
            "--no-warm-up",
            "--extended-resource-conflict",
            "fail",
            "--devices",
            "2");
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(
            () ->
                DriverMain.run(
                    args,
                    Map.of(),
                    Map.of(),
                    System.out,
                    new PrintStream(err, true, StandardCharsets.UTF_8)));

    assertThat(exit.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("DeviceClass gpu", GPU, "node " + NODE, "capacity 4");
    assertThat(publishedDevices()).as("no device in conflict was ever published").isEmpty();
  }

  @Test
  void anUnhealthyDeviceIsTaintedInItsSliceUntilItRecovers() throws Exception {
    node("0");
    FakeDeviceProvider provider = new FakeDeviceProvider();
    try (DraDriver driver = driver(provider).healthRecoveryDelay(Duration.ofMillis(200)).build()) {
      driver.start();
      assertThat(driver.awaitPublished(WAIT)).isTrue();
      assertThat(publishedDevices()).containsExactly("gpu-0", "gpu-1");

      provider.health().markUnhealthy("gpu-1", "XID79", "GPU has fallen off the bus");
      Await.until("the taint on gpu-1", WAIT, () -> !taints("gpu-1").isEmpty());
      assertThat(taints("gpu-1"))
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.key()).isEqualTo(DRIVER + "/unhealthy");
                assertThat(t.value()).isEqualTo("XID79");
                assertThat(t.effect()).isEqualTo(TaintEffect.NO_SCHEDULE);
              });
      assertThat(taints("gpu-0")).isEmpty();
      published.assertValid(Optional.of(NODE), nodeUid);

      provider.health().markHealthy("gpu-1");
      Await.until("the taint lifted", WAIT, () -> taints("gpu-1").isEmpty());
      published.assertValid(Optional.of(NODE), nodeUid);
    }
  }

  /**
   * The warm-up runs on scratch sockets and files before registration and removes them; its API
   * probes (a GET and a status apply for a claim that does not exist) change nothing on the server.
   */
  @Test
  void theWarmUpLeavesNothingBehind() throws Exception {
    node("0");
    Path shm = Path.of("/dev/shm");
    Path scratchBase =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? shm
            : Path.of(System.getProperty("java.io.tmpdir"));
    List<String> before = warmUpDirs(scratchBase);
    try (PreviousInstance old = previousInstance();
        DraDriver driver = driver(new FakeDeviceProvider()).warmUp(true).build()) {
      driver.start();
      assertThat(warmUpDirs(scratchBase)).isEqualTo(before);
      PluginInstance plugin = kubelet.awaitPlugin(DRIVER, WAIT);
      // Only the driver's own sockets and state: nothing of the warm-up's synthetic claims.
      try (Stream<Path> files = Files.list(tmp.resolve("cdi"))) {
        assertThat(files).isEmpty();
      }
      assertThat(plugin.unprepare(List.of())).isEmpty();
      long gets = api.requests("get", "resourceclaims");
      assertThat(gets).isPositive();
      // Each probe is a GET, then its status apply; the warm-up's deadline may fall between the
      // two of the last probe on a busy machine, so that one apply may be missing.
      long patches = api.requests("patch", "resourceclaims/status");
      assertThat(patches).isBetween(gets - 1, gets);
      assertThat(api.writes("resourceclaims")).isEqualTo(patches);
      assertThat(api.objects(ResourceClaim.TYPE)).isEmpty();
    }
  }

  /** A probe answered with anything but 404 (here RBAC) ends the probing; the driver starts. */
  @Test
  void theWarmUpStopsProbingWhenTheApiServerRefuses() throws Exception {
    node("0");
    api.faults().failNext("get", "resourceclaims", 1, 403);
    try (PreviousInstance old = previousInstance();
        DraDriver driver = driver(new FakeDeviceProvider()).warmUp(true).build()) {
      driver.start();
      kubelet.awaitPlugin(DRIVER, WAIT);
      assertThat(api.requests("get", "resourceclaims")).isEqualTo(1);
      assertThat(api.writes("resourceclaims")).isZero();
    }
  }

  /**
   * An API server slower than the warm-up's budget: the first probe is abandoned at the deadline,
   * probing stops, and the driver registers without waiting for the answer.
   */
  @Test
  void aSlowApiServerEndsTheProbingAtTheWarmUpDeadline() throws Exception {
    node("0");
    api.faults().latency(Duration.ofSeconds(8));
    try (PreviousInstance old = previousInstance();
        DraDriver driver = driver(new FakeDeviceProvider()).warmUp(true).build()) {
      driver.start();
      kubelet.awaitPlugin(DRIVER, WAIT);
      // One probe, or none when the set-up alone outlasted the budget (a starved machine).
      assertThat(api.requests("get", "resourceclaims")).isLessThanOrEqualTo(1);
      assertThat(api.writes("resourceclaims")).isZero();
    } finally {
      api.faults().latency(Duration.ZERO);
    }
  }

  /**
   * Without another instance answering (a fresh node, a restart after a crash) the kubelet's calls
   * wait for this driver: it registers at once and sends none of the warm-up's probes.
   */
  @Test
  void withoutAnotherInstanceTheDriverRegistersWithoutAWarmUp() throws Exception {
    node("0");
    try (DraDriver driver = driver(new FakeDeviceProvider()).warmUp(true).build()) {
      driver.start();
      kubelet.awaitPlugin(DRIVER, WAIT);
      assertThat(api.requests("get", "resourceclaims")).isZero();
      assertThat(api.writes("resourceclaims")).isZero();
    }
  }

  /** The registration socket of an instance still serving (a rolling update's old pod). */
  private PreviousInstance previousInstance() throws IOException {
    Path socket = kubelet.registryDirectory().resolve(DRIVER + "-previous-reg.sock");
    ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    channel.bind(UnixDomainSocketAddress.of(socket));
    return () -> {
      channel.close();
      Files.deleteIfExists(socket);
    };
  }

  private interface PreviousInstance extends AutoCloseable {
    @Override
    void close() throws IOException;
  }

  private static List<String> warmUpDirs(Path base) throws Exception {
    try (Stream<Path> entries = Files.list(base)) {
      return entries
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("dra4j-warm-"))
          .sorted()
          .toList();
    }
  }

  List<DeviceTaint> taints(String device) {
    return published.devices(NODE).stream()
        .filter(d -> d.name().equals(device))
        .findFirst()
        .map(Device::taints)
        .orElse(List.of());
  }
}
