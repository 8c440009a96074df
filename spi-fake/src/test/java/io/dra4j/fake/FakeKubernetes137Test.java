package io.dra4j.fake;

import static io.dra4j.fake.FakePrepareTest.claim;
import static io.dra4j.fake.Fixtures.NODE;
import static io.dra4j.fake.Fixtures.device;
import static io.dra4j.fake.Fixtures.discovered;
import static io.dra4j.fake.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.binding.BindingRequest;
import io.dra4j.api.binding.BindingStatus;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.SkipNodeOperation;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What spi-fake simulates of Kubernetes 1.37: partitioning modes with compatibility groups,
 * fractional compute shares, devices of several PCI functions, devices attached before their pod
 * binds, and a pool whose devices skip the kubelet's node operations.
 */
class FakeKubernetes137Test {

  private static Inventory discover(Map<String, String> config) {
    return new FakeDeviceProvider().discover(Fixtures.context(config));
  }

  @Test
  void partitionModesGiveEachModeItsPartitionsInItsOwnGroup() {
    Inventory inv =
        discover(Map.of("devices", "1", "partitions", "2", "partition-modes", "mig,vgpu"));
    assertThat(pool(inv).devices())
        .extracting(Device::name)
        .containsExactly("gpu-0", "gpu-0-mig-0", "gpu-0-mig-1", "gpu-0-vgpu-0", "gpu-0-vgpu-1");
    Device vgpu = device(inv, "gpu-0-vgpu-1");
    assertThat(vgpu.attribute("mode")).contains(DeviceAttribute.of("vgpu"));
    assertThat(vgpu.attribute("partition")).contains(DeviceAttribute.of(1));
    DeviceCounterConsumption c = vgpu.consumesCounters().get(0);
    assertThat(c.counterSet()).isEqualTo("gpu-0-counters");
    assertThat(c.compatibilityGroups()).containsExactly("vgpu");
    // The full device draws everything and has no groups; without modes nothing has groups.
    assertThat(device(inv, "gpu-0").consumesCounters().get(0).compatibilityGroups()).isEmpty();
    assertThat(
            pool(discover(Map.of("devices", "1", "partitions", "2"))).devices().stream()
                .flatMap(d -> d.consumesCounters().stream())
                .allMatch(x -> x.compatibilityGroups().isEmpty()))
        .isTrue();
  }

  @Test
  void prepareRefusesAPartitionOfAnotherModeOfTheSameDevice() throws Exception {
    FakeDeviceProvider p =
        discovered(Map.of("devices", "2", "partitions", "2", "partition-modes", "mig,vgpu"));
    p.prepare(claim("a", AllocatedDevice.of("gpu", NODE, "gpu-0-mig-0")));
    // Same mode, or another device: fine.
    p.prepare(claim("b", AllocatedDevice.of("gpu", NODE, "gpu-0-mig-1")));
    p.prepare(claim("c", AllocatedDevice.of("gpu", NODE, "gpu-1-vgpu-0")));
    assertThatThrownBy(() -> p.prepare(claim("d", AllocatedDevice.of("gpu", NODE, "gpu-0-vgpu-0"))))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining(
            "device gpu-0-vgpu-0 needs gpu-0 in vgpu mode, but gpu-0-mig-0 has it in mig mode for"
                + " claim a");
    // Once the mig partitions are released the device can switch.
    p.unprepare(FakePrepareTest.recorded(claim("a"), PrepareResult.of(List.of())));
    p.unprepare(FakePrepareTest.recorded(claim("b"), PrepareResult.of(List.of())));
    p.prepare(claim("d", AllocatedDevice.of("gpu", NODE, "gpu-0-vgpu-0")));
    assertThat(p.prepared()).containsOnlyKeys("c", "d");
  }

  @Test
  void badModeSettingsNameTheRule() {
    assertThatThrownBy(() -> discover(Map.of("partition-modes", "mig")))
        .hasMessageContaining("partition-modes=\"mig\" needs partitions > 0");
    assertThatThrownBy(() -> discover(Map.of("partitions", "1", "partition-modes", "MIG")))
        .hasMessageContaining("\"MIG\" is not one");
    assertThatThrownBy(() -> discover(Map.of("partitions", "1", "partition-modes", "a,a")))
        .hasMessageContaining("lists \"a\" twice");
    assertThatThrownBy(() -> discover(Map.of("partitions", "1", "partition-modes", "a,b,c,d,e")))
        .hasMessageContaining("more than 4 modes");
  }

