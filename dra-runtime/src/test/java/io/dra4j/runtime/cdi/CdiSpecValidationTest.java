package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.runtime.testsupport.CdiValidators;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every spec written here is checked by the reference CDI library in two generations (v0.5.2, as in
 * podman 4.3, and v0.8.0, which also enforces the minimum cdiVersion): the directory is loaded as a
 * runtime loads it, the ids our code returns are resolved and injected into an OCI spec, and the
 * injected result is compared with what the edits asked for.
 */
class CdiSpecValidationTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final CdiKind KIND = CdiKind.forDriver("gpu.example.com");
  private static final String LETTER_UID = "c0ffee00-0000-4000-8000-000000000001";
  private static final String DIGIT_UID = "6f1c2a9e-1111-4000-8000-000000000002";

  @TempDir Path tmp;

  private CdiSpecWriter writer(Path devRoot) {
    return new CdiSpecWriter(tmp.resolve("cdi"), KIND, new DeviceNodeCheck(devRoot));
  }

  private static ClaimRef claim(String uid) {
    return ClaimRef.of("team-a", "train-job", uid);
  }

  private static PreparedDevice prepared(String device, ContainerEdits edits) {
    return PreparedDevice.of(AllocatedDevice.of("gpu", "node-1", device), edits);
  }

  private static AllocatedDevice shared(String device, String shareId) {
    return AllocatedDevice.builder("gpu", "node-1", device).shareId(shareId).build();
  }

  @Test
  void envOnlySpecIsBaseVersionAndInjectsSpecEnvBeforeDeviceEnv() throws Exception {
    ClaimSpec cs =
        writer(Path.of("/dev"))
            .write(
                claim(LETTER_UID),
                List.of(prepared("gpu-0", ContainerEdits.builder().env("GPU", "0").build())),
                ContainerEdits.builder()
                    .env("DRA_RESOURCE_DRIVER_NAME", "gpu.example.com")
                    .build());

    assertThat(cs.allCdiDeviceIds())
        .containsExactly("k8s.gpu.example.com/claim=" + LETTER_UID + "-gpu-0");
    assertThat(cs.spec().orElseThrow().cdiVersion()).isEqualTo(CdiVersion.V0_3_0);
    for (CdiValidators.Result r : CdiValidators.assertValid(cdiDir(), cs.allCdiDeviceIds())) {
      assertThat(r.ociEnv())
          .containsSubsequence("DRA_RESOURCE_DRIVER_NAME=gpu.example.com", "GPU=0");
    }
    assertMinimal(LETTER_UID);
  }

  @Test
  void deviceNodesWithAndWithoutHostPathAreInjectedFromTheHost() throws Exception {
    ContainerEdits edits =
        ContainerEdits.builder()
            .deviceNode(DeviceNode.required("/dev/null"))
            .deviceNode(DeviceNode.builder("/dev/accel0").hostPath("/dev/zero").build())
            .build();
    ClaimSpec cs =
        writer(Path.of("/dev"))
            .write(claim(LETTER_UID), List.of(prepared("gpu-0", edits)), ContainerEdits.NONE);

    assertThat(cs.spec().orElseThrow().cdiVersion()).isEqualTo(CdiVersion.V0_5_0);
    for (CdiValidators.Result r : CdiValidators.assertValid(cdiDir(), cs.allCdiDeviceIds())) {
      JsonNode nodes = r.report().path("oci").path("deviceNodes");
      assertThat(nodes).hasSize(2);
      assertThat(node(nodes, "/dev/null").path("major").asInt()).isEqualTo(1);
      assertThat(node(nodes, "/dev/null").path("minor").asInt()).isEqualTo(3);
      // /dev/zero is 1:5: the host node was found through hostPath.
      assertThat(node(nodes, "/dev/accel0").path("minor").asInt()).isEqualTo(5);
    }
    assertMinimal(LETTER_UID);
  }

  @Test
  void explicitNodeNumbersNeedNoHostNodeAtInjection() throws Exception {
    Path devRoot = Files.createDirectories(tmp.resolve("host-dev"));
    Files.createFile(devRoot.resolve("fake-gpu7"));
    ContainerEdits edits =
        ContainerEdits.builder()
            .deviceNode(
                DeviceNode.builder("/dev/fake-gpu7")
                    .character(195, 7)
                    .permissions("rw")
                    .fileMode(0660)
                    .owner(0, 44)
                    .build())
            .build();
    ClaimSpec cs =
        writer(devRoot)
            .write(claim(LETTER_UID), List.of(prepared("gpu-7", edits)), ContainerEdits.NONE);

    for (CdiValidators.Result r : CdiValidators.assertValid(cdiDir(), cs.allCdiDeviceIds())) {
      JsonNode n = node(r.report().path("oci").path("deviceNodes"), "/dev/fake-gpu7");
      assertThat(n.path("type").asText()).isEqualTo("c");
      assertThat(n.path("major").asInt()).isEqualTo(195);
      assertThat(n.path("minor").asInt()).isEqualTo(7);
      assertThat(n.path("fileMode").asInt()).isEqualTo(0660);
      assertThat(n.path("gid").asInt()).isEqualTo(44);
      assertThat(r.report().path("oci").path("resourceDevices").get(0).path("access").asText())
          .isEqualTo("rw");
    }
    assertMinimal(LETTER_UID);
  }

  @Test
  void mountsWithAndWithoutTypeAndHooks() throws Exception {
    Path lib = Files.createDirectories(tmp.resolve("lib"));
    ContainerEdits device =
        ContainerEdits.builder()
            .mount(Mount.readOnlyBind(lib.toString(), "/usr/lib/vendor"))
            .build();
    ContainerEdits claimWide =
        ContainerEdits.builder()
            .mount(
                Mount.builder(lib.toString(), "/opt/typed")
                    .type("bind")
                    .options(List.of("ro"))
                    .build())
            .hook(
                Hook.builder("createContainer", "/usr/bin/true")
                    .args(List.of("true", "--from-dra4j"))
                    .env(List.of("HOOK_DEBUG=false"))
                    .timeout(5)
                    .build())
            .build();
    ClaimSpec cs =
        writer(Path.of("/dev"))
            .write(claim(LETTER_UID), List.of(prepared("gpu-0", device)), claimWide);

    assertThat(cs.spec().orElseThrow().cdiVersion()).isEqualTo(CdiVersion.V0_4_0);
    for (CdiValidators.Result r : CdiValidators.assertValid(cdiDir(), cs.allCdiDeviceIds())) {
      JsonNode oci = r.report().path("oci");
      assertThat(oci.path("mounts")).hasSize(2);
      List<String> destinations = new ArrayList<>();
      oci.path("mounts").forEach(m -> destinations.add(m.path("destination").asText()));
      assertThat(destinations).containsExactlyInAnyOrder("/usr/lib/vendor", "/opt/typed");
      JsonNode hook = oci.path("hooks").path("createContainer").get(0);
      assertThat(hook.path("path").asText()).isEqualTo("/usr/bin/true");
      assertThat(hook.path("args").toString()).isEqualTo("[\"true\",\"--from-dra4j\"]");
      assertThat(hook.path("env").get(0).asText()).isEqualTo("HOOK_DEBUG=false");
      assertThat(hook.path("timeout").asInt()).isEqualTo(5);
    }
    assertMinimal(LETTER_UID);
  }

  @Test
  void deviceNameStartingWithADigitNeedsVersion050AndV08RejectsLess() throws Exception {
    ClaimSpec cs =
        writer(Path.of("/dev"))
            .write(
                claim(DIGIT_UID),
                List.of(prepared("gpu-0", ContainerEdits.builder().env("A", "1").build())),
                ContainerEdits.NONE);

    assertThat(cs.spec().orElseThrow().cdiVersion()).isEqualTo(CdiVersion.V0_5_0);
    CdiValidators.assertValid(cdiDir(), cs.allCdiDeviceIds());
    assertThat(assertMinimal(DIGIT_UID).orElseThrow().stderr()).contains("must be at least v0.5.0");
    // v0.5.2 accepts the under-declared spec: only v0.8.0-era runtimes would reject it, which is
    // why the version must be computed rather than pinned low.
    CdiValidators.run(CdiValidators.V05, tmp.resolve("lowered"), List.of()).assertOk();
  }

  @Test
  void multipleDevicesAndSharesGetDistinctResolvableNames() throws Exception {
    String share1 = "aaaaaaaa-0000-4000-8000-000000000001";
    String share2 = "bbbbbbbb-0000-4000-8000-000000000002";
    ContainerEdits e =
        ContainerEdits.builder().deviceNode(DeviceNode.required("/dev/null")).build();
    List<PreparedDevice> devices =
        List.of(
            prepared("gpu-0", ContainerEdits.builder().env("GPU0", "1").build()),
            PreparedDevice.of(shared("gpu-1", share1), e.plus(env("SHARE_A", "1"))),
            PreparedDevice.of(shared("gpu-1", share2), e.plus(env("SHARE_B", "1"))),
            prepared("gpu-2", ContainerEdits.NONE));
    ClaimSpec cs = writer(Path.of("/dev")).write(claim(DIGIT_UID), devices, ContainerEdits.NONE);

    assertThat(cs.cdiDeviceIds())
        .containsExactly(
            List.of("k8s.gpu.example.com/claim=" + DIGIT_UID + "-gpu-0"),
            List.of("k8s.gpu.example.com/claim=" + DIGIT_UID + "-gpu-1-aaaaaaaa"),
            List.of("k8s.gpu.example.com/claim=" + DIGIT_UID + "-gpu-1-bbbbbbbb"),
            List.of());
    List<CdiValidators.Result> results = CdiValidators.assertValid(cdiDir(), cs.allCdiDeviceIds());
    for (CdiValidators.Result r : results) {
      assertThat(r.report().path("devices")).hasSize(3);
      assertThat(r.ociEnv()).contains("GPU0=1", "SHARE_A=1", "SHARE_B=1");
    }
    // Each id resolves on its own to its own edits.
    CdiValidators.Result one =
        CdiValidators.run(CdiValidators.V08, cdiDir(), List.of(cs.allCdiDeviceIds().get(2)));
    one.assertOk();
    assertThat(one.ociEnv()).contains("SHARE_B=1").doesNotContain("SHARE_A=1", "GPU0=1");
  }

  @Test
  void specsOfSeveralClaimsLoadTogether() throws Exception {
    CdiSpecWriter w = writer(Path.of("/dev"));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String uid = i + "0000000-0000-4000-8000-00000000000" + i;
      ids.addAll(
          w.write(
                  claim(uid),
                  List.of(prepared("gpu-0", env("CLAIM_" + i, "1"))),
                  ContainerEdits.NONE)
              .allCdiDeviceIds());
    }
    for (CdiValidators.Result r : CdiValidators.assertValid(cdiDir(), ids)) {
      assertThat(r.report().path("specs")).hasSize(5);
      assertThat(r.ociEnv()).contains("CLAIM_0=1", "CLAIM_4=1");
    }
  }

  @Test
  void oneCharacterVendorIsRejectedBecauseItCrashesTheLibrary() throws Exception {
    assertThatThrownBy(() -> CdiKind.of("x", "gpu"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"x\"")
        .hasMessageContaining("crashes");
    assertThatThrownBy(() -> CdiKind.of("example.com", "g"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"g\"");
    // Why: the reference library panics on such a spec (the tool catches the panic).
    Path dir = Files.createDirectories(tmp.resolve("one-char"));
    Files.writeString(
        dir.resolve("x-gpu.json"),
        "{\"cdiVersion\":\"0.3.0\",\"kind\":\"x/gpu\",\"devices\":[{\"name\":\"d\","
            + "\"containerEdits\":{\"env\":[\"A=1\"]}}]}");
    CdiValidators.Result r = CdiValidators.run(CdiValidators.V05, dir, List.of());
    assertThat(r.rc()).isEqualTo(1);
    assertThat(r.stderr()).contains("panic");
  }

  private Path cdiDir() {
    return tmp.resolve("cdi");
  }

  private static ContainerEdits env(String k, String v) {
    return ContainerEdits.builder().env(k, v).build();
  }

  private static JsonNode node(JsonNode nodes, String path) {
    for (JsonNode n : nodes) {
      if (n.path("path").asText().equals(path)) {
        return n;
      }
    }
    throw new AssertionError("no device node " + path + " in " + nodes);
  }

  /**
   * Proves the declared version is the minimum by v0.8.0's own rule: the spec as written is
   * accepted (checked by the caller), and the same spec declaring the next lower version is
   * rejected. Returns that rejection; a 0.3.0 spec is minimal by definition.
   */
  private Optional<CdiValidators.Result> assertMinimal(String claimUid) throws Exception {
    Path file = cdiDir().resolve(KIND.transientSpecFileName(claimUid));
    ObjectNode spec = (ObjectNode) MAPPER.readTree(file.toFile());
    CdiVersion declared = versionOf(spec.path("cdiVersion").asText());
    if (declared == CdiVersion.V0_3_0) {
      return Optional.empty();
    }
    CdiVersion lower = CdiVersion.values()[declared.ordinal() - 1];
    spec.put("cdiVersion", lower.text());
    Path dir = Files.createDirectories(tmp.resolve("lowered"));
    Files.writeString(dir.resolve(file.getFileName()), spec.toPrettyString());
    CdiValidators.Result r = CdiValidators.run(CdiValidators.V08, dir, List.of());
    assertThat(r.rc())
        .as("v0.8.0 must reject the spec declared as %s; stderr: %s", lower, r.stderr())
        .isEqualTo(1);
    assertThat(r.stderr()).contains("must be at least v" + declared.text());
    return Optional.of(r);
  }

  private static CdiVersion versionOf(String text) {
    for (CdiVersion v : CdiVersion.values()) {
      if (v.text().equals(text)) {
        return v;
      }
    }
    throw new AssertionError("unknown cdiVersion " + text);
  }
}
