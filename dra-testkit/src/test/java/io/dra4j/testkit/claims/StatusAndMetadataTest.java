package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.OTHER_DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.status.Condition;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.api.status.NetworkDeviceData;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.testkit.kubelet.ClaimResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Claim status (KEP-4817) and device node checks; device metadata: {@link DeviceMetadataTest}. */
class StatusAndMetadataTest {

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

  private static DeviceStatus ready(String device) {
    return DeviceStatus.ready("Configured", "device " + device + " is ready")
        .withData(Map.of("partition", device + "-p"))
        .withNetworkData(
            NetworkDeviceData.builder()
                .interfaceName("eth-" + device)
                .ips(List.of("192.0.2.5/24"))
                .hardwareAddress("aa:bb")
                .build());
  }

  private List<AllocatedDeviceStatus> statusOf(String name) {
    return h.api.object(ResourceClaim.TYPE, "ns", name).get().status().devices();
  }

  @Test
  void statusIsAppliedOnlyForOurDevicesAndKeepsOtherManagersEntries() throws Exception {
    h.start(provider);
    provider.status = d -> Optional.of(ready(d.device()));
    ClaimRef claim =
        h.seed(
            "st",
            List.of(
                result("gpu", "node-a", "gpu-0"),
                DeviceRequestAllocationResult.of("nic", OTHER_DRIVER, "node-a", "eth0")));
    // The other driver already reported its device.
    h.client.apply(
        ResourceClaim.TYPE,
        "ns",
        "st",
        "status",
        Map.of(
            "apiVersion",
            "resource.k8s.io/v1",
            "kind",
            "ResourceClaim",
            "metadata",
            Map.of("name", "st", "namespace", "ns"),
            "status",
            Map.of(
                "devices",
                List.of(Map.of("driver", OTHER_DRIVER, "pool", "node-a", "device", "eth0")))),
        new ApplyOptions(OTHER_DRIVER, true));

    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid()).isOk()).isTrue();

    List<AllocatedDeviceStatus> devices = statusOf("st");
    assertThat(devices)
        .extracting(AllocatedDeviceStatus::key)
        .containsExactlyInAnyOrder(DRIVER + "/node-a/gpu-0", OTHER_DRIVER + "/node-a/eth0");
    AllocatedDeviceStatus ours =
        devices.stream().filter(d -> d.driver().equals(DRIVER)).findFirst().get();
    assertThat(ours.conditions()).hasSize(1);
    assertThat(ours.conditions().get(0).type()).isEqualTo("Ready");
    assertThat(ours.conditions().get(0).lastTransitionTime()).matches("\\d{4}-.*T.*Z");
    assertThat(ours.data().get().get("partition").asText()).isEqualTo("gpu-0-p");
    assertThat(ours.networkData().get().ips()).containsExactly("192.0.2.5/24");
    JsonNode managed =
        h.api.raw(ResourceClaim.TYPE, "ns", "st").get().path("metadata").path("managedFields");
    assertThat(managed.toString()).contains("\"manager\":\"" + DRIVER + "\"");
  }

  @Test
  void aFailedApplyFailsTheClaimAndTheRepeatAppliesItFromTheCheckpoint() throws Exception {
    h.start(provider);
    provider.status = d -> Optional.of(ready(d.device()));
    ClaimRef claim = h.seed("retry", List.of(result("gpu", "node-a", "gpu-0")));
    h.api.faults().failNext("patch", "resourceclaims/status", 1, 403);

    ClaimResult first = h.plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(first.error().get()).contains("applying their status failed (HTTP 403)");
    assertThat(statusOf("retry")).isEmpty();
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");

    ClaimResult second = h.plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(second.isOk()).isTrue();
    assertThat(provider.prepareCalls).hasSize(1);
    assertThat(statusOf("retry")).hasSize(1);
    String time = statusOf("retry").get(0).conditions().get(0).lastTransitionTime();

    // A later repeat keeps the transition time: the condition did not change.
    Await.nextSecond();
    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid()).isOk()).isTrue();
    assertThat(statusOf("retry").get(0).conditions().get(0).lastTransitionTime()).isEqualTo(time);
  }

  @Test
  void invalidStatusFromTheProviderFailsTheClaimNamingDeviceAndField() throws Exception {
    h.start(provider);
    List<Object[]> cases =
        List.of(
            new Object[] {
              DeviceStatus.of(List.of(Condition.of("not ready", "True", "Ok", ""))),
              "conditions[0].type \"not ready\""
            },
            new Object[] {
              DeviceStatus.of(List.of(Condition.of("Ready", "Yes", "Ok", ""))),
              "conditions[0].status \"Yes\" must be True, False or Unknown"
            },
            new Object[] {
              DeviceStatus.ready("Ok", "")
                  .withNetworkData(
                      NetworkDeviceData.builder()
                          .interfaceName("eth0")
                          .ips(List.of("192.0.2.5"))
                          .build()),
              "networkData.ips[0] \"192.0.2.5\" must be a valid address in CIDR form"
            },
            new Object[] {
              DeviceStatus.ready("Ok", "").withData(Map.of("blob", "x".repeat(11000))), "data: 11"
            });
    int i = 0;
    for (Object[] c : cases) {
      DeviceStatus bad = (DeviceStatus) c[0];
      provider.status = d -> Optional.of(bad);
      ClaimRef claim = h.seed("bad" + i++, List.of(result("gpu", "node-a", "gpu-0")));
      ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());
      assertThat(r.error().get())
          .contains("invalid claim status from the provider")
          .contains("status of device node-a/gpu-0 of request gpu")
          .contains((String) c[1]);
      assertThat(h.checkpointFiles()).isEmpty();
      assertThat(h.cdiFiles()).isEmpty();
    }
  }

  @Test
  void aMissingRequiredDeviceNodeFailsTheClaimAndNothingIsWritten() throws Exception {
    provider.deviceNodes = true;
    h.start(provider);
    Files.writeString(h.devRoot.resolve("gpu-0"), "");
    // /dev/gpu-0 exists only under the test's dev root, not on this host, so the reference library
    // cannot inject it here: it loads and checks the specs without injecting.
    h.kubelet.containerRuntime(
        (driver, prepared) -> CdiValidators.assertValid(h.cdiDir, List.of()));
    ClaimRef present = h.seed("present", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef absent = h.seed("absent", List.of(result("gpu", "node-a", "gpu-1")));

    Map<String, ClaimResult> r = h.plugin.prepare(List.of(present, absent));

    assertThat(r.get(present.uid()).isOk()).isTrue();
    assertThat(r.get(absent.uid()).error().get())
        .contains("required device node /dev/gpu-1")
        .contains("device gpu-1 of claim " + absent)
        .contains("does not exist on the host");
    assertThat(h.cdiFiles()).containsExactly("k8s." + DRIVER + "-claim_" + present.uid() + ".json");
    assertThat(h.checkpointFiles()).containsExactly(present.uid() + ".json");
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).claim()).isEqualTo(absent);
  }
}
