package io.dra4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import org.junit.jupiter.api.Test;

/**
 * The codec warm-up's synthetic claim must be one this client reads in full: a field it drops or
 * keeps as unknown would leave that part of the codec cold, and the warm-up logs its failures only
 * at debug level.
 */
class WarmupCodecsTest {
  @Test
  void theSyntheticClaimDecodesIntoEveryPartAPrepareReads() throws Exception {
    ResourceClaim claim = Warmup.primeCodecs();
    assertThat(claim.unknownFields()).isEmpty();
    // managedFields are kept as they came: the real GET answers with them.
    assertThat(claim.metadata().unknownFields()).containsOnlyKeys("managedFields");
    assertThat(claim.spec().unknownFields()).isEmpty();
    assertThat(claim.spec().devices().requests())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.unknownFields()).isEmpty();
              assertThat(r.exactly()).isPresent();
              assertThat(r.exactly().get().selectors()).hasSize(1);
            });
    assertThat(claim.spec().devices().config()).hasSize(1);
    var allocation = claim.status().allocation().orElseThrow();
    assertThat(allocation.nodeSelector()).isPresent();
    assertThat(allocation.devices().config()).hasSize(1);
    assertThat(allocation.devices().results())
        .extracting(DeviceRequestAllocationResult::device)
        .containsExactly("d");
    assertThat(claim.status().reservedFor()).hasSize(1);
  }

  @Test
  void theKubeletMessagesReadBackWhatWasWritten() throws Exception {
    var response = Warmup.primeKubeletMessages();
    assertThat(response.getClaimsMap()).containsOnlyKeys("u");
    var device = response.getClaimsMap().get("u").getDevices(0);
    assertThat(device.getDeviceName()).isEqualTo("d");
    assertThat(device.getCdiDeviceIdsList()).containsExactly("warm-up.dra4j.io/claim=u-d");
    assertThat(device.getShareId()).isEqualTo("s");
  }
}
