package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.DRIVER;
import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.proto.pluginregistration.InfoRequest;
import io.dra4j.proto.pluginregistration.PluginInfo;
import io.dra4j.proto.pluginregistration.RegistrationGrpc;
import io.dra4j.runtime.internal.kubelet.InMemoryHealthSource;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.dra4j.runtime.report.RegistrationStatus;
import io.dra4j.runtime.testsupport.Await;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registration against the kubelet simulator: GetInfo, notification, versions, rolling update. */
class PluginRegistrationTest {

  private static final String POD_UID = "f358c92b-e974-4f29-a84f-6c64bec0949d";
  private static final ClaimRef CLAIM = ClaimRef.of("ns", "claim-0", "uid-0");

  @TempDir Path tmp;
  Harness h;
  final ScriptedNodeService service = new ScriptedNodeService();

  @BeforeEach
  void setUp() {
    h = new Harness(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    h.close();
  }

  @Test
  void registersAndTheKubeletPicksV1() throws Exception {
    List<RegistrationStatus> notified = new CopyOnWriteArrayList<>();
    KubeletPluginServer server = h.start(h.server(service).registrationListener(notified::add));
    PluginInstance plugin = h.kubelet.awaitPlugin(DRIVER, WAIT);

    assertThat(plugin.pluginType()).isEqualTo("DRAPlugin");
    assertThat(plugin.driverName()).isEqualTo(DRIVER);
    assertThat(plugin.endpoint()).isEqualTo(server.draSocket()).isAbsolute();
    assertThat(plugin.registrationSocket())
        .isEqualTo(tmp.resolve("registry/gpu.example.com-reg.sock"));
    assertThat(plugin.supportedVersions()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
    assertThat(plugin.draVersion()).isEqualTo(DraVersion.V1);
    assertThat(plugin.healthVersion()).isEmpty();

    RegistrationStatus status =
        Await.until("the registration status", WAIT, server::registrationStatus);
    assertThat(status.registered()).isTrue();
    assertThat(status.error()).isEmpty();
    assertThat(notified).containsExactly(status);
    assertThat(plugin.prepare(List.of(CLAIM))).containsKey("uid-0");
  }

  @Test
  void getInfoOnTheWire() throws Exception {
    KubeletPluginServer server =
        h.start(h.server(service).healthSource(new InMemoryHealthSource()));
    ManagedChannel channel = UdsChannels.open(server.registrationSocket(), group());
    try {
      PluginInfo info =
          RegistrationGrpc.newBlockingStub(channel)
              .withDeadlineAfter(10, TimeUnit.SECONDS) // generous: a cold JVM on a busy machine
              .getInfo(InfoRequest.getDefaultInstance());
      assertThat(info.getType()).isEqualTo("DRAPlugin");
      assertThat(info.getName()).isEqualTo(DRIVER);
      assertThat(info.getEndpoint())
          .isEqualTo(tmp.resolve("plugins/gpu.example.com/dra.sock").toString());
      assertThat(info.getSupportedVersionsList())
          .containsExactly(
              "v1.DRAPlugin",
              "v1beta1.DRAPlugin",
              "v1.DRAResourceHealth",
              "v1alpha1.DRAResourceHealth");
    } finally {
      channel.shutdownNow();
    }
    assertThat(h.kubelet.awaitPlugin(DRIVER, WAIT).healthVersion()).contains(HealthVersion.V1);
  }

  @Test
  void rejectionIsRecordedLoggedAndAnsweredWithAnErrorAsUpstream() throws Exception {
    List<RegistrationStatus> notified = new CopyOnWriteArrayList<>();
    KubeletPluginServer server = h.start(h.server(service).registrationListener(notified::add));
    h.kubelet.awaitPlugin(DRIVER, WAIT);
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    ManagedChannel channel = UdsChannels.open(server.registrationSocket(), group());
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      // What a kubelet sends when validation fails: the Go helper answers with an error (grpc-go:
      // UNKNOWN) and the driver keeps running.
      assertThatThrownBy(
              () ->
                  RegistrationGrpc.newBlockingStub(channel)
                      .withDeadlineAfter(5, TimeUnit.SECONDS)
                      .notifyRegistrationStatus(
                          io.dra4j.proto.pluginregistration.RegistrationStatus.newBuilder()
                              .setPluginRegistered(false)
                              .setError("endpoint already registered")
                              .build()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("failed registration process: endpoint already registered");
              });
    } finally {
      System.setErr(original);
      channel.shutdownNow();
    }
    RegistrationStatus status = server.registrationStatus().orElseThrow();
    assertThat(status.registered()).isFalse();
    assertThat(status.error()).isEqualTo("endpoint already registered");
    assertThat(notified).last().isEqualTo(status);
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .contains("ERROR")
        .contains("rejected the registration: endpoint already registered");
    assertThat(server.isRunning()).isTrue();
    assertThat(h.kubelet.plugin(DRIVER).orElseThrow().prepare(List.of(CLAIM))).containsKey("uid-0");
  }

  @Test
  void v1beta1OnlyIsUsedAsV1beta1AndV1IsUnimplemented() throws Exception {
    PluginInstance plugin = h.register(h.server(service).nodeV1(false));
    assertThat(plugin.supportedVersions()).containsExactly("v1beta1.DRAPlugin");
    assertThat(plugin.draVersion()).isEqualTo(DraVersion.V1BETA1);
    assertThat(plugin.prepare(List.of(CLAIM)).get("uid-0").isOk()).isTrue();
    assertThatThrownBy(() -> plugin.prepare(DraVersion.V1, List.of(CLAIM)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void v1OnlyLeavesV1beta1Unimplemented() throws Exception {
    PluginInstance plugin = h.register(h.server(service).nodeV1beta1(false));
    assertThat(plugin.supportedVersions()).containsExactly("v1.DRAPlugin");
    assertThatThrownBy(() -> plugin.unprepare(DraVersion.V1BETA1, List.of(CLAIM)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void closingDeregisters() throws Exception {
    KubeletPluginServer server = h.start(h.server(service));
    h.kubelet.awaitPlugin(DRIVER, WAIT);
    server.close();
    SimulatorEvent gone =
        h.kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.DEREGISTERED, WAIT);
    assertThat(gone.driverName()).isEqualTo(DRIVER);
    assertThat(h.kubelet.plugin(DRIVER)).isEmpty();
  }

  @Test
  void rollingUpdateRunsTwoInstancesAndTheKubeletCallsTheNewest() throws Exception {
    KubeletPluginServer old = h.start(h.server(service).rollingUpdate("old-pod"));
    PluginInstance first = h.kubelet.awaitPluginAt(old.registrationSocket(), WAIT);
    ScriptedNodeService newService = new ScriptedNodeService();
    KubeletPluginServer fresh = h.start(h.server(newService).rollingUpdate("new-pod"));
    PluginInstance second = h.kubelet.awaitPluginAt(fresh.registrationSocket(), WAIT);

    assertThat(old.registrationSocket().getFileName().toString())
        .isEqualTo(DRIVER + "-old-pod-reg.sock");
    assertThat(fresh.draSocket().getFileName().toString()).isEqualTo("dra-new-pod.sock");
    assertThat(first.endpoint()).isNotEqualTo(second.endpoint());
    // The kubelet prefers connected instances; the new one connects at once, as it is dialled.
    Await.until("the second instance connected", WAIT, second::isConnected);
    assertThat(h.kubelet.plugin(DRIVER)).contains(second);
    h.kubelet.plugin(DRIVER).orElseThrow().prepare(List.of(CLAIM));
    assertThat(newService.prepareCalls).hasSize(1);
    assertThat(service.prepareCalls).isEmpty();

    old.close();
    h.kubelet.awaitEvent(
        e ->
            e.kind() == SimulatorEvent.Kind.DEREGISTERED
                && e.registrationSocket().equals(old.registrationSocket()),
        WAIT);
    assertThat(h.kubelet.plugins()).containsExactly(second);
  }

  @Test
  void aNewerInstanceThatDoesNotConnectIsNotCalledWhileAConnectedOneServes() throws Exception {
    PluginInstance serving = h.register(h.server(service));
    // Registers fine, but nothing listens on its endpoint.
    try (FakePlugin dead =
        new FakePlugin(
            h.registry.resolve("dead-reg.sock"),
            FakePlugin.info(
                "DRAPlugin", DRIVER, tmp.resolve("nothing.sock").toString(), "v1.DRAPlugin"))) {
      PluginInstance newest = h.kubelet.awaitPluginAt(h.registry.resolve("dead-reg.sock"), WAIT);
      Await.until("the serving instance connected", WAIT, serving::isConnected);
      assertThat(h.kubelet.plugins()).containsExactly(serving, newest);
      assertThat(h.kubelet.plugin(DRIVER)).contains(serving);
      h.kubelet.plugin(DRIVER).orElseThrow().prepare(List.of(CLAIM));
      assertThat(service.prepareCalls).hasSize(1);
    }
  }

  @Test
  void rollingUpdateNamesFallBackAsTheRegistryPathGrows() throws Exception {
    String longDriver = "gpu-accelerator.devices.example.com"; // 35 characters
    Path plugins = tmp.resolve("p");
    // 1: the full pod UID fits.
    assertRegisters(
        tmp.resolve("r1"), DRIVER, plugins.resolve("a"), DRIVER + "-" + POD_UID + "-reg.sock");
    // 2: 60-byte directory: the full UID (122 bytes) does not fit, the hashed UID (97) does.
    assertRegisters(
        padded(tmp.resolve("r2"), 60),
        DRIVER,
        plugins.resolve("b"),
        DRIVER + "-W75GxEP6R9A-reg.sock");
    // 3: 65-byte directory and a long driver: only dra-<hash of driver and UID> (101) fits.
    assertRegisters(
        padded(tmp.resolve("r3"), 65),
        longDriver,
        plugins.resolve("c"),
        "dra-Yal75NNTlW9xVOuRfIqZ5w-reg.sock");
  }

  private void assertRegisters(Path registry, String driver, Path pluginDir, String expectedName)
      throws Exception {
    try (KubeletSimulator kubelet = KubeletSimulator.start(registry);
        KubeletPluginServer server =
            KubeletPluginServer.builder()
                .driverName(driver)
                .registrarDirectory(registry)
                .pluginDataDirectory(pluginDir)
                .rollingUpdate(POD_UID)
                .nodeService(service)
                .start()) {
      assertThat(server.registrationSocket().getFileName().toString()).isEqualTo(expectedName);
      assertThat(server.registrationSocket())
          .isEqualTo(SocketNames.registrationSocket(registry, driver, Optional.of(POD_UID)));
      assertThat(SocketNames.pathBytes(server.registrationSocket()))
          .isLessThanOrEqualTo(SocketNames.MAX_SOCKET_PATH_BYTES);
      PluginInstance plugin = kubelet.awaitPlugin(driver, WAIT);
      assertThat(plugin.registrationSocket()).isEqualTo(server.registrationSocket());
      assertThat(plugin.endpoint().getFileName().toString()).isEqualTo("dra-" + POD_UID + ".sock");
    }
  }

  /** {@code dir} with a padding directory appended so that the whole path is {@code bytes} long. */
  private static Path padded(Path dir, int bytes) throws Exception {
    int pad = bytes - dir.toString().length() - 1;
    assertThat(pad).as("temp dir too long for this test").isPositive();
    Path p = dir.resolve("x".repeat(pad));
    assertThat(p.toString()).hasSize(bytes);
    return Files.createDirectories(p);
  }

  private static MultiThreadIoEventLoopGroup group;

  static synchronized MultiThreadIoEventLoopGroup group() {
    if (group == null) {
      group =
          new MultiThreadIoEventLoopGroup(
              1,
              new io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory(
                  "test-io", true),
              EpollIoHandler.newFactory());
    }
    return group;
  }
}
