package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedDevice;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClaimSpecTest {
  private static final CdiKind KIND = CdiKind.forDriver("gpu.example.com");
  private static final String UID = "6f1c2a9e-1111-4000-8000-000000000002";
  private static final ClaimRef CLAIM = ClaimRef.of("ns", "c", UID);
  private static final ContainerEdits ENV = ContainerEdits.builder().env("A", "1").build();

  private static AllocatedDevice dev(String request, String pool, String device, String shareId) {
    AllocatedDevice.Builder b = AllocatedDevice.builder(request, pool, device);
    return (shareId == null ? b : b.shareId(shareId)).build();
  }

  private static List<String> names(AllocatedDevice... devices) {
    return CdiDeviceNames.assign(UID, List.of(devices));
  }

  @Test
  void plainAndSharedNames() {
    assertThat(
            names(
                dev("gpu", "node-1", "gpu-0", null),
                dev("gpu", "node-1", "gpu-1", "0a1b2c3d-aaaa-4000-8000-000000000000")))
        .containsExactly(UID + "-gpu-0", UID + "-gpu-1-0a1b2c3d");
  }

  @Test
  void clashingNamesGetAHashSuffixThatDoesNotDependOnOrder() {
    AllocatedDevice poolA = dev("gpu", "pool-a", "gpu-0", null);
    AllocatedDevice poolB = dev("gpu", "pool-b", "gpu-0", null);
    AllocatedDevice shareX = dev("gpu", "pool-a", "gpu-1", "abcdef12-0000-4000-8000-000000000001");
    AllocatedDevice shareY = dev("gpu", "pool-a", "gpu-1", "abcdef12-0000-4000-8000-000000000002");
    AllocatedDevice admin1 = dev("monitor-a", "pool-a", "gpu-2", null);
    AllocatedDevice admin2 = dev("monitor-b", "pool-a", "gpu-2", null);

    List<String> forward = names(poolA, poolB, shareX, shareY, admin1, admin2);
    List<String> backward = new ArrayList<>(names(admin2, admin1, shareY, shareX, poolB, poolA));
    java.util.Collections.reverse(backward);

    assertThat(new HashSet<>(forward)).hasSize(6);
    assertThat(forward).isEqualTo(backward);
    assertThat(forward.get(0)).matches(UID + "-gpu-0-[0-9a-f]{8}");
    assertThat(forward.get(2)).matches(UID + "-gpu-1-abcdef12-[0-9a-f]{8}");
    // A device without a clash keeps its plain name.
    assertThat(names(poolA, shareX)).containsExactly(UID + "-gpu-0", UID + "-gpu-1-abcdef12");
  }

  @Test
  void theSameAllocationTwiceIsRejected() {
    AllocatedDevice d = dev("gpu", "pool-a", "gpu-0", null);
    assertThatThrownBy(() -> names(d, d))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("appears twice in claim " + UID);
  }

  @Test
  void devicesWithoutEditsGetNoCdiDeviceAndNoId() {
    ClaimSpec cs =
        ClaimSpec.build(
            KIND,
            CLAIM,
            List.of(
                PreparedDevice.of(dev("gpu", "p", "gpu-0", null), ContainerEdits.NONE),
                PreparedDevice.of(dev("gpu", "p", "gpu-1", null), ENV)),
            ContainerEdits.builder().env("COMMON", "1").build());
    assertThat(cs.cdiDeviceIds().get(0)).isEmpty();
    assertThat(cs.cdiDeviceIds().get(1))
        .containsExactly("k8s.gpu.example.com/claim=" + UID + "-gpu-1");
    CdiSpec spec = cs.spec().orElseThrow();
    assertThat(spec.devices()).extracting(CdiDevice::name).containsExactly(UID + "-gpu-1");
    assertThat(spec.edits().env()).containsExactly("COMMON=1");
    assertThat(cs.allCdiDeviceIds()).isEqualTo(spec.qualifiedNames());
  }

  @Test
  void noSpecWhenNoDeviceHasEdits() {
    ClaimSpec cs =
        ClaimSpec.build(
            KIND,
            CLAIM,
            List.of(PreparedDevice.of(dev("gpu", "p", "gpu-0", null), ContainerEdits.NONE)),
            ENV);
    assertThat(cs.spec()).isEmpty();
    assertThat(cs.allCdiDeviceIds()).isEmpty();
    assertThat(cs.cdiDeviceIds()).hasSize(1);
  }

  @Test
  void invalidEditsNameTheClaimTheDeviceAndTheField() {
    ContainerEdits bad =
        ContainerEdits.builder()
            .deviceNode(DeviceNode.builder("/dev/gpu0").permissions("x").build())
            .build();
    assertThatThrownBy(
            () ->
                ClaimSpec.build(
                    KIND,
                    CLAIM,
                    List.of(PreparedDevice.of(dev("gpu", "p", "gpu-0", null), bad)),
                    ContainerEdits.NONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "device gpu-0 of claim ns/c ("
                + UID
                + "): deviceNodes[0] (/dev/gpu0): permissions \"x\" must be a non-empty subset"
                + " of rwm");
    assertThatThrownBy(
            () ->
                ClaimSpec.build(
                    KIND,
                    CLAIM,
                    List.of(PreparedDevice.of(dev("gpu", "p", "gpu-0", null), ENV)),
                    bad))
        .hasMessageStartingWith("claim-wide edits of claim ns/c (" + UID + "): deviceNodes[0]");
  }

  @Test
  void claimUidsThatCannotNameAFileAreRejected() {
    for (String uid : new String[] {"a_b", "../x", "a/b", "", "-a"}) {
      assertThatThrownBy(
              () ->
                  ClaimSpec.build(
                      KIND,
                      ClaimRef.of("ns", "c", uid),
                      List.of(PreparedDevice.of(dev("gpu", "p", "gpu-0", null), ENV)),
                      ContainerEdits.NONE))
          .as(uid)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("claim UID \"" + uid + "\"");
    }
  }
}
