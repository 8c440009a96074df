package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.dra4j.runtime.testsupport.Await;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NodePrepareResources / NodeUnprepareResources over v1 and v1beta1, through the simulator. */
class NodePrepareTest {

  private static final ClaimRef A = ClaimRef.of("ns", "gpu-a", "uid-a");
  private static final ClaimRef B = ClaimRef.of("ns", "gpu-b", "uid-b");

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
  void v1CarriesDevicesShareIdAndBaseRequestNames() throws Exception {
    PluginInstance plugin = h.register(h.server(service));
    Map<String, ClaimResult> result = plugin.prepare(DraVersion.V1, List.of(A, B));

    assertThat(result).containsOnlyKeys("uid-a", "uid-b");
    ClaimResult a = result.get("uid-a");
    assertThat(a.isOk()).isTrue();
    assertThat(a.devices())
        .containsExactly(
            new DeviceResult(
                List.of("gpu"),
                "node-1",
                "gpu-a",
                List.of("example.com/gpu=gpu-a"),
                Optional.of("share-gpu-a")));
    assertThat(service.prepareCalls).containsExactly(List.of(A, B));
  }

  @Test
  void v1beta1LeavesShareIdOffTheWire() throws Exception {
    KubeletPluginServer server = h.start(h.server(service));
    PluginInstance plugin = h.kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
    ClaimResult a = plugin.prepare(DraVersion.V1BETA1, List.of(A)).get("uid-a");
    assertThat(a.devices())
        .containsExactly(
            new DeviceResult(
                List.of("gpu"),
                "node-1",
                "gpu-a",
                List.of("example.com/gpu=gpu-a"),
                Optional.empty()));

    // On the wire: parse the v1beta1 answer and look for unknown fields (share_id is field 5).
    ManagedChannel channel = UdsChannels.open(server.draSocket(), PluginRegistrationTest.group());
    try {
      var response =
          io.dra4j.proto.dra.v1beta1.DRAPluginGrpc.newBlockingStub(channel)
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .nodePrepareResources(
                  io.dra4j.proto.dra.v1beta1.NodePrepareResourcesRequest.newBuilder()
                      .addClaims(
                          io.dra4j.proto.dra.v1beta1.Claim.newBuilder()
                              .setNamespace("ns")
                              .setName("gpu-a")
                              .setUid("uid-a"))
                      .build());
      var device = response.getClaimsOrThrow("uid-a").getDevices(0);
      assertThat(device.getUnknownFields().asMap()).isEmpty();
      // Read as v1, the same bytes have no share id either.
      var asV1 = io.dra4j.proto.dra.v1.Device.parseFrom(device.toByteString());
      assertThat(asV1.hasShareId()).isFalse();
      assertThat(asV1.getRequestNamesList()).containsExactly("gpu");
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void unprepareOnBothVersions() throws Exception {
    service.unprepare =
        (claims, call) -> Map.of("uid-a", Optional.empty(), "uid-b", Optional.of("device busy"));
    PluginInstance plugin = h.register(h.server(service));
    for (DraVersion version : DraVersion.values()) {
      Map<String, Optional<String>> result = plugin.unprepare(version, List.of(A, B));
      assertThat(result).containsEntry("uid-a", Optional.empty());
      assertThat(result).containsEntry("uid-b", Optional.of("device busy"));
    }
    assertThat(service.unprepareCalls).hasSize(2);
  }

  @Test
  void everyRequestedClaimGetsAnEntry() throws Exception {
    // Answers for A and for a claim nobody asked for, and forgets B.
    service.prepare =
        (claims, call) ->
            Map.of(
                "uid-a", ClaimPrepareResult.ok(List.of(ScriptedNodeService.device("gpu-a"))),
                "uid-zombie", ClaimPrepareResult.ok(List.of()));
    service.unprepare = (claims, call) -> Map.of();
    PluginInstance plugin = h.register(h.server(service));
    for (DraVersion version : DraVersion.values()) {
      // The simulator fails the call the way the kubelet would if an entry were missing or extra.
      Map<String, ClaimResult> result = plugin.prepare(version, List.of(A, B));
      assertThat(result).containsOnlyKeys("uid-a", "uid-b");
      assertThat(result.get("uid-a").isOk()).isTrue();
      assertThat(result.get("uid-b").error())
          .hasValueSatisfying(
              e -> assertThat(e).contains("returned no result").contains("ns/gpu-b (uid-b)"));
      Map<String, Optional<String>> unprepared = plugin.unprepare(version, List.of(A, B));
      assertThat(unprepared).containsOnlyKeys("uid-a", "uid-b");
      assertThat(unprepared.values()).allSatisfy(e -> assertThat(e).isPresent());
    }
  }

  @Test
  void nullAnswerFailsEachClaimNotTheCall() throws Exception {
    service.prepare = (claims, call) -> null;
    PluginInstance plugin = h.register(h.server(service));
    Map<String, ClaimResult> result = plugin.prepare(List.of(A, B));
    assertThat(result.values()).allSatisfy(r -> assertThat(r.isOk()).isFalse());
  }

  @Test
  void perClaimErrorIsReportedInTheClaim() throws Exception {
    service.prepare =
        (claims, call) ->
            Map.of(
                "uid-a", ClaimPrepareResult.failed("gpu-a is unhealthy"),
                "uid-b", ClaimPrepareResult.ok(List.of(ScriptedNodeService.device("gpu-b"))));
    PluginInstance plugin = h.register(h.server(service));
    for (DraVersion version : DraVersion.values()) {
      Map<String, ClaimResult> result = plugin.prepare(version, List.of(A, B));
      assertThat(result.get("uid-a").error()).contains("gpu-a is unhealthy");
      assertThat(result.get("uid-a").devices()).isEmpty();
      assertThat(result.get("uid-b").isOk()).isTrue();
    }
  }

  @Test
  void wholeCallFailureIsAGrpcStatusWithTheMessage() throws Exception {
    PluginInstance plugin = h.register(h.server(service));
    assertFails(
        plugin,
        new IllegalStateException("ResourceClaim ns/gpu-a is not allocated"),
        Status.Code.FAILED_PRECONDITION,
        "ResourceClaim ns/gpu-a is not allocated");
    assertFails(
        plugin,
        new IOException("connection refused: api server"),
        Status.Code.UNAVAILABLE,
        "connection refused: api server");
    assertFails(
        plugin,
        new IllegalArgumentException("bad opaque config"),
        Status.Code.INVALID_ARGUMENT,
        "bad opaque config");
    assertFails(plugin, new NullPointerException("oops"), Status.Code.INTERNAL, "oops");
  }

  private void assertFails(
      PluginInstance plugin, Exception thrown, Status.Code code, String message) {
    service.prepare =
        (claims, call) -> {
          throw thrown;
        };
    for (DraVersion version : DraVersion.values()) {
      assertThatThrownBy(() -> plugin.prepare(version, List.of(A)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(code);
                assertThat(e.getStatus().getDescription()).isEqualTo(message);
              });
    }
  }

  @Test
  void claimWithoutUidIsRejectedAsInvalidArgument() throws Exception {
    PluginInstance plugin = h.register(h.server(service));
    assertThatThrownBy(() -> plugin.prepare(List.of(A, ClaimRef.of("ns", "x", ""))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("claims[1]").contains("uid");
            });
    assertThat(service.prepareCalls).isEmpty();
  }

  @Test
  void repeatedClaimIsPreparedOnce() throws Exception {
    PluginInstance plugin = h.register(h.server(service));
    assertThat(plugin.prepare(List.of(A, A, B))).containsOnlyKeys("uid-a", "uid-b");
    assertThat(service.prepareCalls).containsExactly(List.of(A, B));
  }

  @Test
  void callsReachTheServiceAsTheyArrive() throws Exception {
    // The server never serializes: that is the service's (the claim pipeline's ClaimSerializer).
    assertThat(runConcurrentPrepares())
        .containsExactly(
            "requested", "enter uid-a", "requested", "enter uid-b", "exit uid-b", "exit uid-a");
  }

  /**
   * Prepares A (which blocks inside the NodeService) and, once B's call has reached the server,
   * releases A. The log shows whether B entered while A was inside.
   */
  private List<String> runConcurrentPrepares() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch aInside = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    service.prepare =
        (claims, call) -> {
          String uid = claims.get(0).uid();
          log.add("enter " + uid);
          if (uid.equals("uid-a")) {
            aInside.countDown();
            releaseA.await(20, TimeUnit.SECONDS);
          }
          log.add("exit " + uid);
          return ScriptedNodeService.oneDeviceEach(claims, call);
        };
    ServerInterceptor requested =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            if (!call.getMethodDescriptor().getBareMethodName().equals("NodePrepareResources")) {
              return next.startCall(call, headers); // registration calls go through here too
            }
            // Runs when the request message arrives, before the server calls the service.
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                next.startCall(call, headers)) {
              @Override
              public void onHalfClose() {
                log.add("requested");
                super.onHalfClose();
              }
            };
          }
        };
    PluginInstance plugin = h.register(h.server(service).interceptor(requested));
    CompletableFuture<Map<String, ClaimResult>> a =
        CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(A)), Harness.THREADS);
    assertThat(aInside.await(20, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Map<String, ClaimResult>> b =
        CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(B)), Harness.THREADS);
    Await.until(
        "both calls reached the server",
        WAIT,
        () -> log.stream().filter("requested"::equals).count() == 2);
    // B runs to completion on its own; wait for it before releasing A.
    b.get(20, TimeUnit.SECONDS);
    releaseA.countDown();
    assertThat(a.get(20, TimeUnit.SECONDS).get("uid-a").isOk()).isTrue();
    assertThat(b.get(20, TimeUnit.SECONDS).get("uid-b").isOk()).isTrue();
    return log;
  }

  @Test
  void nodeCallCarriesDistinctRequestIds() throws Exception {
    KubeletPluginServer server = h.start(h.server(service));
    PluginInstance plugin = h.kubelet.awaitPluginAt(server.registrationSocket(), WAIT);
    plugin.prepare(List.of(A));
    plugin.unprepare(List.of(A));
    assertThat(service.calls).hasSize(2);
    assertThat(service.calls.get(1).requestId()).isGreaterThan(service.calls.get(0).requestId());
    assertThat(service.calls.get(0).isCancelled()).isTrue(); // the call is over
  }
}
