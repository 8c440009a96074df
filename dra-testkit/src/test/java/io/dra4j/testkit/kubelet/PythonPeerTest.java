package io.dra4j.testkit.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.runtime.internal.kubelet.DeviceHealthState;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import io.dra4j.runtime.internal.kubelet.InMemoryHealthSource;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.runtime.testsupport.ChildProcess;
import io.dra4j.runtime.testsupport.PeerTools;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract against an independent gRPC implementation: Python (C-core grpcio) with stubs
 * generated from this repository's .proto files, over the real Unix sockets, both ways: a Python
 * kubelet against the server (src/test/python/kubelet_peer.py), and the simulator against a Python
 * driver (src/test/python/python_driver.py).
 */
class PythonPeerTest {

  private static final Path PROTO_DIR = Path.of("../dra-runtime/src/main/proto");
  private static final Path SCRIPT = Path.of("src/test/python/kubelet_peer.py");
  private static final Path DRIVER_SCRIPT = Path.of("src/test/python/python_driver.py");
  private static final Duration LINE_WAIT = Duration.ofSeconds(60);

  @TempDir static Path stubs;
  @TempDir Path tmp;

  @BeforeAll
  static void generateStubs() throws Exception {
    Path python = Peers.requirePythonGrpc();
    Path protos = Files.createDirectories(stubs.resolve("proto"));
    List<String> command =
        new ArrayList<>(
            List.of(
                python.toString(),
                "-m",
                "grpc_tools.protoc",
                "-I" + protos,
                "--python_out=" + stubs,
                "--grpc_python_out=" + stubs));
    try (DirectoryStream<Path> files = Files.newDirectoryStream(PROTO_DIR, "*.proto")) {
      for (Path proto : files) {
        Path copy = protos.resolve(proto.getFileName());
        Files.writeString(copy, withoutProto3Optional(Files.readString(proto)));
        command.add(copy.toString());
      }
    }
    assertThat(command).hasSizeGreaterThan(7);
    Result r = exec(command);
    assertThat(r.exitCode).as("grpc_tools.protoc: %s", r.output).isZero();
    assertThat(stubs.resolve("dra_v1_pb2_grpc.py")).exists();
  }

  /**
   * Debian's grpc_tools bundles protoc 3.5, older than proto3 {@code optional} (3.12+). Rewrite
   * {@code optional T name = N;} as the one-field oneof {@code oneof _name { T name = N; }}, which
   * is exactly how protoc models proto3 optional: same wire format, and HasField() still works.
   */
  static String withoutProto3Optional(String proto) {
    return proto.replaceAll(
        "(?m)^(\\s*)optional\\s+(\\S+)\\s+(\\w+)\\s*=\\s*(\\d+)\\s*;",
        "$1oneof _$3 { $2 $3 = $4; }");
  }

  @Test
  void fullContract() throws Exception {
    InMemoryHealthSource health = new InMemoryHealthSource();
    health.publish(
        new HealthSnapshot(
            List.of(
                new DeviceHealthState(
                    "node-1", "gpu-0", HealthStatus.HEALTHY, 1_700_000_000L, "", 0),
                new DeviceHealthState(
                    "node-1", "gpu-1", HealthStatus.UNHEALTHY, 1_700_000_001L, "XID 79", 45))));
    ScriptedNodeService service = new ScriptedNodeService();
    try (KubeletPluginServer server = server(service).healthSource(health).start()) {
      JsonNode result = runPeer(server, "full");
      assertThat(result.get("checks").toString())
          .contains("v1beta1 prepare: no share_id on the wire")
          .contains("v1alpha1 health: fields");
      assertThat(service.prepareCalls).hasSize(2);
      assertThat(service.unprepareCalls).hasSize(2);
      assertThat(server.registrationStatus())
          .hasValueSatisfying(s -> assertThat(s.registered()).isTrue());
    }
  }

