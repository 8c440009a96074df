package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.metadata.DeviceMetadata;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.api.status.NetworkDeviceData;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.runtime.testsupport.MetadataReader;
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

/**
 * Device metadata (KEP-5304) as k8s.io/dynamic-resource-allocation v0.37.2 writes it, checked by
 * the reader workloads use: upstream's {@code devicemetadata} package in {@code
 * e2e/metadata-reader}, which finds each file through the mount of the CDI spec we wrote at the
 * path upstream's {@code metadata.ResourceClaimFilePath} / {@code ResourceClaimTemplateFilePath}
 * computes, decodes it and validates it.
 */
class DeviceMetadataTest {
  static final String V1BETA1 = "metadata.resource.k8s.io/v1beta1";
  static final String V1ALPHA1 = "metadata.resource.k8s.io/v1alpha1";

  @TempDir Path tmp;
  ClaimsHarness h;
  final TestProvider provider = new TestProvider();
  final Device gpu0 =
      Device.builder("gpu-0").attribute("model", "H200").attribute("memoryGiB", 141L).build();

  @BeforeEach
  void setUp() throws Exception {
    h = new ClaimsHarness(tmp);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  private Path spec(ClaimRef claim, String request) {
    return h.cdiDir.resolve(DRIVER + "_metadata_" + claim.uid() + "_" + request + ".json");
  }

  private Path hostFile(ClaimRef claim, String request) {
    return h.pluginDir.resolve(
        "dra-device-metadata/" + claim.namespace() + "_" + claim.name() + "/" + request);
  }

  /** Claim ns/net, request nic of devices gpu-0 and gpu-1, prepared. */
  private ClaimRef prepareNetClaim() throws Exception {
    ClaimRef claim =
        h.seed(
            "ns",
            "net",
            List.of(result("nic", "node-a", "gpu-0"), result("nic", "node-a", "gpu-1")),
            List.of(),
            Map.of());
    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();
    return claim;
  }

  /** Metadata of gpu-0 with 31 attributes it is not published with. */
  private static DeviceMetadata thirtyOneMore() {
    DeviceMetadata.Builder many = DeviceMetadata.builder("node-a", "gpu-0");
    for (int i = 0; i < 31; i++) {
      many.attribute("a" + i, DeviceAttribute.of(i));
    }
    return many.build();
  }

  @Test
  void aClaimFromATemplateIsFoundByThePodsNameForItAndDecodedByUpstreamsReader() throws Exception {
    MetadataReader reader = MetadataReader.build();
    h.start(provider, b -> b.deviceMetadata(true).inventory(() -> Map.of("node-a/gpu-0", gpu0)));
    provider.status =
        d ->
            d.device().equals("gpu-2")
                ? Optional.of(
                    DeviceStatus.ready("Configured", "ready")
                        .withNetworkData(
                            NetworkDeviceData.builder()
                                .interfaceName("eth1")
                                .ips(List.of("192.0.2.5/24"))
                                .hardwareAddress("aa:bb")
                                .build()))
                : Optional.empty();
    ClaimRef claim =
        h.seed(
            "ns",
            "pod-gpus-x7k2p",
            List.of(
                result("gpu", "node-a", "gpu-0"),
                result("gpu", "node-a", "gpu-1"),
                result("nic", "node-a", "gpu-2")),
            List.of(),
            Map.of("resource.kubernetes.io/pod-claim-name", "gpus"));

    ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.error()).isEmpty();
    // The metadata CDI device goes with the first device of each request (draplugin.go:1347-1357).
    assertThat(r.devices().get(0).cdiDeviceIds())
        .contains(DRIVER + "/metadata=" + claim.uid() + "_gpu");
    assertThat(r.devices().get(1).cdiDeviceIds()).noneMatch(id -> id.contains("/metadata="));
    assertThat(r.devices().get(2).cdiDeviceIds())
        .contains(DRIVER + "/metadata=" + claim.uid() + "_nic");

    JsonNode gpu = reader.mounted(spec(claim, "gpu"), true, DRIVER, "gpus", "gpu");
    assertThat(gpu.path("containerPath").asText())
        .isEqualTo(
            "/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/gpus/gpu/"
                + DRIVER
                + "-metadata.json");
    assertThat(gpu.path("hostPath").asText())
        .isEqualTo(hostFile(claim, "gpu").resolve("metadata.json").toString());
    assertThat(gpu.path("gvk").asText()).isEqualTo(V1BETA1 + ", Kind=DeviceMetadata");
    assertThat(gpu.path("validation").isNull()).as(gpu.toString()).isTrue();
    JsonNode m = gpu.path("metadata");
    assertThat(m.path("metadata").path("name").asText()).isEqualTo("pod-gpus-x7k2p");
    assertThat(m.path("metadata").path("namespace").asText()).isEqualTo("ns");
    assertThat(m.path("metadata").path("uid").asText()).isEqualTo(claim.uid());
    assertThat(m.path("metadata").path("generation").asLong()).isEqualTo(1);
    assertThat(m.path("podClaimName").asText()).isEqualTo("gpus");
    assertThat(m.path("requests")).hasSize(1);
    JsonNode devices = m.path("requests").get(0).path("devices");
    assertThat(m.path("requests").get(0).path("name").asText()).isEqualTo("gpu");
    assertThat(devices).hasSize(2);
    assertThat(devices.get(0).path("driver").asText()).isEqualTo(DRIVER);
    assertThat(devices.get(0).path("pool").asText()).isEqualTo("node-a");
    assertThat(devices.get(0).path("name").asText()).isEqualTo("gpu-0");
    assertThat(devices.get(0).path("attributes").path("model").path("string").asText())
        .isEqualTo("H200");
    assertThat(devices.get(0).path("attributes").path("memoryGiB").path("int").asLong())
        .isEqualTo(141);
    assertThat(devices.get(1).path("name").asText()).isEqualTo("gpu-1");
    assertThat(devices.get(1).has("attributes")).isFalse();

    // Readable by containers of any user, writable by none; the specs are valid CDI.
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(hostFile(claim, "gpu").resolve("metadata.json"))))
        .isEqualTo("rw-r--r--");
    CdiValidators.assertValid(
        h.cdiDir, r.devices().stream().flatMap(d -> d.cdiDeviceIds().stream()).toList());
    // A repeated prepare is answered from the checkpoint with the same ids.
    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid())).isEqualTo(r);

    JsonNode nic = reader.mounted(spec(claim, "nic"), true, DRIVER, "gpus", "nic");
    assertThat(nic.path("validation").isNull()).as(nic.toString()).isTrue();
    JsonNode network = nic.path("metadata").path("requests").get(0).path("devices").get(0);
    assertThat(network.path("networkData").path("interfaceName").asText()).isEqualTo("eth1");
    assertThat(network.path("networkData").path("ips").get(0).asText()).isEqualTo("192.0.2.5/24");

    // Unprepare removes the files and specs (metadata.go:180-200).
    h.plugin.unprepare(List.of(claim));
    assertThat(spec(claim, "gpu")).doesNotExist();
    assertThat(spec(claim, "nic")).doesNotExist();
    assertThat(hostFile(claim, "gpu").getParent()).doesNotExist();
  }

  @Test
  void aClaimByNameWithASubrequestInEveryVersionTheDriverWrites() throws Exception {
    MetadataReader reader = MetadataReader.build();
    h.start(
        provider, b -> b.deviceMetadata(true).deviceMetadataVersions(List.of(V1BETA1, V1ALPHA1)));
    ClaimRef claim =
        h.seed(
            "ns", "shared", List.of(result("gpu/large", "node-a", "gpu-0")), List.of(), Map.of());

    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();

    JsonNode read = reader.mounted(spec(claim, "gpu"), false, DRIVER, "shared", "gpu");
    assertThat(read.path("containerPath").asText())
        .isEqualTo(
            "/var/run/kubernetes.io/dra-device-attributes/resourceclaims/shared/gpu/"
                + DRIVER
                + "-metadata.json");
    assertThat(read.path("gvk").asText()).isEqualTo(V1BETA1 + ", Kind=DeviceMetadata");
    assertThat(read.path("validation").isNull()).as(read.toString()).isTrue();
    // The content names the request with its subrequest; the path uses the base request.
    assertThat(read.path("metadata").path("requests").get(0).path("name").asText())
        .isEqualTo("gpu/large");
    assertThat(read.path("metadata").has("podClaimName")).isFalse();

    // The stream holds v1beta1, then the same object as v1alpha1, each followed by a newline.
    Path file = hostFile(claim, "gpu").resolve("metadata.json");
    String text = Files.readString(file);
    List<JsonNode> objects =
        new ObjectMapper().readerFor(JsonNode.class).<JsonNode>readValues(text).readAll();
    assertThat(objects)
        .extracting(o -> o.path("apiVersion").asText())
        .containsExactly(V1BETA1, V1ALPHA1);
    ObjectNode alpha = ((ObjectNode) objects.get(1)).deepCopy();
    alpha.put("apiVersion", V1BETA1);
    assertThat(alpha).isEqualTo(objects.get(0));
    assertThat(text)
        .startsWith("{\n  \"kind\": \"DeviceMetadata\",\n  \"apiVersion\": ")
        .endsWith("}\n");
    // The v1alpha1 object alone is what a reader of 1.36 decodes.
    String second = text.substring(text.indexOf("}\n{") + 2);
    Path alphaOnly = tmp.resolve("alpha-only.json");
    Files.writeString(alphaOnly, second);
    JsonNode decoded = reader.decode(alphaOnly);
    assertThat(decoded.path("gvk").asText()).isEqualTo(V1ALPHA1 + ", Kind=DeviceMetadata");
    assertThat(decoded.path("validation").isNull()).as(decoded.toString()).isTrue();
    assertThat(decoded.path("metadata")).isEqualTo(read.path("metadata"));
    // A version upstream's reader does not know is skipped, and named when nothing else is left.
    Path future = tmp.resolve("future.json");
    Files.writeString(future, second.replace(V1ALPHA1, "metadata.resource.k8s.io/v1"));
    assertThat(reader.decodeFailure(future))
        .endsWith(
            "no compatible metadata version found in stream (unknown versions:"
                + " metadata.resource.k8s.io/v1)");
  }

  @Test
  void aProviderUpdatesARequestAfterPrepareAndTheGenerationGoesUp() throws Exception {
    MetadataReader reader = MetadataReader.build();
    h.start(provider, b -> b.deviceMetadata(true).inventory(() -> Map.of("node-a/gpu-0", gpu0)));
    ClaimRef claim = prepareNetClaim();

    h.preparer.updateRequestMetadata(
        claim,
        "nic",
        List.of(
            DeviceMetadata.builder("node-a", "gpu-0")
                .attribute("model", DeviceAttribute.of("H200-NVL"))
                .attribute("linkSpeedGbps", DeviceAttribute.of(400))
                .networkData(
                    NetworkDeviceData.builder()
                        .interfaceName("net1")
                        .ips(List.of("10.0.0.5/24"))
                        .build())
                .build()));

    JsonNode read = reader.mounted(spec(claim, "nic"), false, DRIVER, "net", "nic");
    assertThat(read.path("validation").isNull()).as(read.toString()).isTrue();
    JsonNode m = read.path("metadata");
    assertThat(m.path("metadata").path("generation").asLong()).isEqualTo(2);
    JsonNode devices = m.path("requests").get(0).path("devices");
    assertThat(devices).hasSize(2);
    JsonNode first = devices.get(0);
    // The provider's attribute replaces the published one of the same name; the others stay.
    assertThat(first.path("attributes").path("model").path("string").asText())
        .isEqualTo("H200-NVL");
    assertThat(first.path("attributes").path("memoryGiB").path("int").asLong()).isEqualTo(141);
    assertThat(first.path("attributes").path("linkSpeedGbps").path("int").asLong()).isEqualTo(400);
    assertThat(first.path("networkData").path("interfaceName").asText()).isEqualTo("net1");
    assertThat(devices.get(1).path("name").asText()).isEqualTo("gpu-1");
    assertThat(devices.get(1).has("networkData")).isFalse();

    // Again: generation 3.
    h.preparer.updateRequestMetadata(
        claim, "nic", List.of(DeviceMetadata.builder("node-a", "gpu-1").build()));
    assertThat(
            reader
                .mounted(spec(claim, "nic"), false, DRIVER, "net", "nic")
                .path("metadata")
                .path("metadata")
                .path("generation")
                .asLong())
        .isEqualTo(3);

    String before = Files.readString(hostFile(claim, "nic").resolve("metadata.json"));
    assertThatThrownBy(
            () ->
                h.preparer.updateRequestMetadata(
                    claim, "gpu", List.of(DeviceMetadata.builder("node-a", "gpu-0").build())))
        .isInstanceOf(DeviceException.class)
        .hasMessage("request \"gpu\" not found in prepared claim ns/net");
    assertThatThrownBy(
            () ->
                h.preparer.updateRequestMetadata(
                    claim, "nic", List.of(DeviceMetadata.builder("node-a", "gpu-7").build())))
        .isInstanceOf(DeviceException.class)
        .hasMessageEndingWith("device node-a/gpu-7: is not one of request \"nic\"'s devices");
    // 3 attributes already and 31 new ones: more than the format allows (v1beta1/types.go:102).
    assertThatThrownBy(
            () -> h.preparer.updateRequestMetadata(claim, "nic", List.of(thirtyOneMore())))
        .isInstanceOf(DeviceException.class)
        .hasMessageEndingWith("device node-a/gpu-0: would have 34 attributes, at most 32");
    assertThat(Files.readString(hostFile(claim, "nic").resolve("metadata.json"))).isEqualTo(before);

    h.plugin.unprepare(List.of(claim));
    assertThatThrownBy(
            () ->
                h.preparer.updateRequestMetadata(
                    claim, "nic", List.of(DeviceMetadata.builder("node-a", "gpu-0").build())))
        .isInstanceOf(DeviceException.class)
        .hasMessageStartingWith("request \"nic\" not found in prepared claim ns/net");
    assertThat(hostFile(claim, "nic")).doesNotExist();
  }

  @Test
  void metadataAProviderAnswersAtPrepareIsInTheFileFromTheFirstWrite() throws Exception {
    MetadataReader reader = MetadataReader.build();
    h.start(provider, b -> b.deviceMetadata(true).inventory(() -> Map.of("node-a/gpu-0", gpu0)));
    NetworkDeviceData eth1 = NetworkDeviceData.builder().interfaceName("eth1").build();
    NetworkDeviceData net1 =
        NetworkDeviceData.builder().interfaceName("net1").ips(List.of("10.0.0.5/24")).build();
    provider.status =
        d -> Optional.of(DeviceStatus.ready("Configured", "ready").withNetworkData(eth1));
    provider.metadata =
        d ->
            d.device().equals("gpu-0")
                ? Optional.of(
                    DeviceMetadata.builder(d)
                        .attribute("model", DeviceAttribute.of("H200-NVL"))
                        .attribute("linkSpeedGbps", DeviceAttribute.of(400))
                        .networkData(net1)
                        .build())
                : Optional.empty();
    ClaimRef claim = prepareNetClaim();

    JsonNode read = reader.mounted(spec(claim, "nic"), false, DRIVER, "net", "nic");
    assertThat(read.path("validation").isNull()).as(read.toString()).isTrue();
    JsonNode m = read.path("metadata");
    assertThat(m.path("metadata").path("generation").asLong()).isEqualTo(1);
    JsonNode first = m.path("requests").get(0).path("devices").get(0);
    // Laid over what the runtime writes itself, as an update would be.
    assertThat(first.path("attributes").path("model").path("string").asText())
        .isEqualTo("H200-NVL");
    assertThat(first.path("attributes").path("memoryGiB").path("int").asLong()).isEqualTo(141);
    assertThat(first.path("attributes").path("linkSpeedGbps").path("int").asLong()).isEqualTo(400);
    assertThat(first.path("networkData").path("interfaceName").asText()).isEqualTo("net1");
    // A device without the provider's metadata keeps its claim status's network data.
    JsonNode second = m.path("requests").get(0).path("devices").get(1);
    assertThat(second.path("networkData").path("interfaceName").asText()).isEqualTo("eth1");
    h.plugin.unprepare(List.of(claim));

    // More attributes than the format allows fail the claim's prepare, naming the device, and
    // leave no metadata file behind.
    provider.metadata =
        d -> d.device().equals("gpu-0") ? Optional.of(thirtyOneMore()) : Optional.empty();
    ClaimRef big =
        h.seed("ns", "big", List.of(result("nic", "node-a", "gpu-0")), List.of(), Map.of());
    assertThat(h.plugin.prepare(List.of(big)).get(big.uid()).error().orElseThrow())
        .endsWith(
            "claim "
                + big
                + ": device metadata of "
                + DRIVER
                + " device node-a/gpu-0: would have 33 attributes, at most 32");
    assertThat(hostFile(big, "nic")).doesNotExist();
    assertThat(spec(big, "nic")).doesNotExist();

    // Metadata of another device is refused where it is given.
    assertThatThrownBy(
            () ->
                PreparedDevice.builder(AllocatedDevice.of("gpu", "node-a", "gpu-0"))
                    .metadata(DeviceMetadata.builder("node-a", "gpu-1").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("device metadata of node-a/gpu-1 given for prepared device node-a/gpu-0");
  }

  @Test
  void withoutDeviceMetadataAnUpdateIsRefused() throws Exception {
    h.start(provider);
    ClaimRef claim = h.seed("plain", List.of(result("gpu", "node-a", "gpu-0")));
    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();

    assertThatThrownBy(
            () ->
                h.preparer.updateRequestMetadata(
                    claim, "gpu", List.of(DeviceMetadata.builder("node-a", "gpu-0").build())))
        .isInstanceOf(DeviceException.class)
        .hasMessage("device metadata is not enabled");
  }
}
