package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Mount;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One test per row of the CDI library's MinimumRequiredVersion table. */
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
    Mount typed = new Mount("/src", "/dst", Optional.of("bind"), List.of());
    Mount untyped = new Mount("/src", "/dst", Optional.empty(), List.of("bind"));
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

  @Test
  void annotationsAndDotInClassNeed060() {
    assertThat(CdiVersion.minimumFor(Set.of(CdiFeature.ANNOTATIONS))).isEqualTo(CdiVersion.V0_6_0);
    assertThat(CdiVersion.minimumFor(Set.of(CdiFeature.DOT_IN_CLASS))).isEqualTo(CdiVersion.V0_6_0);
  }

  @Test
  void intelRdtAndAdditionalGidsNeed070() {
    assertThat(CdiVersion.minimumFor(Set.of(CdiFeature.INTEL_RDT))).isEqualTo(CdiVersion.V0_7_0);
    assertThat(CdiVersion.minimumFor(Set.of(CdiFeature.ADDITIONAL_GIDS)))
        .isEqualTo(CdiVersion.V0_7_0);
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
            .mount(new Mount("/a", "/b", Optional.of("bind"), List.of()))
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
