package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.OTHER_DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.DeviceResult;
import io.dra4j.testkit.kubelet.DraVersion;
import io.dra4j.testkit.kubelet.PluginInstance;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Prepare and unprepare through the kubelet contract: simulator → sockets → pipeline → fakes. */
class PrepareFlowTest {

  @TempDir Path tmp;
  ClaimsHarness h;
  final TestProvider provider = new TestProvider();

  @BeforeEach
  void setUp() throws Exception {
    h = new ClaimsHarness(tmp);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  @Test
  void preparesWritesCdiAndCheckpointAndRepeatsFromTheCheckpoint() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef claim =
        h.seed(
            "gpu-claim",
            List.of(result("gpu", "node-a", "gpu-0"), result("gpu", "node-a", "gpu-1")));

    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());

    assertThat(r.error()).isEmpty();
    assertThat(r.devices()).hasSize(2);
    DeviceResult d0 = r.devices().get(0);
    assertThat(d0.requestNames()).containsExactly("gpu");
    assertThat(d0.poolName()).isEqualTo("node-a");
    assertThat(d0.deviceName()).isEqualTo("gpu-0");
    assertThat(d0.cdiDeviceIds()).hasSize(1);
    assertThat(d0.cdiDeviceIds().get(0)).startsWith("k8s." + DRIVER + "/claim=");
    assertThat(h.cdiFiles()).containsExactly("k8s." + DRIVER + "-claim_" + claim.uid() + ".json");
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    assertThat(Files.readString(h.pluginDir.resolve("checkpoints").resolve(claim.uid() + ".json")))
        .contains("PrepareCompleted")
        .contains("gpu-1-p");
    CdiValidators.assertValid(
        h.cdiDir, r.devices().stream().flatMap(d -> d.cdiDeviceIds().stream()).toList());

    // The kubelet restarted and prepares again: same answer, no second provider call.
    ClaimResult again = plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(again).isEqualTo(r);
    assertThat(provider.prepareCalls).hasSize(1);
    assertThat(h.preparer.stats().repeated()).isEqualTo(1);
    assertThat(h.preparer.stats().prepared()).isEqualTo(1);

