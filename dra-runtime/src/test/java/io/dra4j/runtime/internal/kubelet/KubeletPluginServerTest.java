package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.proto.dra.v1.Claim;
import io.dra4j.proto.dra.v1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodePrepareResourcesResponse;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.claims.NodeCall;
import io.dra4j.runtime.internal.claims.NodeService;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Server life cycle and socket files; the contract itself is tested with the kubelet simulator. */
@SuppressWarnings("try") // servers are kept running, not used
class KubeletPluginServerTest {

  private static final String DRIVER = "gpu.example.com";

  @TempDir Path tmp;

  static final NodeService ONE_DEVICE =
      new NodeService() {
        @Override
        public Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call) {
          Map<String, ClaimPrepareResult> out = new HashMap<>();
          for (ClaimRef c : claims) {
            out.put(
                c.uid(),
                ClaimPrepareResult.ok(
                    List.of(
                        new CheckpointDevice(
                            "gpu",
                            "node-1",
                            "gpu-0",
                            Optional.empty(),
                            false,
                            List.of("example.com/gpu=gpu-0"),
                            Map.of(),
                            Optional.empty()))));
          }
          return out;
        }

        @Override
        public Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call) {
          Map<String, Optional<String>> out = new HashMap<>();
          claims.forEach(c -> out.put(c.uid(), Optional.empty()));
          return out;
        }
      };

  private KubeletPluginServer.Builder builder() {
    return KubeletPluginServer.builder()
        .driverName(DRIVER)
        .registrarDirectory(tmp.resolve("registry"))
        .pluginDataDirectory(tmp.resolve("plugins").resolve(DRIVER))
        .nodeService(ONE_DEVICE);
  }

  static NodePrepareResourcesResponse prepareV1(Path draSocket, String uid)
      throws InterruptedException {
    ManagedChannel channel = TestChannels.open(draSocket);
    try {
      return DRAPluginGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .nodePrepareResources(
              NodePrepareResourcesRequest.newBuilder()
                  .addClaims(Claim.newBuilder().setNamespace("ns").setName("c").setUid(uid))
                  .build());
    } finally {
      TestChannels.close(channel);
    }
  }

  @Test
  void draSocketServesBeforeTheRegistrationSocketExists() throws Exception {
    AtomicReference<Boolean> registrationExisted = new AtomicReference<>();
    AtomicReference<NodePrepareResourcesResponse> answered = new AtomicReference<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    KubeletPluginServer.Builder b = builder();
    Path registration = tmp.resolve("registry").resolve(DRIVER + "-reg.sock");
    Path dra = tmp.resolve("plugins").resolve(DRIVER).resolve("dra.sock");
    b.beforeRegistrationSocket(
        () -> {
          registrationExisted.set(Files.exists(registration));
          try {
            answered.set(prepareV1(dra, "uid-early"));
          } catch (Throwable t) {
            failed.set(t);
          }
        });
    try (KubeletPluginServer server = b.start()) {
      assertThat(failed.get()).isNull();
      assertThat(registrationExisted.get()).isFalse();
      assertThat(answered.get().getClaimsMap()).containsKey("uid-early");
      assertThat(Files.exists(registration)).isTrue();
      assertThat(server.registrationSocket()).isEqualTo(registration);
      assertThat(server.draSocket()).isEqualTo(dra);
    }
    assertThat(registration).doesNotExist();
    assertThat(dra).doesNotExist();
  }

  @Test
  void createsMissingDirectoriesWithSafeModesAndRestrictsSockets() throws Exception {
    try (KubeletPluginServer server = builder().start()) {
      assertThat(mode(tmp.resolve("registry"))).isEqualTo("rwxr-xr-x");
      assertThat(mode(tmp.resolve("plugins"))).isEqualTo("rwxr-xr-x");
      assertThat(mode(server.pluginDataDirectory())).isEqualTo("rwx------");
      assertThat(mode(server.draSocket())).isEqualTo("rw-------");
      assertThat(mode(server.registrationSocket())).isEqualTo("rw-------");
      assertThat(server.draSocket().isAbsolute()).isTrue();
    }
  }

  @Test
  void existingDirectoriesKeepTheirMode() throws Exception {
    Path registry = Files.createDirectories(tmp.resolve("registry"));
    Files.setPosixFilePermissions(registry, PosixFilePermissions.fromString("rwx------"));
    try (KubeletPluginServer server = builder().start()) {
      assertThat(mode(registry)).isEqualTo("rwx------");
    }
  }

  @Test
  void staleSocketFileIsReplaced() throws Exception {
    Path dra = Files.createDirectories(tmp.resolve("plugins").resolve(DRIVER)).resolve("dra.sock");
    // A socket whose listener is gone: bind, then close without unlinking.
    try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      stale.bind(UnixDomainSocketAddress.of(dra));
    }
    assertThat(UnixSockets.isSocket(dra)).isTrue();
    try (KubeletPluginServer server = builder().start()) {
      assertThat(prepareV1(dra, "u1").getClaimsMap()).containsKey("u1");
    }
  }

  @Test
  void liveSocketIsNeverTakenOver() throws Exception {
    Path registry = Files.createDirectories(tmp.resolve("registry"));
    Path registration = registry.resolve(DRIVER + "-reg.sock");
    try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      live.bind(UnixDomainSocketAddress.of(registration));
      Object before = UnixSockets.fileKey(registration).orElseThrow();
      assertThatThrownBy(() -> builder().start())
          .isInstanceOf(IOException.class)
          .hasMessageContaining(registration.toString())
          .hasMessageContaining("in use");
      assertThat(UnixSockets.fileKey(registration)).contains(before);
      // The DRA socket opened first was cleaned up again.
      assertThat(tmp.resolve("plugins").resolve(DRIVER).resolve("dra.sock")).doesNotExist();
    }
  }

  @Test
  void secondServerOnTheSamePathsIsRefusedAndTheFirstKeepsServing() throws Exception {
    try (KubeletPluginServer first = builder().start()) {
      assertThatThrownBy(() -> builder().start())
          .isInstanceOf(IOException.class)
          .hasMessageContaining(first.draSocket().toString())
          .hasMessageContaining("another process is listening");
      assertThat(prepareV1(first.draSocket(), "still-here").getClaimsMap())
          .containsKey("still-here");
      assertThat(first.registrationSocket()).exists();
    }
  }

  @Test
  void regularFilesAndDirectoriesAreNotRemoved() throws Exception {
    Path pluginDir = Files.createDirectories(tmp.resolve("plugins").resolve(DRIVER));
    Path dra = Files.writeString(pluginDir.resolve("dra.sock"), "not a socket");
    assertThatThrownBy(() -> builder().start())
        .isInstanceOf(IOException.class)
        .hasMessageContaining(dra.toString())
        .hasMessageContaining("is a file");
    assertThat(dra).hasContent("not a socket");

    Files.delete(dra);
    Files.createDirectories(dra.resolve("child"));
    assertThatThrownBy(() -> builder().start()).hasMessageContaining("is a directory");
    assertThat(dra.resolve("child")).isDirectory();
  }

  @Test
  void tooLongSocketPathIsRefusedUpFront() {
    Path deep = tmp.resolve("d".repeat(120));
    assertThatThrownBy(() -> builder().pluginDataDirectory(deep).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(deep.resolve("dra.sock").toString())
        .hasMessageContaining("at most 107 bytes");
    assertThat(deep).doesNotExist();
  }

  @Test
  void rejectsBadConfiguration() {
    assertThatThrownBy(() -> builder().nodeV1(false).nodeV1beta1(false).build())
        .hasMessageContaining("nodeV1 and nodeV1beta1 are both off");
    assertThatThrownBy(() -> builder().driverName("GPU.example.com").build())
        .hasMessageContaining("driverName \"GPU.example.com\"")
        .hasMessageContaining("upper-case");
    assertThatThrownBy(() -> builder().driverName("gpu_example.com").build())
        .hasMessageContaining("DNS subdomain");
    assertThatThrownBy(() -> builder().driverName("a".repeat(60) + ".com").build())
        .hasMessageContaining("64 characters");
    assertThatThrownBy(() -> builder().driverName("-gpu.example.com").build())
        .hasMessageContaining("DNS subdomain");
    assertThatThrownBy(() -> builder().rollingUpdate("../x").build())
        .hasMessageContaining("pod UID");
    assertThatThrownBy(() -> KubeletPluginServer.builder().driverName(DRIVER).build())
        .hasMessageContaining("nodeService is required");
  }

  @Test
  void defaultsFollowTheKubelet() {
    KubeletPluginServer server =
        KubeletPluginServer.builder().driverName(DRIVER).nodeService(ONE_DEVICE).build();
    assertThat(server.registrationSocket())
        .isEqualTo(Path.of("/var/lib/kubelet/plugins_registry/gpu.example.com-reg.sock"));
    assertThat(server.draSocket())
        .isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.example.com/dra.sock"));
    assertThat(server.supportedServices()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin");
    assertThat(server.registrationStatus()).isEmpty();
    assertThat(server.isRunning()).isFalse();
  }

  @Test
  void rollingUpdateUsesPerPodSockets() {
    KubeletPluginServer server =
        builder().rollingUpdate("11111111-2222-3333-4444-555555555555").build();
    assertThat(server.draSocket().getFileName().toString())
        .isEqualTo("dra-11111111-2222-3333-4444-555555555555.sock");
  }

  @Test
  void startTwiceIsAnErrorAndCloseIsIdempotent() throws Exception {
    KubeletPluginServer server = builder().start();
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
    server.close();
    server.close();
    assertThat(server.isRunning()).isFalse();
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