  @Test
  void healthOffIsUnimplemented() throws Exception {
    try (KubeletPluginServer server = server(new ScriptedNodeService()).start()) {
      JsonNode result = runPeer(server, "nohealth");
      assertThat(result.get("checks").toString())
          .contains("v1 health UNIMPLEMENTED")
          .contains("v1alpha1 health UNIMPLEMENTED");
    }
  }

  /** The other direction: the simulator as the kubelet of a driver written in Python. */
  @Test
  void theSimulatorDrivesADriverNotWrittenInJava() throws Exception {
    Path registry = Files.createDirectories(tmp.resolve("registry"));
    Path pluginDir = tmp.resolve("plugins").resolve("py.example.com");
    ChildProcess driver =
        ChildProcess.start(
            List.of(
                Peers.PYTHON.toString(),
                DRIVER_SCRIPT.toString(),
                "--stubs",
                stubs.toString(),
                "--registry",
                registry.toString(),
                "--plugin-dir",
                pluginDir.toString(),
                "--driver",
                "py.example.com"));
    try (driver;
        KubeletSimulator kubelet = KubeletSimulator.start(registry)) {
      driver.awaitLine("SERVING", LINE_WAIT);
      PluginInstance plugin = kubelet.awaitPlugin("py.example.com", Duration.ofSeconds(30));
      assertThat(plugin.supportedVersions()).containsExactly("v1.DRAPlugin");
      assertThat(plugin.endpoint()).isEqualTo(pluginDir.resolve("dra.sock"));
      driver.awaitLine("NotifyRegistrationStatus registered=True", LINE_WAIT);

      ClaimRef claim = ClaimRef.of("default", "py-claim", "0f0e0d0c-1111-4000-8000-000000000001");
      ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());
      assertThat(r.error()).isEmpty();
      assertThat(r.devices())
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.deviceName()).isEqualTo("py-gpu-0");
                assertThat(d.cdiDeviceIds())
                    .containsExactly("k8s.py.example.com/claim=" + claim.uid() + "-py-gpu-0");
              });
      assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
      driver.awaitLine("NodeUnprepareResources " + claim.uid(), LINE_WAIT);

      // stdin EOF: the driver removes its registration socket and stops.
      driver.process().getOutputStream().close();
      assertThat(driver.process().waitFor(30, TimeUnit.SECONDS))
          .as("driver output: %s", driver.output())
          .isTrue();
      Await.until(
          "py.example.com deregistered",
          Duration.ofSeconds(30),
          () -> kubelet.plugin("py.example.com").isEmpty());
    }
  }

  private KubeletPluginServer.Builder server(ScriptedNodeService service) {
    return KubeletPluginServer.builder()
        .driverName(Harness.DRIVER)
        .registrarDirectory(tmp.resolve("registry"))
        .pluginDataDirectory(tmp.resolve("plugins").resolve(Harness.DRIVER))
        .nodeService(service);
  }

  private static JsonNode runPeer(KubeletPluginServer server, String mode) throws Exception {
    Result r =
        exec(
            List.of(
                Peers.PYTHON.toString(),
                SCRIPT.toString(),
                "--stubs",
                stubs.toString(),
                "--registration",
                server.registrationSocket().toString(),
                "--driver",
                server.driverName(),
                "--mode",
                mode));
    assertThat(r.exitCode).as("python peer output:\n%s", r.output).isZero();
    String last = r.output.strip().lines().reduce((a, b) -> b).orElse("");
    JsonNode json = new ObjectMapper().readTree(last);
    assertThat(json.get("ok").asBoolean()).isTrue();
    return json;
  }

  private record Result(int exitCode, String output) {}

  private static Result exec(List<String> command) throws IOException, InterruptedException {
    PeerTools.Output out = PeerTools.exec(command, Duration.ofSeconds(120));
    return new Result(out.exitCode(), out.stdout() + out.stderr());
  }
}