    // Unprepare: provider gets what it recorded, files go.
    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).completed()).isTrue();
    assertThat(provider.unprepareCalls.get(0).devices().get(1).recorded())
        .containsExactly(Map.entry("partition", "gpu-1-p"));
    assertThat(h.cdiFiles()).isEmpty();
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(provider.held).isEmpty();

    // Unprepared twice: still success, no provider call.
    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(provider.unprepareCalls).hasSize(1);
  }

  @Test
  void unprepareOfUnknownClaimSucceedsAndRemovesAStraySpec() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef unknown = ClaimRef.of("ns", "never", "0f0f0f0f-0000-4000-8000-000000000001");
    Path stray = h.cdiDir.resolve("k8s." + DRIVER + "-claim_" + unknown.uid() + ".json");
    Files.writeString(stray, "{}");

    assertThat(plugin.unprepare(List.of(unknown))).containsEntry(unknown.uid(), Optional.empty());
    assertThat(provider.unprepareCalls).isEmpty();
    assertThat(stray).doesNotExist();
  }

  @Test
  void unprepareNeedsNoApiServerWhenTheClaimIsDeleted() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef claim = h.seed("gone", List.of(result("gpu", "node-a", "gpu-0")));
    assertThat(plugin.prepare(List.of(claim)).get(claim.uid()).isOk()).isTrue();
    h.client.delete(ResourceClaim.TYPE, "ns", "gone", io.dra4j.kube.Preconditions.NONE);
    h.api.faults().failNext("get", "resourceclaims", 100, 503);
    long getsBefore = h.api.requests("get", "resourceclaims");

    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(h.api.requests("get", "resourceclaims")).isEqualTo(getsBefore);
    assertThat(h.cdiFiles()).isEmpty();
    h.api.faults().clear();
  }

  @Test
  void replacedUnallocatedAndMissingClaimsFailPerClaimOthersSucceed() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef good = h.seed("good", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef replaced = h.seed("replaced", List.of(result("gpu", "node-a", "gpu-1")));
    ClaimRef staleRef = ClaimRef.of("ns", "replaced", "11111111-2222-4333-8444-555555555555");
    h.api.put(
        ResourceClaim.TYPE,
        ResourceClaim.of(io.dra4j.kube.ObjectMeta.named("ns", "unallocated"), null));
    ClaimRef unallocated =
        ClaimRef.of(
            "ns",
            "unallocated",
            h.api.object(ResourceClaim.TYPE, "ns", "unallocated").get().metadata().uid());
    ClaimRef missing = ClaimRef.of("ns", "missing", "22222222-2222-4333-8444-555555555555");

    Map<String, ClaimResult> r = plugin.prepare(List.of(good, staleRef, unallocated, missing));

    assertThat(r.get(good.uid()).isOk()).isTrue();
    assertThat(r.get(staleRef.uid()).error())
        .contains(
            "claim ns/replaced was replaced: expected uid "
                + staleRef.uid()
                + ", found "
                + replaced.uid());
    assertThat(r.get(unallocated.uid()).error().get()).contains("is not allocated");
    assertThat(r.get(missing.uid()).error().get()).contains("ns/missing").contains("not found");
    assertThat(provider.prepareCalls).hasSize(1);
    assertThat(h.checkpointFiles()).containsExactly(good.uid() + ".json");
  }

  @Test
  void anUnreachableApiServerFailsTheWholeCallAsUnavailable() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef claim = h.seed("c", List.of(result("gpu", "node-a", "gpu-0")));
    h.api.faults().failNext("get", "resourceclaims", 2, 503);

    assertThatThrownBy(() -> plugin.prepare(List.of(claim)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("ns/c");
            });
    assertThat(provider.prepareCalls).isEmpty();
    // The kubelet retries; now it works.
    assertThat(plugin.prepare(List.of(claim)).get(claim.uid()).isOk()).isTrue();
  }

  @Test
  void keepsOnlyOurResultsAndMapsSubrequestsAdminTolerationsShareAndCapacity() throws Exception {
    PluginInstance plugin = h.start(provider);
    String share = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
    ClaimRef claim =
        h.seed(
            "mixed",
            List.of(
                DeviceRequestAllocationResult.of("nic", OTHER_DRIVER, "node-a", "eth0"),
                new DeviceRequestAllocationResult(
                    "gpu/large",
                    DRIVER,
                    "node-a",
                    "gpu-0",
                    Optional.of(true),
                    List.of(
                        io.dra4j.api.device.DeviceToleration.builder()
                            .key("example.com/unhealthy")
                            .operator("Exists")
                            .build()),
                    null,
                    null,
                    Optional.of(share),
                    Map.of("memory", io.dra4j.api.device.Quantity.parse("8Gi")),
                    null,
                    null)));

    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());

    assertThat(r.error()).isEmpty();
    assertThat(r.devices()).hasSize(1);
    assertThat(r.devices().get(0).requestNames()).containsExactly("gpu");
    assertThat(r.devices().get(0).shareId()).contains(share);
    AllocatedDevice d = provider.prepareCalls.get(0).devices().get(0);
    assertThat(d.request()).isEqualTo("gpu");
    assertThat(d.subrequest()).contains("large");
    assertThat(d.adminAccess()).isTrue();
    assertThat(d.tolerations()).hasSize(1);
    assertThat(d.shareId()).contains(share);
    assertThat(d.consumedCapacity()).containsKey("memory");
    assertThat(d.config()).isEmpty();
  }

  @Test
  void extendedResourceClaimsNeedNoSpecialCase() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef claim =
        h.seed(
            "ns",
            "pod-1-extended-resources-abcde",
            List.of(
                result("container-0-request-0", "node-a", "gpu-0"),
                result("container-1-request-0", "node-a", "gpu-1")),
            List.of(),
            Map.of(ResourceClaim.EXTENDED_RESOURCE_CLAIM_ANNOTATION, "true"));
    ClaimRef ref = ClaimRef.of("ns", claim.name(), claim.uid());

    ClaimResult r = plugin.prepare(List.of(ref)).get(ref.uid());

    assertThat(r.error()).isEmpty();
    assertThat(r.devices())
        .extracting(DeviceResult::requestNames)
        .containsExactly(List.of("container-0-request-0"), List.of("container-1-request-0"));
    assertThat(provider.prepareCalls.get(0).annotations())
        .containsEntry(ResourceClaim.EXTENDED_RESOURCE_CLAIM_ANNOTATION, "true");
    CdiValidators.assertValid(
        h.cdiDir, r.devices().stream().flatMap(d -> d.cdiDeviceIds().stream()).toList());
    assertThat(plugin.unprepare(List.of(ref))).containsEntry(ref.uid(), Optional.empty());
  }

  @Test
  void aProviderFailureFailsOnlyThatClaimAndLeavesNothingBehind() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef ok = h.seed("ok", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef bad = h.seed("bad", List.of(result("gpu", "node-a", "gpu-1")));
    provider.failPrepare = a -> a.claim().name().equals("bad");

    Map<String, ClaimResult> r = plugin.prepare(List.of(bad, ok));

    assertThat(r.get(bad.uid()).error().get()).contains("simulated failure").contains("ns/bad");
    assertThat(r.get(ok.uid()).isOk()).isTrue();
    assertThat(h.checkpointFiles()).containsExactly(ok.uid() + ".json");
    assertThat(h.cdiFiles()).containsExactly("k8s." + DRIVER + "-claim_" + ok.uid() + ".json");
    // The failed prepare was undone through the provider (completed = false).
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).completed()).isFalse();
    // Its device is free again.
    provider.failPrepare = a -> false;
    assertThat(plugin.prepare(List.of(bad)).get(bad.uid()).isOk()).isTrue();
  }

  @Test
  void v1beta1GetsTheSameDevicesWithoutShareId() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef claim = h.seed("b", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimResult r = plugin.prepare(DraVersion.V1BETA1, List.of(claim)).get(claim.uid());
    assertThat(r.isOk()).isTrue();
    assertThat(r.devices().get(0).cdiDeviceIds()).hasSize(1);
    assertThat(plugin.unprepare(DraVersion.V1BETA1, List.of(claim)))
        .containsEntry(claim.uid(), Optional.empty());
  }

  @Test
  void aClaimBeingDeletedIsStillPrepared() throws Exception {
    PluginInstance plugin = h.start(provider);
    ClaimRef claim = h.seed("deleting", List.of(result("gpu", "node-a", "gpu-0")));
    ResourceClaim c = h.api.object(ResourceClaim.TYPE, "ns", "deleting").get();
    var m = c.metadata();
    h.client.update(
        ResourceClaim.TYPE,
        c.withMetadata(
            new io.dra4j.kube.ObjectMeta(
                m.name(),
                "",
                m.namespace(),
                m.uid(),
                m.resourceVersion(),
                m.generation(),
                m.creationTimestamp(),
                Optional.empty(),
                m.labels(),
                m.annotations(),
                m.ownerReferences(),
                List.of("example.com/keep"),
                null)));
    h.client.delete(ResourceClaim.TYPE, "ns", "deleting", io.dra4j.kube.Preconditions.NONE);
    assertThat(
            h.api.object(ResourceClaim.TYPE, "ns", "deleting").get().metadata().deletionTimestamp())
        .isPresent();

    assertThat(plugin.prepare(List.of(claim)).get(claim.uid()).isOk()).isTrue();
  }
}