  @Test
  void fractionalComputeIsAFractionalRange() throws Exception {
    Inventory inv =
        discover(Map.of("devices", "1", "consumable", "true", "fractional-compute", "true"));
    Device d = device(inv, "gpu-0");
    assertThat(d.capacity().get("compute").value()).isEqualTo(Quantity.of(1));
    CapacityRequestPolicy policy = d.capacity().get("compute").requestPolicy().orElseThrow();
    assertThat(policy.defaultValue()).contains(Quantity.parse("100m"));
    assertThat(policy.validRange().orElseThrow().step()).contains(Quantity.parse("50m"));
    assertThatThrownBy(() -> discover(Map.of("fractional-compute", "true")))
        .hasMessageContaining("needs consumable=true");

    FakeDeviceProvider p =
        discovered(Map.of("devices", "1", "consumable", "true", "fractional-compute", "true"));
    AllocatedDevice share =
        AllocatedDevice.builder("gpu", NODE, "gpu-0")
            .shareId("9b2f6a36-0000-4000-8000-000000000001")
            .consumedCapacity(
                Map.of("memory", Quantity.parse("1Gi"), "compute", Quantity.parse("350m")))
            .build();
    assertThat(p.prepare(claim("s", share)).devices().get(0).edits().env())
        .contains("DRA_FAKE_DEVICE_0_MEMORY=1Gi", "DRA_FAKE_DEVICE_0_COMPUTE=350m");
  }

  @Test
  void aDeviceOfSeveralFunctionsListsThemAll() {
    Inventory inv =
        discover(Map.of("devices", "2", "pci-bus-ids", "0000:3b:00.0+0000:86:00.0, 0000:5e:00.0"));
    assertThat(device(inv, "gpu-0").attribute(StandardAttributes.PCI_BUS_ID))
        .contains(DeviceAttribute.ofStrings(List.of("0000:3b:00.0", "0000:86:00.0")));
    assertThat(device(inv, "gpu-1").attribute(StandardAttributes.PCI_BUS_ID))
        .contains(DeviceAttribute.of("0000:5e:00.0"));
    assertThatThrownBy(
            () -> discover(Map.of("devices", "2", "pci-bus-ids", "0000:3b:00.0+0000:3b:00.0,x")))
        .hasMessageContaining("lists 0000:3b:00.0 twice");
  }

  @Test
  void attachDevicesPublishBindingConditionsAndAttachAfterTheDelay() throws Exception {
    FakeDeviceProvider p = new FakeDeviceProvider();
    Inventory inv =
        p.discover(
            Fixtures.context(
                Map.of(
                    "devices", "3",
                    "attach-devices", "gpu-1,gpu-2",
                    "attach-failures", "gpu-2",
                    "attach-delay", "200ms")));
    assertThat(device(inv, "gpu-0").bindingConditions()).isEmpty();
    assertThat(device(inv, "gpu-1").bindingConditions()).containsExactly("Attached");
    assertThat(device(inv, "gpu-1").bindingFailureConditions()).containsExactly("AttachFailed");

    BindingRequest one = request("gpu-1");
    BindingRequest two = request("gpu-2");
    assertThat(p.bindingStatus(one)).isInstanceOf(BindingStatus.Pending.class);
    assertThat(p.bindingStatus(two)).isInstanceOf(BindingStatus.Pending.class);
    assertThat(p.attachments()).hasSize(2);
    Thread.sleep(250); // the point: the attach delay, wall time, passes
    assertThat(p.bindingStatus(one)).isEqualTo(BindingStatus.ready("gpu-1 is attached"));
    assertThat(p.bindingStatus(two))
        .isEqualTo(
            BindingStatus.failed(
                "FabricAttachFailed", "the simulated fabric could not attach gpu-2"));
    p.released(one);
    assertThat(p.attachments()).containsExactly("u1 " + NODE + "/gpu-2");

    assertThatThrownBy(
            () -> discover(Map.of("attach-devices", "gpu-1", "attach-failures", "gpu-1,gpu-3")))
        .hasMessageContaining("names [gpu-3], which attach-devices does not");
    assertThatThrownBy(() -> discover(Map.of("attach-devices", "all", "attach-delay", "soon")))
        .hasMessageContaining("attach-delay=\"soon\"");
  }

