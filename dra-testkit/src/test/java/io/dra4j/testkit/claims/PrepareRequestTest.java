package io.dra4j.testkit.claims;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimConsumer;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.OpaqueConfig;
import io.dra4j.api.claim.PrepareRequest;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.provider.ConfigType;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.proto.dra.v1.Claim;
import io.dra4j.proto.dra.v1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1.NodePrepareResourcesRequest;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a provider that implements {@code prepare(PrepareRequest)} gets and may answer, through the
 * kubelet contract: the whole claim, the kubelet's deadline and cancellation, every config that
 * applies to a device, and CDI device ids of specs it manages itself.
 */
class PrepareRequestTest {

  static final String STATIC_KIND = "vendor.example.com/gpu";

  private static final MultiThreadIoEventLoopGroup GROUP =
      new MultiThreadIoEventLoopGroup(
          1, new DefaultThreadFactory("prepare-request-test", true), EpollIoHandler.newFactory());

  @TempDir Path tmp;
  ClaimsHarness h;
  final RequestProvider provider = new RequestProvider();

  /** A provider of the new kind: it implements only {@code prepare(PrepareRequest)}. */
  static final class RequestProvider implements DeviceProvider, TypedConfig {

    @FunctionalInterface
    interface Body {
      PreparedDevice prepare(PrepareRequest request, AllocatedDevice device)
          throws DeviceException, InterruptedException;
    }

    final List<PrepareRequest> requests = new CopyOnWriteArrayList<>();
    final List<PreparedClaim> unprepared = new CopyOnWriteArrayList<>();
    volatile Body body =
        (r, d) ->
            PreparedDevice.builder(d)
                .edits(ContainerEdits.builder().env("DEV", d.device()).build())
                .build();

    @Override
    public Inventory discover(ProviderContext context) {
      throw new UnsupportedOperationException("not used by the pipeline");
    }

