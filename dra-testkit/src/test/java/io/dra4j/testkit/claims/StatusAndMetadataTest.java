package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.OTHER_DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Device;
import io.dra4j.api.status.Condition;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.api.status.NetworkDeviceData;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.testkit.kubelet.ClaimResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Claim status (KEP-4817), device metadata (KEP-5304) and device node checks. */
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

  @Test
  void deviceMetadataFilesAndCdiSpecsPerRequest() throws Exception {
    Device gpu0 =
        Device.builder("gpu-0").attribute("model", "H200").attribute("memoryGiB", 141L).build();
    h.start(provider, b -> b.deviceMetadata(true).inventory(() -> Map.of("node-a/gpu-0", gpu0)));
    provider.status =
        d -> d.device().equals("gpu-2") ? Optional.of(ready("gpu-2")) : Optional.empty();
    ClaimRef claim =
        h.seed(
            "ns",
            "meta",
            List.of(
                result("gpu", "node-a", "gpu-0"),
                result("gpu", "node-a", "gpu-1"),
                result("nic", "node-a", "gpu-2")),
            List.of(),
            Map.of("resource.kubernetes.io/pod-claim-name", "my-gpus"));

    ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());

    assertThat(r.error()).isEmpty();
    String gpuId = DRIVER + "/metadata=" + claim.uid() + "_gpu";
    String nicId = DRIVER + "/metadata=" + claim.uid() + "_nic";
    assertThat(r.devices().get(0).cdiDeviceIds()).hasSize(2).contains(gpuId);
    assertThat(r.devices().get(1).cdiDeviceIds()).hasSize(1).doesNotContain(gpuId);
    assertThat(r.devices().get(2).cdiDeviceIds()).hasSize(2).contains(nicId);

    Path file = h.pluginDir.resolve("dra-device-metadata/ns_meta/gpu/metadata.json");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r--r--");
    JsonNode meta = new ObjectMapper().readTree(file.toFile());
    assertThat(meta.path("apiVersion").asText()).isEqualTo("metadata.resource.k8s.io/v1beta1");
    assertThat(meta.path("kind").asText()).isEqualTo("DeviceMetadata");
    assertThat(meta.path("podClaimName").asText()).isEqualTo("my-gpus");
    JsonNode req = meta.path("requests").get(0);
    assertThat(req.path("name").asText()).isEqualTo("gpu");
    assertThat(req.path("devices")).hasSize(2);
    assertThat(req.path("devices").get(0).path("driver").asText()).isEqualTo(DRIVER);
    assertThat(req.path("devices").get(0).path("name").asText()).isEqualTo("gpu-0");
    assertThat(req.path("devices").get(0).path("attributes").path("model").path("string").asText())
        .isEqualTo("H200");
    JsonNode nic =
        new ObjectMapper()
            .readTree(
                h.pluginDir.resolve("dra-device-metadata/ns_meta/nic/metadata.json").toFile());
    assertThat(
            nic.path("requests")
                .get(0)
                .path("devices")
                .get(0)
                .path("networkData")
                .path("interfaceName")
                .asText())
        .isEqualTo("eth-gpu-2");

    Path spec = h.cdiDir.resolve(DRIVER + "_metadata_" + claim.uid() + "_gpu.json");
    JsonNode cdi = new ObjectMapper().readTree(spec.toFile());
    assertThat(cdi.path("kind").asText()).isEqualTo(DRIVER + "/metadata");
    JsonNode mount = cdi.path("devices").get(0).path("containerEdits").path("mounts").get(0);
    assertThat(mount.path("hostPath").asText()).isEqualTo(file.toAbsolutePath().toString());
    assertThat(mount.path("containerPath").asText())
        .isEqualTo(
            "/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/my-gpus/gpu/"
                + DRIVER
                + "-metadata.json");
    CdiValidators.assertValid(
        h.cdiDir, r.devices().stream().flatMap(d -> d.cdiDeviceIds().stream()).toList());

    // Repeat: same ids from the checkpoint.
    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid())).isEqualTo(r);

    assertThat(h.plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(h.cdiFiles()).isEmpty();
    assertThat(ClaimsHarness.files(h.pluginDir.resolve("dra-device-metadata"))).isEmpty();
    assertThat(h.pluginDir.resolve("dra-device-metadata/ns_meta")).doesNotExist();
    // Serialized through Jackson the same way as the slices publish it.
    assertThat(
            KubeJson.mapper().valueToTree(gpu0.attributes()).path("memoryGiB").path("int").asLong())
        .isEqualTo(141L);
  }
}