  @Test
  void skipNodeOperationsAddsASecondPoolWhoseSlicesSkipThoseCalls() throws Exception {
    assertThat(discover(Map.of("devices", "2")).pools()).hasSize(1);
    FakeDeviceProvider p = new FakeDeviceProvider();
    Inventory inv =
        p.discover(
            Fixtures.context(
                Map.of("devices", "2", "partitions", "2", "skip-node-operations", " *")));
    assertThat(inv.pools()).extracting(Pool::name).containsExactly(NODE, NODE + "-skip");
    Pool skip = inv.pools().get(1);
    assertThat(skip.skipNodeOperations()).containsExactly(SkipNodeOperation.ALL);
    assertThat(pool(inv).skipNodeOperations()).isEmpty();
    // Plain devices, told apart from the others by one attribute a selector can test.
    assertThat(skip.devices()).extracting(Device::name).containsExactly("gpu-skip-0", "gpu-skip-1");
    Device d = skip.devices().get(1);
    assertThat(d.attribute("skipsNodeOperations")).contains(DeviceAttribute.of(true));
    assertThat(d.attribute("index")).contains(DeviceAttribute.of(1));
    assertThat(d.consumesCounters()).isEmpty();
    assertThat(device(inv, "gpu-0").attribute("skipsNodeOperations")).isEmpty();
    assertThat(
            discover(
                    Map.of(
                        "devices",
                        "1",
                        "skip-node-operations",
                        "NodePrepareResources,NodeUnprepareResources"))
                .pools()
                .get(1)
                .skipNodeOperations())
        .containsExactlyInAnyOrder(
            SkipNodeOperation.NODE_PREPARE_RESOURCES, SkipNodeOperation.NODE_UNPREPARE_RESOURCES);

    // Where the kubelet still calls (a claim that also holds a device not skipping), both pools'
    // devices are prepared; health covers both pools.
    PrepareResult r =
        p.prepare(
            claim(
                "u1",
                AllocatedDevice.of("a", NODE, "gpu-0"),
                AllocatedDevice.of("b", NODE + "-skip", "gpu-skip-1")));
    assertThat(r.devices().get(1).edits().env())
        .contains("DRA_FAKE_DEVICE_SKIP_1_REQUEST=b")
        .anyMatch(e -> e.startsWith("DRA_FAKE_DEVICE_SKIP_1="));
    assertThat(p.health().current())
        .filteredOn(h -> h.device().equals("gpu-skip-1"))
        .singleElement()
        .satisfies(h -> assertThat(h.pool()).isEqualTo(NODE + "-skip"));
    assertThatThrownBy(
            () -> p.prepare(claim("u2", AllocatedDevice.of("a", NODE + "-skip", "gpu-0"))))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("pool node-a-skip has no device gpu-0");
    assertThatThrownBy(() -> p.prepare(claim("u2", AllocatedDevice.of("a", "node-b", "gpu-0"))))
        .hasMessageContaining("this node's pools are node-a, node-a-skip");

    assertThatThrownBy(() -> discover(Map.of("skip-node-operations", "NodePrepare")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "setting skip-node-operations=\"NodePrepare\" must be a comma list of"
                + " NodePrepareResources, NodeUnprepareResources and *");
    assertThatThrownBy(() -> discover(Map.of("skip-node-operations", "*,*")))
        .hasMessageContaining("lists \"*\" twice");
  }

  private static BindingRequest request(String device) {
    return BindingRequest.of(ClaimRef.of("ns", "c", "u1"), "gpu", NODE, device)
        .withBindingConditions(List.of("Attached"), List.of("AttachFailed"));
  }
}
