package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Mount;
import io.dra4j.runtime.testsupport.CdiValidators;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rows of the CDI library's MinimumRequiredVersion table, one test per row the model can
 * produce.
 */
class CdiVersionTest {
  private static final CdiKind KIND = CdiKind.of("vendor.com", "gpu");
  private static final ContainerEdits ENV = ContainerEdits.builder().env("A", "1").build();

  private static CdiSpec spec(String name, ContainerEdits device, ContainerEdits specLevel) {
    return new CdiSpec(KIND, List.of(new CdiDevice(name, device)), specLevel);
  }

  @Test
  void baseIs030() {
    assertThat(CdiVersion.minimumFor(Set.of())).isEqualTo(CdiVersion.V0_3_0);
    CdiSpec s = spec("dev0", ENV, ContainerEdits.NONE);
    assertThat(CdiFeature.usedBy(s)).isEmpty();
    assertThat(s.cdiVersion()).isEqualTo(CdiVersion.V0_3_0);
  }

  @Test
  void mountTypeNeeds040() {
    Mount typed = Mount.builder("/src", "/dst").type("bind").build();
    Mount untyped = Mount.builder("/src", "/dst").options(List.of("bind")).build();
    ContainerEdits withTyped = ContainerEdits.builder().mount(typed).build();
    ContainerEdits withUntyped = ContainerEdits.builder().mount(untyped).build();

    assertThat(spec("dev0", withTyped, ContainerEdits.NONE).cdiVersion())
        .isEqualTo(CdiVersion.V0_4_0);
    assertThat(spec("dev0", ENV, withTyped).cdiVersion()).isEqualTo(CdiVersion.V0_4_0);
    assertThat(CdiFeature.usedBy(spec("dev0", ENV, withTyped)))
        .containsExactly(CdiFeature.MOUNT_TYPE);
    assertThat(spec("dev0", withUntyped, withUntyped).cdiVersion()).isEqualTo(CdiVersion.V0_3_0);
  }

  @Test
  void hostPathNeeds050() {
    ContainerEdits hostPath =
        ContainerEdits.builder()
            .deviceNode(DeviceNode.builder("/dev/x").hostPath("/dev/null").build())
            .build();
    ContainerEdits samePath =
        ContainerEdits.builder().deviceNode(DeviceNode.required("/dev/null")).build();

    assertThat(spec("dev0", hostPath, ContainerEdits.NONE).cdiVersion())
        .isEqualTo(CdiVersion.V0_5_0);
    assertThat(spec("dev0", ENV, hostPath).cdiVersion()).isEqualTo(CdiVersion.V0_5_0);
    assertThat(CdiFeature.usedBy(spec("dev0", ENV, hostPath)))
        .containsExactly(CdiFeature.DEVICE_NODE_HOST_PATH);
    assertThat(spec("dev0", samePath, samePath).cdiVersion()).isEqualTo(CdiVersion.V0_3_0);
  }

  @Test
  void deviceNameStartingWithADigitNeeds050() {
    assertThat(spec("6f1c-gpu-0", ENV, ContainerEdits.NONE).cdiVersion())
        .isEqualTo(CdiVersion.V0_5_0);
    assertThat(CdiFeature.usedBy(spec("0", ENV, ContainerEdits.NONE)))
        .containsExactly(CdiFeature.DEVICE_NAME_LEADING_DIGIT);
    assertThat(spec("gpu-0", ENV, ContainerEdits.NONE).cdiVersion()).isEqualTo(CdiVersion.V0_3_0);
    CdiSpec second =
        new CdiSpec(
            KIND, List.of(new CdiDevice("a", ENV), new CdiDevice("1b", ENV)), ContainerEdits.NONE);
    assertThat(second.cdiVersion()).isEqualTo(CdiVersion.V0_5_0);
  }

  /**
   * The rows dra4j's model cannot produce (see {@link CdiFeature}) are checked against the
   * reference library instead: v0.8.0 accepts a hand-written spec using the feature at the version
   * the row names and rejects it one version lower.
   */
  @Test
  void theRowsTheModelCannotProduceAreTheReferenceLibrarys(@TempDir Path tmp) throws Exception {
    Map<CdiFeature, String> specs =
        Map.of(
            CdiFeature.ANNOTATIONS,
            """
            {"cdiVersion": "%s", "kind": "vendor.com/gpu", "annotations": {"a": "b"},
             "devices": [{"name": "dev0", "containerEdits": {"env": ["A=1"]}}]}""",
            CdiFeature.DOT_IN_CLASS,
            """
            {"cdiVersion": "%s", "kind": "vendor.com/gpu.x",
             "devices": [{"name": "dev0", "containerEdits": {"env": ["A=1"]}}]}""",
            CdiFeature.INTEL_RDT,
            """
            {"cdiVersion": "%s", "kind": "vendor.com/gpu",
             "devices": [{"name": "dev0",
                          "containerEdits": {"env": ["A=1"], "intelRdt": {"closID": "x"}}}]}""",
            CdiFeature.ADDITIONAL_GIDS,
            """
            {"cdiVersion": "%s", "kind": "vendor.com/gpu",
             "devices": [{"name": "dev0",
                          "containerEdits": {"env": ["A=1"], "additionalGids": [5]}}]}""");
    for (Map.Entry<CdiFeature, String> e : specs.entrySet()) {
      CdiVersion since = CdiVersion.minimumFor(Set.of(e.getKey()));
      CdiVersion lower = CdiVersion.values()[since.ordinal() - 1];
      CdiValidators.Result accepted = v08(tmp, e.getValue().formatted(since.text()));
      assertThat(accepted.rc()).as("%s at %s: %s", e.getKey(), since, accepted.stderr()).isZero();
      CdiValidators.Result rejected = v08(tmp, e.getValue().formatted(lower.text()));
      assertThat(rejected.rc()).as("%s at %s", e.getKey(), lower).isEqualTo(1);
      assertThat(rejected.stderr()).contains("must be at least v" + since.text());
    }
    // A dot in the class stays out of dra4j's specs.
    assertThatThrownBy(() -> CdiKind.of("vendor.com", "gpu.x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static CdiValidators.Result v08(Path tmp, String spec) throws Exception {
    Path dir = Files.createTempDirectory(tmp, "spec");
    Files.writeString(dir.resolve("spec.json"), spec);
    return CdiValidators.run(CdiValidators.V08, dir, List.of());
  }

  @Test
  void theHighestFeatureWins() {
    assertThat(
            CdiVersion.minimumFor(
                EnumSet.of(CdiFeature.MOUNT_TYPE, CdiFeature.DEVICE_NAME_LEADING_DIGIT)))
        .isEqualTo(CdiVersion.V0_5_0);
    assertThat(CdiVersion.minimumFor(EnumSet.allOf(CdiFeature.class))).isEqualTo(CdiVersion.V0_7_0);
    ContainerEdits all =
        ContainerEdits.builder()
            .mount(Mount.builder("/a", "/b").type("bind").build())
            .deviceNode(DeviceNode.builder("/dev/x").hostPath("/dev/null").build())
            .build();
    assertThat(CdiFeature.usedBy(spec("1", all, ContainerEdits.NONE)))
        .containsExactlyInAnyOrder(
            CdiFeature.MOUNT_TYPE,
            CdiFeature.DEVICE_NODE_HOST_PATH,
            CdiFeature.DEVICE_NAME_LEADING_DIGIT);
  }

  @Test
  void versionsAreOrderedAsTheirText() {
    assertThat(CdiVersion.values())
        .extracting(CdiVersion::text)
        .containsExactly("0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0");
  }
}
