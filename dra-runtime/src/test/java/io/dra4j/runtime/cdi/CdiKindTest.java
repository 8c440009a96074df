package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CdiKindTest {
  @Test
  void defaultKindOfADriverFollowsNvidiasScheme() {
    CdiKind k = CdiKind.forDriver("gpu.example.com");
    assertThat(k.vendor()).isEqualTo("k8s.gpu.example.com");
    assertThat(k.cls()).isEqualTo("claim");
    assertThat(k).hasToString("k8s.gpu.example.com/claim");
    assertThat(k.qualify("abc-gpu-0")).isEqualTo("k8s.gpu.example.com/claim=abc-gpu-0");
    assertThat(k.transientSpecFileName("6f1c-uid"))
        .isEqualTo("k8s.gpu.example.com-claim_6f1c-uid.json");
    assertThat(k.transientSpecFileName("a/b")).isEqualTo("k8s.gpu.example.com-claim_a_b.json");
  }

  @Test
  void acceptsWhatTheStrictestParserAccepts() {
    assertThat(CdiKind.of("ab", "cd")).hasToString("ab/cd");
    assertThat(CdiKind.of("Vendor_1.example-x", "class_2-b")).isNotNull();
    assertThat(CdiKind.parse("vendor.com/gpu")).isEqualTo(CdiKind.of("vendor.com", "gpu"));
  }

  @Test
  void rejectsOneCharacterVendorAndClass() {
    assertThatThrownBy(() -> CdiKind.of("x", "gpu"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CDI vendor \"x\"")
        .hasMessageContaining("at least 2 characters");
    assertThatThrownBy(() -> CdiKind.of("vendor.com", "g"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CDI class \"g\"")
        .hasMessageContaining("at least 2 characters");
  }

  @Test
  void rejectsADotInTheClassInsteadOfRequiringCdi060() {
    assertThatThrownBy(() -> CdiKind.of("vendor.com", "gpu.full"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"gpu.full\" contains a dot")
        .hasMessageContaining("0.6.0");
  }

  @Test
  void rejectsBadCharactersAndShapes() {
    for (String vendor : new String[] {"1vendor", "vendor.", "ven dor", "vendor/x", "", "-ab"}) {
      assertThatThrownBy(() -> CdiKind.of(vendor, "gpu"))
          .as(vendor)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("CDI vendor");
    }
    for (String cls : new String[] {"1gpu", "gpu-", "g=pu", ""}) {
      assertThatThrownBy(() -> CdiKind.of("vendor.com", cls))
          .as(cls)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("CDI class");
    }
    assertThatThrownBy(() -> CdiKind.parse("vendor.com")).hasMessageContaining("exactly one '/'");
    assertThatThrownBy(() -> CdiKind.parse("a.com/b/c")).hasMessageContaining("exactly one '/'");
    assertThatThrownBy(() -> CdiKind.forDriver("")).hasMessageContaining("driver name");
  }

  @Test
  void qualifyRejectsInvalidDeviceNames() {
    CdiKind k = CdiKind.of("vendor.com", "gpu");
    assertThat(k.qualify("0")).isEqualTo("vendor.com/gpu=0");
    assertThat(k.qualify("a:b.c_d-e")).isEqualTo("vendor.com/gpu=a:b.c_d-e");
    for (String bad : new String[] {"", "-a", "a-", "a/b", "a=b", "a b"}) {
      assertThatThrownBy(() -> k.qualify(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("CDI device name");
    }
  }
}
