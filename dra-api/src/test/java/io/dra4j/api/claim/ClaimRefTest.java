package io.dra4j.api.claim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClaimRefTest {
  private final ClaimRef ref = ClaimRef.of("ns", "gpu", "u-1");

  @Test
  void namesTheClaimAsEveryLogLineDoes() {
    assertThat(ref).hasToString("ns/gpu (u-1)");
  }

  @Test
  void aMessageThatNamesTheClaimLosesThatPrefixOnce() {
    assertThat(ref.unprefixed("claim ns/gpu (u-1): device gpu-0 is busy"))
        .isEqualTo("device gpu-0 is busy");
    assertThat(ref.unprefixed("claim ns/gpu (u-1), request gpu: no device"))
        .isEqualTo("request gpu: no device");
    // Only this claim's own name, only in front, only once.
    assertThat(ref.unprefixed("claim ns/other (u-2): busy"))
        .isEqualTo("claim ns/other (u-2): busy");
    assertThat(ref.unprefixed("busy: claim ns/gpu (u-1): x"))
        .isEqualTo("busy: claim ns/gpu (u-1): x");
    assertThat(ref.unprefixed("claim ns/gpu (u-1): claim ns/gpu (u-1): x"))
        .isEqualTo("claim ns/gpu (u-1): x");
  }
}
