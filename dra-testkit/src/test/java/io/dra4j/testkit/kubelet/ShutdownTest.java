package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.proto.dra.v1.Claim;
import io.dra4j.proto.dra.v1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodePrepareResourcesResponse;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * close(): the registration socket goes first, in-flight calls finish, then the DRA socket goes.
 *
 * <p>The in-flight calls use a client of their own: the simulator, like the kubelet, closes its
 * connection to an instance when it deregisters it, which cancels that connection's calls on the
 * client side (the server still finishes them).
 */
class ShutdownTest {

  @TempDir Path tmp;

  @Test
  void registrationSocketGoesFirstAndInFlightCallsFinish() throws Exception {
    ScriptedNodeService service = new ScriptedNodeService();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    service.prepare =
        (claims, call) -> {
          inside.countDown();
          release.await(30, TimeUnit.SECONDS);
          return ScriptedNodeService.oneDeviceEach(claims, call);
        };
    try (Harness h = new Harness(tmp)) {
      KubeletPluginServer server =
          h.start(h.server(service).shutdownTimeout(Duration.ofSeconds(30)));
      h.kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
      ManagedChannel channel = UdsChannels.open(server.draSocket(), PluginRegistrationTest.group());
      try {
        CompletableFuture<NodePrepareResourcesResponse> inFlight = prepare(channel);
        assertThat(inside.await(20, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> closing =
            CompletableFuture.runAsync(server::close, Harness.THREADS);
        // The kubelet sees the plugin go while the call is still running and the DRA socket is
        // still there...
        h.kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.DEREGISTERED, WAIT);
        assertThat(server.registrationSocket()).doesNotExist();
        assertThat(Files.exists(server.draSocket())).isTrue();
        assertThat(inFlight).isNotDone();
        assertThat(closing).isNotDone();

        // ...and the call still completes before the DRA socket goes.
        release.countDown();
        assertThat(inFlight.get(20, TimeUnit.SECONDS).getClaimsOrThrow("uid-1").getError())
            .isEmpty();
        closing.get(20, TimeUnit.SECONDS);
        assertThat(server.draSocket()).doesNotExist();
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void callsStillRunningAfterTheTimeoutAreCancelled() throws Exception {
    ScriptedNodeService service = new ScriptedNodeService();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    service.prepare =
        (claims, call) -> {
          inside.countDown();
          never.await(30, TimeUnit.SECONDS);
          return ScriptedNodeService.oneDeviceEach(claims, call);
        };
    try (Harness h = new Harness(tmp)) {
      KubeletPluginServer server =
          h.start(h.server(service).shutdownTimeout(Duration.ofMillis(200)));
      h.kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
      ManagedChannel channel = UdsChannels.open(server.draSocket(), PluginRegistrationTest.group());
      try {
        CompletableFuture<NodePrepareResourcesResponse> inFlight = prepare(channel);
        assertThat(inside.await(20, TimeUnit.SECONDS)).isTrue();
        server.close(); // returns although the NodeService does not
        assertThat(server.draSocket()).doesNotExist();
        assertThat(inFlight)
            .failsWithin(20, TimeUnit.SECONDS)
            .withThrowableOfType(ExecutionException.class)
            .satisfies(
                e ->
                    assertThat(Status.fromThrowable(e.getCause()).getCode())
                        .isIn(Status.Code.CANCELLED, Status.Code.UNAVAILABLE));
      } finally {
        never.countDown();
        channel.shutdownNow();
      }
    }
  }

  private static CompletableFuture<NodePrepareResourcesResponse> prepare(ManagedChannel channel) {
    return CompletableFuture.supplyAsync(
        () ->
            DRAPluginGrpc.newBlockingStub(channel)
                .withDeadlineAfter(45, TimeUnit.SECONDS)
                .nodePrepareResources(
                    NodePrepareResourcesRequest.newBuilder()
                        .addClaims(
                            Claim.newBuilder().setNamespace("ns").setName("c").setUid("uid-1"))
                        .build()),
        Harness.THREADS);
  }
}
