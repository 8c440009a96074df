package io.dra4j.api.claim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrepareRequestTest {

  static final ClaimRef REF = ClaimRef.of("ns", "c", "uid-c");

  @Test
  void withoutAViewTheClaimIsWhatTheAllocationKnowsAndTheCallHasNoDeadline() {
    ClaimAllocation allocation =
        ClaimAllocation.of(REF, List.of())
            .withAnnotations(Map.of("resource.kubernetes.io/pod-claim-name", "g"));
    PrepareRequest r = PrepareRequest.builder(allocation).build();
    assertThat(r.claim().ref()).isEqualTo(REF);
    assertThat(r.claim().annotations()).isEqualTo(allocation.annotations());
    assertThat(r.claim().specJson()).isEqualTo("{}");
    assertThat(r.call().deadline()).isEmpty();
    assertThat(r.call().isCancelled()).isFalse();
  }

  @Test
  void configsBelongToOneAllocationOfADevice() {
    // The same device twice: two shares of it, and once more for another request.
    AllocatedDevice a = AllocatedDevice.builder("gpu", "p", "d").shareId("s1").build();
    AllocatedDevice b = AllocatedDevice.builder("gpu", "p", "d").shareId("s2").build();
    AllocatedDevice c = AllocatedDevice.of("other", "p", "d");
    OpaqueConfig one = OpaqueConfig.builder(OpaqueConfig.Source.CLASS, "{\"n\":1}").build();
    OpaqueConfig two = OpaqueConfig.builder(OpaqueConfig.Source.CLAIM, "{\"n\":2}").build();
    PrepareRequest r =
        PrepareRequest.builder(ClaimAllocation.of(REF, List.of(a, b, c)))
            .configs(a, List.of(one, two))
            .configs(b, List.of(two))
            .build();
    assertThat(r.configs(a)).containsExactly(one, two);
    assertThat(r.configs(b)).containsExactly(two);
    assertThat(r.configs(c)).isEmpty();
    // The device's decoded config does not change which allocation it is.
    assertThat(r.configs(a.withConfig("decoded"))).containsExactly(one, two);
  }
}
