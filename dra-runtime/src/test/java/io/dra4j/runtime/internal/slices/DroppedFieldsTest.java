package io.dra4j.runtime.internal.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.NodeAllocatableResource;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.api.provider.SkipNodeOperation;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.errors.DroppedFieldsException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DroppedFieldsTest {
  static final String DRIVER = "gpu.example.com";

  static Device base(String name) {
    return Device.builder(name).attribute("model", "x").build();
  }

  static ResourceSliceSpec spec(PoolScope scope, Device... devices) {
    return SliceLayout.layout(
            DRIVER,
            Pool.builder("node-1").devices(List.of(devices)).scope(scope).build(),
            LayoutOptions.node("node-1"))
        .get(0);
  }

  static ResourceSliceSpec spec(Device... devices) {
    return spec(PoolScope.node(), devices);
  }

  @Test
  void nothingDroppedWhenTheServerOnlyAddedTaintTimes() {
    Device sent =
        base("a").toBuilder().taint(DeviceTaint.of(DRIVER + "/t", "", TaintEffect.NONE)).build();
    Device stored =
        base("a").toBuilder()
            .taint(
                DeviceTaint.of(DRIVER + "/t", "", TaintEffect.NONE)
                    .withTimeAdded("2026-01-01T00:00:00Z"))
            .build();
    assertThat(DroppedFields.detect(spec(sent), spec(stored))).isEmpty();
  }

  @Test
  void droppedTaints() {
    Device sent =
        base("a").toBuilder().taint(DeviceTaint.of(DRIVER + "/t", "", TaintEffect.NONE)).build();
    DroppedFields d = DroppedFields.detect(spec(sent), spec(base("a"))).orElseThrow();
    assertThat(d.disabledFeatures()).containsExactly("DRADeviceTaints");
    assertThat(d.message("node-1", 2))
        .isEqualTo(
            "pool \"node-1\", slice #2: the API server did not store some fields; these feature"
                + " gates are probably off: DRADeviceTaints");
  }

  @Test
  void droppedPartitionableDeviceFields() {
    Device consuming =
        base("a").toBuilder()
            .consumesCounters(
                DeviceCounterConsumption.of("s", Map.of("c", Counter.of(Quantity.of(1)))))
            .build();
    assertThat(
            DroppedFields.detect(spec(consuming), spec(base("a"))).orElseThrow().disabledFeatures())
        .containsExactly("DRAPartitionableDevices");

    Device perDevice = base("a").toBuilder().allNodes(true).build();
    ResourceSliceSpec sent = spec(PoolScope.perDevice(), perDevice);
    ResourceSliceSpec stored =
        new ResourceSliceSpec(
            DRIVER,
            sent.pool(),
            Optional.empty(),
            Optional.empty(),
            false,
            false,
            List.of(base("a")),
            List.of(),
            Optional.empty(),
            List.of(),
            Map.of());
    assertThat(DroppedFields.detect(sent, stored).orElseThrow().disabledFeatures())
        .containsExactly("DRAPartitionableDevices");

    ResourceSliceSpec counters =
        SliceLayout.layout(
                DRIVER,
                Pool.builder("node-1")
                    .counterSets(
                        List.of(CounterSet.of("s", Map.of("c", Counter.of(Quantity.of(4))))))
                    .build(),
                LayoutOptions.node("node-1"))
            .get(0);
    assertThat(
            DroppedFields.detect(
                    counters, counters.withDevices(List.of()).withPool(counters.pool()))
                .isEmpty())
        .isTrue();
    ResourceSliceSpec noCounters =
        new ResourceSliceSpec(
            DRIVER,
            counters.pool(),
            counters.nodeName(),
            Optional.empty(),
            false,
            false,
            List.of(),
            List.of(),
            Optional.empty(),
            List.of(),
            Map.of());
    assertThat(DroppedFields.detect(counters, noCounters).orElseThrow().disabledFeatures())
        .containsExactly("DRAPartitionableDevices");
  }

  @Test
  void droppedBindingConditionsConsumableCapacityListsAndNodeAllocatable() {
    Device sent =
        base("a").toBuilder()
            .bindsToNode(true)
            .bindingConditions(List.of("Attached"), List.of("Failed"))
            .allowMultipleAllocations(true)
            .capacity(
                "bw",
                DeviceCapacity.of(Quantity.parse("10G"))
                    .withRequestPolicy(
                        CapacityRequestPolicy.validValues(
                            Quantity.parse("1G"), List.of(Quantity.parse("1G")))))
            .attribute("cores", DeviceAttribute.ofInts(List.of(0L, 1L)))
            .nodeAllocatableResource(
                "cpu",
                NodeAllocatableResource.of(
                    NodeAllocatableResource.Mapping.perDevice(Quantity.of(1))))
            .build();
    Device stored = base("a").toBuilder().capacity("bw", Quantity.parse("10G")).build();
    assertThat(DroppedFields.detect(spec(sent), spec(stored)).orElseThrow().disabledFeatures())
        .containsExactly(
            "DRADeviceBindingConditions",
            "DRAConsumableCapacity",
            "DRAListTypeAttributes",
            "DRANodeAllocatableResources");
  }

  @Test
  void droppedCompatibilityGroups() {
    // kube-apiserver with DRADeviceCompatibilityGroups off keeps the consumption, drops the groups.
    Map<String, Counter> c = Map.of("memory", Counter.of(Quantity.parse("1Gi")));
    Device sent =
        base("a").toBuilder()
            .consumesCounters(
                DeviceCounterConsumption.of("s", c).withCompatibilityGroups(List.of("mig")))
            .build();
    Device stored =
        base("a").toBuilder().consumesCounters(DeviceCounterConsumption.of("s", c)).build();
    assertThat(DroppedFields.detect(spec(sent), spec(stored)).orElseThrow().disabledFeatures())
        .containsExactly("DRADeviceCompatibilityGroups");
    assertThat(DroppedFields.detect(spec(sent), spec(sent))).isEmpty();
  }

  @Test
  void anUnexplainedDifferenceIsReportedAsUnknown() {
    Device stored = base("a").toBuilder().attribute("model", "y").build();
    assertThat(DroppedFields.detect(spec(base("a")), spec(stored)).orElseThrow().disabledFeatures())
        .containsExactly("unknown");
  }

  @Test
  void droppedPartitionTypeAndSkipNodeOperationsNameTheirGatesInUpstreamsOrder() {
    Device slot =
        base("a").toBuilder()
            .attribute("profile", "1g")
            .taint(DeviceTaint.of(DRIVER + "/t", "", TaintEffect.NO_SCHEDULE))
            .consumesCounters(
                DeviceCounterConsumption.of("s", Map.of("c", Counter.of(Quantity.of(1)))))
            .build();
    Pool pool =
        Pool.builder("node-1")
            .devices(List.of(slot))
            .partitionTypeAttribute(DRIVER + "/profile")
            .skipNodeOperations(SkipNodeOperation.ALL)
            .build();
    ResourceSliceSpec sent = SliceLayout.layout(DRIVER, pool, LayoutOptions.node("node-1")).get(0);
    Device stripped = slot.toBuilder().taints(List.of()).build();
    ResourceSliceSpec stored = spec(stripped);
    DroppedFields d = DroppedFields.detect(sent, stored).orElseThrow();
    assertThat(d.disabledFeatures())
        .containsExactly(
            "DRADeviceTaints", "DRAPartitionableDevicesType", "DRAOptionalNodeOperations");
    DroppedFieldsException e = d.exception("node-1", 0);
    assertThat(e.disabledFeatures()).isEqualTo(d.disabledFeatures());
    assertThat(e.pool()).isEqualTo("node-1");
    assertThat(e).hasMessage(d.message("node-1", 0));
    assertThat(DroppedFields.detect(sent, sent)).isEmpty();
  }
}
