package io.dra4j.runtime.internal.claims;

import static io.dra4j.runtime.internal.claims.DeviceMetadataStream.V1ALPHA1;
import static io.dra4j.runtime.internal.claims.DeviceMetadataStream.V1BETA1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.runtime.testsupport.MetadataReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The device metadata stream: the versions rule of the Go helper's {@code EnableDeviceMetadata},
 * and dra4j's reader (which {@code RequestMetadataWriter} uses) on upstream's own fixtures ({@code
 * api/metadata/testdata} of k8s.io/dynamic-resource-allocation v0.37.2) and on the cases of its
 * {@code devicemetadata} decoder.
 */
class DeviceMetadataStreamTest {

  @Test
  void theVersionsAreNamedTheLatestIsAmongThemAndOnlyKnownOnes() {
    assertThat(DeviceMetadataStream.checkVersions(List.of(V1BETA1, V1ALPHA1, V1BETA1)))
        .containsExactly(V1BETA1, V1ALPHA1);
    assertThat(DeviceMetadataStream.checkVersions(List.of(V1ALPHA1, V1BETA1)))
        .containsExactly(V1ALPHA1, V1BETA1);
    assertThatThrownBy(() -> DeviceMetadataStream.checkVersions(List.of()))
        .hasMessageStartingWith("device metadata versions must be named explicitly, none given");
    assertThatThrownBy(() -> DeviceMetadataStream.checkVersions(List.of(V1ALPHA1)))
        .hasMessage(
            "device metadata versions [metadata.resource.k8s.io/v1alpha1] lack the latest"
                + " version, metadata.resource.k8s.io/v1beta1, which must be written");
    assertThatThrownBy(
            () ->
                DeviceMetadataStream.checkVersions(List.of(V1BETA1, "metadata.resource.k8s.io/v1")))
        .hasMessageStartingWith(
            "device metadata version \"metadata.resource.k8s.io/v1\" is not supported");
  }

  @Test
  void upstreamsFixturesDecodeToTheirFirstKnownVersion() throws Exception {
    Path fixtures = MetadataReader.build().upstreamFixtures();

    // HEAD: v1beta1 then v1alpha1, every field set (the fixture is deliberately invalid under
    // validation: dra4j's reader, like upstream's by default, does not validate).
    ObjectNode head =
        DeviceMetadataStream.decode(Files.readAllBytes(fixtures.resolve("HEAD/metadata.json")));
    assertThat(head.path("apiVersion").asText()).isEqualTo(V1BETA1);
    assertThat(head.path("metadata").path("name").asText()).isEqualTo("claim");
    assertThat(head.path("metadata").path("uid").asText()).isEqualTo("claim-uid");
    assertThat(head.path("metadata").path("generation").asLong()).isEqualTo(7);
    assertThat(head.path("podClaimName").asText()).isEqualTo("<no json tag> PodClaimNameValue");
    assertThat(head.path("requests").get(0).path("devices").get(0).path("name").asText())
        .isEqualTo("gpu-0");

    // v1.36.0: what a 1.36 writer produced, v1alpha1 only.
    ObjectNode released =
        DeviceMetadataStream.decode(Files.readAllBytes(fixtures.resolve("v1.36.0/metadata.json")));
    assertThat(released.path("apiVersion").asText()).isEqualTo(V1ALPHA1);
    ObjectNode asBeta = released.deepCopy();
    asBeta.put("apiVersion", V1BETA1);
    assertThat((Object) asBeta).isEqualTo(head);
  }

  @Test
  void theEncodingIsUpstreamsByteForByte() throws Exception {
    Path fixtures = MetadataReader.build().upstreamFixtures();
    byte[] fixture = Files.readAllBytes(fixtures.resolve("HEAD/metadata.json"));

    // Re-encoding HEAD's object in HEAD's versions gives HEAD again, except that Go escapes <
    // and > in strings (json.Marshal's HTML escaping), which JSON readers undo.
    byte[] encoded =
        new DeviceMetadataStream(List.of(V1BETA1, V1ALPHA1))
            .encode(DeviceMetadataStream.decode(fixture));
    assertThat(new String(encoded, StandardCharsets.UTF_8))
        .isEqualTo(
            new String(fixture, StandardCharsets.UTF_8)
                .replace("\\u003c", "<")
                .replace("\\u003e", ">"));
  }

  @Test
  void theReaderSkipsUnknownVersionsAndFailsAsUpstreamDoes() throws Exception {
    String alpha =
        "{\"apiVersion\":\"metadata.resource.k8s.io/v1alpha1\",\"kind\":\"DeviceMetadata\","
            + "\"metadata\":{\"name\":\"my-claim\",\"generation\":1}}";
    String future =
        "{\"apiVersion\":\"metadata.resource.k8s.io/v1000\",\"kind\":\"DeviceMetadata\","
            + "\"metadata\":{\"claimName\":\"my-claim\"}}";
    // devicemetadata/example_test.go:55-73: a fictional newer version first is skipped.
    assertThat(decode(future + "\n" + alpha).path("metadata").path("name").asText())
        .isEqualTo("my-claim");
    // Only the first known object is read: what follows it may be anything.
    assertThat(decode(alpha + "\n{broken").path("apiVersion").asText()).isEqualTo(V1ALPHA1);
    assertThatThrownBy(() -> decode(future))
        .hasMessage(
            "no compatible metadata version found in stream (unknown versions:"
                + " metadata.resource.k8s.io/v1000)");
    assertThatThrownBy(() -> decode("")).hasMessage("no metadata objects found in stream");
    assertThatThrownBy(() -> decode("{\"kind\":\"DeviceMetadata\"}"))
        .hasMessageStartingWith("decode metadata object: no apiVersion");
    assertThatThrownBy(() -> decode("{\"apiVersion\":\"" + V1BETA1 + "\"}\n" + alpha))
        .hasMessageStartingWith("decode metadata.resource.k8s.io/v1beta1: kind \"\"");
    assertThatThrownBy(() -> decode("{\"apiVersion\": "))
        .hasMessageStartingWith("read metadata object from stream: ");
  }

  private static ObjectNode decode(String stream) throws IOException {
    return DeviceMetadataStream.decode(stream.getBytes(StandardCharsets.UTF_8));
  }
}
