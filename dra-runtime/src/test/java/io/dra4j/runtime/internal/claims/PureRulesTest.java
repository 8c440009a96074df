package io.dra4j.runtime.internal.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.status.Condition;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.api.status.NetworkDeviceData;
import io.dra4j.kube.AllocatedDeviceStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pure rules of the pipeline: status limits, the overlap index (IP rules: IpLiteralTest). */
class PureRulesTest {

  private static final ClaimRef A = ClaimRef.of("ns", "a", "uid-a");
  private static final ClaimRef B = ClaimRef.of("ns", "b", "uid-b");

  @Test
  void statusLimits() {
    List<Condition> nine = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      nine.add(Condition.of("C" + i, "True", "Ok", ""));
    }
    assertThatThrownBy(() -> DeviceStatuses.validate("p/d", DeviceStatus.of(nine)))
        .hasMessageContaining("status of device p/d: conditions: 9 conditions, at most 8");
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.of(List.of(Condition.of("Ready", "True", "not camel", "")))))
        .hasMessageContaining("conditions[0].reason \"not camel\"");
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.of(
                        List.of(
                            Condition.of("Ready", "True", "Ok", ""),
                            Condition.of("Ready", "False", "Ok", "")))))
        .hasMessageContaining("appears twice");
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.of(
                        List.of(Condition.of("Ready", "True", "Ok", "m".repeat(32769))))))
        .hasMessageContaining("message: 32769 characters, at most 32768");
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.ready("Ok", "")
                        .withNetworkData(
                            NetworkDeviceData.builder().interfaceName("x".repeat(257)).build())))
        .hasMessageContaining("networkData.interfaceName: 257 bytes, at most 256");
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.ready("Ok", "")
                        .withNetworkData(
                            NetworkDeviceData.builder().hardwareAddress("h".repeat(129)).build())))
        .hasMessageContaining("networkData.hardwareAddress: 129 bytes, at most 128");
    List<String> ips = new ArrayList<>();
    for (int i = 0; i < 17; i++) {
      ips.add("10.0.0." + i + "/24");
    }
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.ready("Ok", "")
                        .withNetworkData(NetworkDeviceData.builder().ips(ips).build())))
        .hasMessageContaining("networkData.ips: 17 addresses, at most 16");
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.ready("Ok", "")
                        .withNetworkData(
                            NetworkDeviceData.builder()
                                .ips(List.of("2001:db8::1/64", "2001:db8::1/64"))
                                .build())))
        .hasMessageContaining("networkData.ips[1] \"2001:db8::1/64\" is listed twice");
    // Another spelling of an address is refused as the API server refuses it (IpLiteralTest).
    assertThatThrownBy(
            () ->
                DeviceStatuses.validate(
                    "p/d",
                    DeviceStatus.ready("Ok", "")
                        .withNetworkData(
                            NetworkDeviceData.builder().ips(List.of("2001:db8:0::1/64")).build())))
        .hasMessageContaining(
            "networkData.ips[0] \"2001:db8:0::1/64\" must be in canonical form"
                + " (\"2001:db8::1/64\")");
    // At the limits: fine.
    DeviceStatuses.validate(
        "p/d",
        DeviceStatus.of(nine.subList(0, 8))
            .withData(Map.of("k", "v".repeat(10000)))
            .withNetworkData(
                NetworkDeviceData.builder()
                    .interfaceName("x".repeat(256))
                    .ips(ips.subList(0, 16))
                    .hardwareAddress("h")
                    .build()));
  }

  @Test
  void transitionTimeIsKeptWhileTheStatusStaysTheSame() {
    Instant t1 = Instant.parse("2026-01-01T00:00:00Z");
    Instant t2 = Instant.parse("2026-01-01T01:00:00Z");
    DeviceStatus ready = DeviceStatus.ready("Ok", "");
    AllocatedDeviceStatus first =
        DeviceStatuses.toWire("d", "p", "x", Optional.empty(), ready, Optional.empty(), t1);
    AllocatedDeviceStatus same =
        DeviceStatuses.toWire("d", "p", "x", Optional.empty(), ready, Optional.of(first), t2);
    assertThat(same.conditions().get(0).lastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
    DeviceStatus notReady = DeviceStatus.of(List.of(Condition.of("Ready", false, "Broken", "")));
    AllocatedDeviceStatus changed =
        DeviceStatuses.toWire("d", "p", "x", Optional.empty(), notReady, Optional.of(first), t2);
    assertThat(changed.conditions().get(0).lastTransitionTime()).isEqualTo("2026-01-01T01:00:00Z");
  }

  @Test
  void overlapIndexIsAllOrNothingAndReleasable() {
    DeviceIndex index = new DeviceIndex();
    assertThat(index.reserve(A, List.of(AllocatedDevice.of("r", "p", "d1")))).isEmpty();
    // B wants d2 and d1: refused, and d2 is not left reserved.
    assertThat(
            index.reserve(
                B, List.of(AllocatedDevice.of("r", "p", "d2"), AllocatedDevice.of("r", "p", "d1"))))
        .contains("device p/d1 is already prepared for claim " + A);
    assertThat(index.holders("p/d2")).isEmpty();
    // Repeating A's own reservation is fine.
    assertThat(index.reserve(A, List.of(AllocatedDevice.of("r", "p", "d1")))).isEmpty();
    index.release(A.uid());
    assertThat(index.reserve(B, List.of(AllocatedDevice.of("r", "p", "d1")))).isEmpty();
    assertThat(index.holders("p/d1")).containsExactly(B.uid());
  }

  @Test
  void sharesOfOneDeviceCoexistButNotWithAnExclusiveHoldOrTheSameShare() {
    ClaimRef c = ClaimRef.of("ns", "c", "uid-c");
    DeviceIndex index = new DeviceIndex();
    assertThat(index.reserve(A, List.of(share("d1", "s1")))).isEmpty();
    assertThat(index.reserve(B, List.of(share("d1", "s2")))).isEmpty();
    assertThat(index.holders("p/d1")).containsExactly(A.uid(), B.uid());
    assertThat(index.reserve(c, List.of(share("d1", "s1"))))
        .contains("device p/d1 (share s1) is already prepared for claim " + A + " (share s1)");
    assertThat(index.reserve(c, List.of(AllocatedDevice.of("r", "p", "d1"))))
        .contains("device p/d1 is already prepared for claim " + A + " (share s1)");

    // An exclusive hold keeps every share out.
    assertThat(index.reserve(c, List.of(AllocatedDevice.of("r", "p", "d2")))).isEmpty();
    assertThat(index.reserve(A, List.of(share("d1", "s1"), share("d2", "s9"))))
        .contains("device p/d2 (share s9) is already prepared for claim " + c);
    // A's refused reservation did not touch what A already held.
    assertThat(index.holders("p/d1")).containsExactly(A.uid(), B.uid());
  }

  private static AllocatedDevice share(String device, String shareId) {
    return AllocatedDevice.builder("r", "p", device).shareId(shareId).build();
  }
}
