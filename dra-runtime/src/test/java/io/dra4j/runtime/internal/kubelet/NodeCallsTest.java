package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NodeCallsTest {

  @Test
  void subrequestSuffixesAreStrippedAndDuplicatesDropped() {
    ClaimPrepareResult r =
        ClaimPrepareResult.ok(
            List.of(
                new KubeletDevice(
                    List.of("gpu/small", "gpu/large", "nic"),
                    "p",
                    "d0",
                    List.of("v/c=d0"),
                    Optional.of("s")),
                KubeletDevice.of(List.of(), "p", "d1", List.of())));
    ClaimPrepareResult stripped = NodeCalls.stripSubrequests(r);
    assertThat(stripped.devices().get(0).requestNames()).containsExactly("gpu", "nic");
    assertThat(stripped.devices().get(0).shareId()).contains("s");
    assertThat(stripped.devices().get(0).cdiDeviceIds()).containsExactly("v/c=d0");
    assertThat(stripped.devices().get(1).requestNames()).isEmpty();
  }

  @Test
  void resultsWithoutSubrequestsAreReturnedAsIs() {
    ClaimPrepareResult r =
        ClaimPrepareResult.ok(List.of(KubeletDevice.of(List.of("gpu"), "p", "d0", List.of())));
    assertThat(NodeCalls.stripSubrequests(r)).isSameAs(r);
  }
}