    @Override
    public PrepareResult prepare(PrepareRequest request) throws DeviceException {
      requests.add(request);
      List<PreparedDevice> out = new ArrayList<>();
      try {
        for (AllocatedDevice d : request.allocation().devices()) {
          out.add(body.prepare(request, d));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DeviceException("interrupted", e);
      }
      return PrepareResult.of(out);
    }

    @Override
    public void unprepare(PreparedClaim claim) {
      unprepared.add(claim);
    }

    @Override
    public List<ConfigType<?>> configTypes() {
      return List.of(
          ConfigType.of(TestProvider.API_VERSION, "GpuConfig", TestProvider.GpuConfig.class));
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    h = new ClaimsHarness(tmp);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  @AfterAll
  static void closeGroup() {
    GROUP.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /** A claim with everything a view shows: labels, spec, configs of both sources, consumers. */
  ClaimRef seedWholeClaim() throws Exception {
    String gpuConfig =
        "{\"apiVersion\":\"" + TestProvider.API_VERSION + "\",\"kind\":\"GpuConfig\",\"sharing\":";
    String json =
        """
        {"metadata": {"name": "whole", "namespace": "ns", "labels": {"team": "ml"},
                      "annotations": {"resource.kubernetes.io/pod-claim-name": "gpus"}},
         "spec": {"devices": {"requests": [{"name": "gpu",
                    "exactly": {"deviceClassName": "gpu.example.com", "count": 2}}]}},
         "status": {
           "allocation": {
             "devices": {
               "results": [
                 {"request": "gpu", "driver": "gpu.example.com", "pool": "node-a", "device": "gpu-0"},
                 {"request": "gpu", "driver": "gpu.example.com", "pool": "node-a", "device": "gpu-1"}],
               "config": [
                 {"source": "FromClass", "opaque": {"driver": "gpu.example.com",
                   "parameters": %s"none"}}},
                 {"source": "FromClaim", "requests": ["gpu"], "opaque": {"driver": "gpu.example.com",
                   "parameters": %s"timeslice"}}},
                 {"source": "FromClaim", "opaque": {"driver": "nic.example.com",
                   "parameters": {"mtu": 9000}}}]},
             "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
               {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]},
             "allocationTimestamp": "2026-03-01T10:00:00Z"},
           "reservedFor": [{"resource": "pods", "name": "train", "uid": "pod-uid-1"}]}}
        """
            .formatted(gpuConfig, gpuConfig);
    ResourceClaim stored =
        h.api.put(ResourceClaim.TYPE, KubeJson.mapper().readValue(json, ResourceClaim.class));
    return ClaimRef.of("ns", "whole", stored.metadata().uid());
  }

  @Test
  void theProviderSeesTheWholeClaimTheKubeletsDeadlineAndEveryConfigInOrder() throws Exception {
    h.start(provider);
    ClaimRef ref = seedWholeClaim();
    AtomicBoolean cancelledDuringPrepare = new AtomicBoolean(true);
    RequestProvider.Body normal = provider.body;
    provider.body =
        (r, d) -> {
          cancelledDuringPrepare.set(r.call().isCancelled());
          return normal.prepare(r, d);
        };
    Instant before = Instant.now();

    assertThat(h.plugin.prepare(List.of(ref)).get(ref.uid()).isOk()).isTrue();

    PrepareRequest r = provider.requests.get(0);
    ResourceClaim stored = h.api.object(ResourceClaim.TYPE, "ns", "whole").orElseThrow();
    assertThat(r.claim().ref()).isEqualTo(ref);
    assertThat(r.claim().generation()).isEqualTo(stored.metadata().generation());
    assertThat(r.claim().labels()).containsEntry("team", "ml");
    assertThat(r.claim().annotations())
        .containsEntry("resource.kubernetes.io/pod-claim-name", "gpus");
    JsonNode spec = KubeJson.mapper().readTree(r.claim().specJson());
    assertThat(spec.at("/devices/requests/0/exactly/deviceClassName").asText())
        .isEqualTo("gpu.example.com");
    assertThat(r.claim().reservedFor())
        .containsExactly(ClaimConsumer.builder("pods", "train", "pod-uid-1").build());
    assertThat(r.claim().nodeSelector()).contains(NodeSelector.forNodeName("node-a"));
    assertThat(r.claim().allocationTimestamp()).contains(Instant.parse("2026-03-01T10:00:00Z"));

    // The kubelet's deadline (45 s after the call began), not yet passed.
    assertThat(r.call().deadline()).isPresent();
    assertThat(r.call().deadline().get())
        .isAfter(before.plusSeconds(40))
        .isBefore(Instant.now().plusSeconds(45));
    assertThat(cancelledDuringPrepare).isFalse();

    // Every config of this driver, class first, beside the decoded winner (the claim's).
    for (AllocatedDevice d : r.allocation().devices()) {
      assertThat(r.configs(d))
          .extracting(OpaqueConfig::source)
          .containsExactly(OpaqueConfig.Source.CLASS, OpaqueConfig.Source.CLAIM);
      assertThat(r.configs(d))
          .extracting(c -> KubeJson.mapper().readTree(c.parametersJson()).path("sharing").asText())
          .containsExactly("none", "timeslice");
      assertThat(r.configs(d).get(1).requests()).containsExactly("gpu");
      assertThat(d.config(TestProvider.GpuConfig.class))
          .contains(new TestProvider.GpuConfig("timeslice", null));
    }
  }

  @Test
  void aProviderThatRunsOverIsToldAndTheRetryIsAnsweredFromTheCheckpoint() throws Exception {
    h.start(provider);
    ClaimRef ref = h.seed("late", List.of(ClaimsHarness.result("gpu", "node-a", "gpu-0")));
    ClaimRef next = h.seed("next", List.of(ClaimsHarness.result("gpu", "node-a", "gpu-1")));
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch told = new CountDownLatch(1);
    RequestProvider.Body normal = provider.body;
    provider.body =
        (r, d) -> {
          r.call().onCancel(told::countDown);
          entered.countDown();
          // The provider's slow work, which it cuts short when told.
          told.await(30, TimeUnit.SECONDS);
          return normal.prepare(r, d);
        };

    // The kubelet gives up while the provider works (its deadline passing cancels the same way).
    ManagedChannel channel = UdsChannels.open(h.server.draSocket(), GROUP);
    try {
      var call =
          DRAPluginGrpc.newFutureStub(channel)
              .withDeadlineAfter(45, TimeUnit.SECONDS)
              .nodePrepareResources(
                  NodePrepareResourcesRequest.newBuilder()
                      .addClaims(
                          Claim.newBuilder()
                              .setNamespace(ref.namespace())
                              .setName(ref.name())
                              .setUid(ref.uid()))
                      .addClaims(
                          Claim.newBuilder()
                              .setNamespace(next.namespace())
                              .setName(next.name())
                              .setUid(next.uid()))
                      .build());
      assertThat(entered.await(30, TimeUnit.SECONDS)).as("the provider was called").isTrue();
      call.cancel(true);
      assertThat(told.await(30, TimeUnit.SECONDS)).as("the provider was told").isTrue();
    } finally {
      channel.shutdownNow();
    }

    // The kubelet's retry waits for the first call to finish: the first claim is answered from its
    // record; the second, whose turn came after the kubelet gave up, is prepared now.
    provider.body = normal;
    var retry = h.plugin.prepare(List.of(ref, next));
    assertThat(retry.get(ref.uid()).isOk()).isTrue();
    assertThat(retry.get(next.uid()).isOk()).isTrue();
    assertThat(provider.requests).extracting(r -> r.claim().ref()).containsExactly(ref, next);
    assertThat(provider.unprepared).isEmpty();
  }

  /** A spec another tool wrote, as {@code nvidia-ctk cdi generate} writes NVIDIA's. */
  Path writeStaticSpec() throws Exception {
    return Files.writeString(
        h.cdiDir.resolve("vendor-static.json"),
        "{\"cdiVersion\":\"0.3.0\",\"kind\":\""
            + STATIC_KIND
            + "\",\"devices\":["
            + "{\"name\":\"gpu-0\",\"containerEdits\":{\"env\":[\"STATIC_GPU=0\"]}},"
            + "{\"name\":\"gpu-1\",\"containerEdits\":{\"env\":[\"STATIC_GPU=1\"]}}]}");
  }

  @Test
  void cdiDeviceIdsOfASpecTheProviderManagesReachTheKubeletAfterItsEdits() throws Exception {
    Path spec = writeStaticSpec();
    // gpu-0: container edits and the static device; gpu-1: the static device alone.
    provider.body =
        (r, d) -> {
          PreparedDevice.Builder b =
              PreparedDevice.builder(d).cdiDeviceId(STATIC_KIND + "=" + d.device());
          if (d.device().equals("gpu-0")) {
            b.edits(ContainerEdits.builder().env("DEV", d.device()).build());
          }
          return b.build();
        };
    h.start(provider);
    ClaimRef ref =
        h.seed(
            "static",
            List.of(
                ClaimsHarness.result("gpu", "node-a", "gpu-0"),
                ClaimsHarness.result("gpu", "node-a", "gpu-1")));

    // The harness's container runtime resolves every id with the CDI library (cdi-validate).
    ClaimResult r = h.plugin.prepare(List.of(ref)).get(ref.uid());

    assertThat(r.error()).isEmpty();
    assertThat(r.devices().get(0).cdiDeviceIds())
        .containsExactly(
            "k8s." + ClaimsHarness.DRIVER + "/claim=" + ref.uid() + "-gpu-0",
            STATIC_KIND + "=gpu-0");
    assertThat(r.devices().get(1).cdiDeviceIds()).containsExactly(STATIC_KIND + "=gpu-1");

    // The spec is the provider's: neither unprepare nor a restart's cleanup touches it.
    assertThat(h.plugin.unprepare(List.of(ref))).containsEntry(ref.uid(), Optional.empty());
    h.stopDriver();
    h.start(provider);
    assertThat(h.cdiFiles()).containsExactly(spec.getFileName().toString());
  }

  @Test
  void anIdThatNamesNoDeviceFailsTheClaimAndIsUndone() throws Exception {
    writeStaticSpec();
    provider.body =
        (r, d) ->
            PreparedDevice.builder(d)
                .edits(ContainerEdits.builder().env("DEV", d.device()).build())
                .cdiDeviceId(STATIC_KIND + "=gpu-9")
                .build();
    h.start(provider);
    ClaimRef ref = h.seed("missing", List.of(ClaimsHarness.result("gpu", "node-a", "gpu-0")));

    ClaimResult r = h.plugin.prepare(List.of(ref)).get(ref.uid());

    assertThat(r.error())
        .hasValueSatisfying(
            e ->
                assertThat(e)
                    .contains("claim ns/missing")
                    .contains("CDI device id \"" + STATIC_KIND + "=gpu-9\" names no device"));
    assertThat(provider.unprepared).hasSize(1);
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(h.cdiFiles()).containsExactly("vendor-static.json");
  }
}
