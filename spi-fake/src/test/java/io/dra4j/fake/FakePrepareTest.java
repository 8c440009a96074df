package io.dra4j.fake;

import static io.dra4j.fake.Fixtures.NODE;
import static io.dra4j.fake.Fixtures.discovered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.claim.RecordedDevice;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.status.Condition;
import io.dra4j.api.status.NetworkDeviceData;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FakePrepareTest {

  static ClaimAllocation claim(String uid, AllocatedDevice... devices) {
    return ClaimAllocation.of(ClaimRef.of("ns", "claim-" + uid, uid), List.of(devices));
  }

  static AllocatedDevice shared(String request, String device, String shareId, String memory) {
    return AllocatedDevice.builder(request, NODE, device)
        .shareId(shareId)
        .consumedCapacity(Map.of("memory", Quantity.parse(memory)))
        .build();
  }

  static AllocatedDevice admin(String request, String device) {
    return AllocatedDevice.builder(request, NODE, device).adminAccess(true).build();
  }

  static PreparedClaim recorded(ClaimAllocation a, PrepareResult r) {
    return PreparedClaim.of(a.claim(), r.devices().stream().map(RecordedDevice::of).toList(), true);
  }

  /** The documented identity: a name-based UUID of driver, node and device name. */
  private static String uuid(FakeDeviceProvider p, String device) {
    return java.util
        .UUID
        .nameUUIDFromBytes(
            (Fixtures.DRIVER + "/" + NODE + "/" + device)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .toString();
  }

  @Test
  void prepareInjectsTheDeviceIdentityAndReportsReady() throws Exception {
    FakeDeviceProvider p = discovered(Map.of());
    String uuid0 = uuid(p, "gpu-0");
    String uuid5 = uuid(p, "gpu-5");

    PrepareResult r =
        p.prepare(
            claim(
                "u1",
                AllocatedDevice.of("gpus", NODE, "gpu-0"),
                AllocatedDevice.of("gpus", NODE, "gpu-5")));

    assertThat(r.devices()).hasSize(2);
    PreparedDevice d0 = r.devices().get(0);
    assertThat(d0.edits().env())
        .containsExactly("DRA_FAKE_DEVICE_0=" + uuid0, "DRA_FAKE_DEVICE_0_REQUEST=gpus");
    assertThat(d0.edits().deviceNodes()).isEmpty();
    assertThat(r.devices().get(1).edits().env())
        .containsExactly("DRA_FAKE_DEVICE_5=" + uuid5, "DRA_FAKE_DEVICE_5_REQUEST=gpus");
    assertThat(d0.status().orElseThrow().conditions())
        .containsExactly(Condition.of("Ready", "True", "Prepared", "fake device gpu-0 is ready"));
    assertThat(d0.status().orElseThrow().data())
        .isEqualTo(Map.of("uuid", uuid0, "model", "FAKE-80"));
    assertThat(d0.recorded()).isEqualTo(Map.of("uuid", uuid0));
    assertThat(d0.status().orElseThrow().networkData()).isEmpty();
    assertThat(p.prepared()).isEqualTo(Map.of("u1", Set.of(NODE + "/gpu-0", NODE + "/gpu-5")));
  }

  @Test
  void networkDataLikeANicDriverWhenAskedFor() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("network-data", "true"));
    String hex = uuid(p, "gpu-2").replace("-", "");
    PrepareResult r = p.prepare(claim("u1", AllocatedDevice.of("nics", NODE, "gpu-2")));
    NetworkDeviceData n = r.devices().get(0).status().orElseThrow().networkData().orElseThrow();
    assertThat(n.interfaceName()).isEqualTo("fake-gpu-2");
    assertThat(n.ips()).containsExactly("192.0.2.3/24");
    assertThat(n.hardwareAddress())
        .matches("02(:[0-9a-f]{2}){5}")
        .isEqualTo(
            "02:"
                + hex.substring(0, 2)
                + ":"
                + hex.substring(2, 4)
                + ":"
                + hex.substring(4, 6)
                + ":"
                + hex.substring(6, 8)
                + ":"
                + hex.substring(8, 10));
  }

  @Test
  void adminAccessAndSharedCapacityAreShownToTheContainer() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("consumable", "true"));
    String uuid = uuid(p, "gpu-1");

    PrepareResult a = p.prepare(claim("a", admin("debug", "gpu-1")));
    PrepareResult s1 = p.prepare(claim("s1", shared("mem", "gpu-1", "share-1", "4Gi")));
    PrepareResult s2 = p.prepare(claim("s2", shared("mem", "gpu-1", "share-2", "8Gi")));

    assertThat(a.devices().get(0).edits().env())
        .containsExactly(
            "DRA_FAKE_DEVICE_1=" + uuid,
            "DRA_FAKE_DEVICE_1_REQUEST=debug",
            "DRA_ADMIN_ACCESS=true");
    assertThat(s1.devices().get(0).edits().env())
        .containsExactly(
            "DRA_FAKE_DEVICE_1=" + uuid,
            "DRA_FAKE_DEVICE_1_REQUEST=mem",
            "DRA_FAKE_DEVICE_1_MEMORY=4Gi");
    assertThat(s2.devices().get(0).edits().env()).contains("DRA_FAKE_DEVICE_1_MEMORY=8Gi");
    assertThat(p.prepared())
        .isEqualTo(
            Map.of(
                "a", Set.of(NODE + "/gpu-1"),
                "s1", Set.of(NODE + "/gpu-1#share-1"),
                "s2", Set.of(NODE + "/gpu-1#share-2")));
  }

  @Test
  void typedConfigAddsSharingAndExtraEnvironment() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("partitions", "2"));
    FakeConfig cfg =
        new FakeConfig(Map.of("ZETA", "z", "ALPHA", "a"), FakeConfig.Sharing.TIME_SLICING);

    PrepareResult r =
        p.prepare(claim("u1", AllocatedDevice.of("part", NODE, "gpu-3-part-1").withConfig(cfg)));

    assertThat(r.devices().get(0).edits().env())
        .containsExactly(
            "DRA_FAKE_DEVICE_3_PART_1=" + uuid(p, "gpu-3-part-1"),
            "DRA_FAKE_DEVICE_3_PART_1_REQUEST=part",
            "DRA_FAKE_DEVICE_3_PART_1_SHARING=TimeSlicing",
            "ALPHA=a",
            "ZETA=z");
    assertThat(p.configTypes()).containsExactly(FakeConfig.TYPE);
  }

  @Test
  void invalidConfigFailsTheClaimWithTheFieldNamed() {
    FakeDeviceProvider p = discovered(Map.of());
    FakeConfig reserved = new FakeConfig(Map.of("DRA_FAKE_DEVICE_0", "x"), null);
    FakeConfig badName = new FakeConfig(Map.of("1X", "x"), null);

    assertThatThrownBy(
            () ->
                p.prepare(claim("u1", AllocatedDevice.of("r", NODE, "gpu-0").withConfig(reserved))))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("gpu-0")
        .hasMessageContaining("env: \"DRA_FAKE_DEVICE_0\" is reserved");
    assertThatThrownBy(() -> p.validate(badName)).hasMessageContaining("env: \"1X\"");
    assertThatThrownBy(() -> p.validate("text")).hasMessageContaining("not a FakeDeviceConfig");
    assertThatThrownBy(
            () -> p.prepare(claim("u2", AllocatedDevice.of("r", NODE, "gpu-0").withConfig(42))))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("java.lang.Integer");
    assertThat(p.prepared()).isEmpty();
  }

  @Test
  void deviceNodesAreInjectedAsRequiredNodes() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("device-nodes", "/dev/null"));

    PrepareResult r = p.prepare(claim("u1", AllocatedDevice.of("r", NODE, "gpu-2")));

    assertThat(r.devices().get(0).edits().deviceNodes())
        .containsExactly(DeviceNode.builder("/dev/fake-gpu-2").hostPath("/dev/null").build());
    assertThat(r.devices().get(0).edits().deviceNodes().get(0).required()).isTrue();
  }

  @Test
  void unknownDevicesAndEarlyCallsAreRefused() {
    FakeDeviceProvider p = discovered(Map.of("devices", "2"));

    assertThatThrownBy(() -> p.prepare(claim("u1", AllocatedDevice.of("r", NODE, "gpu-7"))))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("device node-a/gpu-7 is not a device of this node");
    assertThatThrownBy(() -> p.prepare(claim("u1", AllocatedDevice.of("r", "other-pool", "gpu-0"))))
        .hasMessageContaining("other-pool/gpu-0");
    assertThatThrownBy(
            () ->
                new FakeDeviceProvider()
                    .prepare(claim("u1", AllocatedDevice.of("r", NODE, "gpu-0"))))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("no devices discovered yet");
  }

  @Test
  void anExclusiveDeviceServesOneClaimUntilItIsUnprepared() throws Exception {
    FakeDeviceProvider p = discovered(Map.of());
    ClaimAllocation a = claim("a", AllocatedDevice.of("r", NODE, "gpu-0"));
    ClaimAllocation b =
        claim("b", AllocatedDevice.of("r", NODE, "gpu-1"), AllocatedDevice.of("r", NODE, "gpu-0"));

    PrepareResult ra = p.prepare(a);
    assertThatThrownBy(() -> p.prepare(b))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("device node-a/gpu-0 is already prepared for claim a");
    // A refused claim leaves nothing behind, not even its other device.
    assertThat(p.prepared()).isEqualTo(Map.of("a", Set.of(NODE + "/gpu-0")));
    // Admin access may look at a device in use.
    p.prepare(claim("dbg", admin("r", "gpu-0")));

    p.unprepare(recorded(a, ra));
    p.prepare(b);

    assertThat(p.prepared())
        .isEqualTo(
            Map.of("b", Set.of(NODE + "/gpu-0", NODE + "/gpu-1"), "dbg", Set.of(NODE + "/gpu-0")));
  }

  @Test
  void prepareIsRepeatableAndUnprepareIdempotent() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("device-nodes", "/dev/null"));
    ClaimAllocation a = claim("a", AllocatedDevice.of("r", NODE, "gpu-4"));

    PrepareResult first = p.prepare(a);
    PrepareResult again = p.prepare(a);
    PrepareResult elsewhere = discovered(Map.of("device-nodes", "/dev/null")).prepare(a);

    assertThat(again).isEqualTo(first);
    assertThat(elsewhere).isEqualTo(first);
    p.unprepare(recorded(a, first));
    p.unprepare(recorded(a, first));
    p.unprepare(PreparedClaim.of(a.claim(), List.of(), false));
    assertThat(p.prepared()).isEmpty();
  }
}
