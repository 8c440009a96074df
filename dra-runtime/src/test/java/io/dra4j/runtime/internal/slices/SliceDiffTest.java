package io.dra4j.runtime.internal.slices;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.ResourceSliceSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SliceDiffTest {
  static final String DRIVER = "gpu.example.com";
  final ObjectMapper mapper = new ObjectMapper().registerModule(new Jdk8Module());

  static Device gpu(String name) {
    return Device.builder(name)
        .attribute("model", "H200")
        .capacity("memory", Quantity.parse("1024Mi"))
        .build();
  }

  static ResourceSliceSpec spec(Device... devices) {
    return SliceLayout.layout(
            DRIVER, Pool.of("node-1", List.of(devices)), LayoutOptions.node("node-1"))
        .get(0);
  }

  static DeviceTaint taint(String time) {
    DeviceTaint t = DeviceTaint.of(DRIVER + "/unhealthy", "xid", TaintEffect.NO_EXECUTE);
    return time == null ? t : t.withTimeAdded(time);
  }

  @Test
  void whatTheServerReturnsForWhatWasSentNeedsNoUpdate() throws Exception {
    ResourceSliceSpec desired = spec(gpu("gpu-0"), gpu("gpu-1"));
    // The API server answers with canonical quantities and explicit defaults.
    String stored = mapper.writeValueAsString(desired).replace("\"1024Mi\"", "\"1Gi\"");
    ResourceSliceSpec existing = mapper.readValue(stored, ResourceSliceSpec.class);
    assertThat(existing.devices().get(0).capacity().get("memory").value().toString())
        .isEqualTo("1Gi");
    assertThat(SliceDiff.needsUpdate(desired, existing)).isFalse();
    assertThat(SliceDiff.differences(desired, existing)).isEmpty();
  }

  @Test
  void anyDeviceChangeIsAnUpdate() {
    ResourceSliceSpec desired = spec(gpu("gpu-0"), gpu("gpu-1"));
    assertThat(SliceDiff.differences(desired, spec(gpu("gpu-0")))).containsExactly("devices");
    assertThat(SliceDiff.differences(desired, spec(gpu("gpu-0"), gpu("gpu-2"))))
        .containsExactly("devices");
    Device changed = gpu("gpu-1").toBuilder().attribute("model", "H100").build();
    assertThat(SliceDiff.needsUpdate(desired, spec(gpu("gpu-0"), changed))).isTrue();
    Device bigger = gpu("gpu-1").toBuilder().capacity("memory", Quantity.parse("2Gi")).build();
    assertThat(SliceDiff.needsUpdate(desired, spec(gpu("gpu-0"), bigger))).isTrue();
  }

  @Test
  void orderMatters() {
    assertThat(SliceDiff.differences(spec(gpu("a"), gpu("b")), spec(gpu("b"), gpu("a"))))
        .containsExactly("devices");
    Device twoTaints =
        gpu("a").toBuilder()
            .taint(DeviceTaint.of(DRIVER + "/x", "", TaintEffect.NONE))
            .taint(DeviceTaint.of(DRIVER + "/y", "", TaintEffect.NONE))
            .build();
    Device swapped =
        gpu("a").toBuilder()
            .taint(DeviceTaint.of(DRIVER + "/y", "", TaintEffect.NONE))
            .taint(DeviceTaint.of(DRIVER + "/x", "", TaintEffect.NONE))
            .build();
    assertThat(SliceDiff.needsUpdate(spec(twoTaints), spec(swapped))).isTrue();
    Device list1 =
        gpu("a").toBuilder().attribute("n", DeviceAttribute.ofInts(List.of(0L, 1L))).build();
    Device list2 =
        gpu("a").toBuilder().attribute("n", DeviceAttribute.ofInts(List.of(1L, 0L))).build();
    assertThat(SliceDiff.needsUpdate(spec(list1), spec(list2))).isTrue();
  }

  @Test
  void taintTimesAreServerDefaults() {
    Device noTime = gpu("a").toBuilder().taint(taint(null)).build();
    Device withTime = gpu("a").toBuilder().taint(taint("2026-03-01T10:00:00Z")).build();
    Device halfSecond = gpu("a").toBuilder().taint(taint("2026-03-01T10:00:00.5Z")).build();
    Device later = gpu("a").toBuilder().taint(taint("2026-03-01T10:00:05Z")).build();
    assertThat(SliceDiff.needsUpdate(spec(noTime), spec(withTime))).isFalse();
    assertThat(SliceDiff.needsUpdate(spec(withTime), spec(noTime))).isFalse();
    assertThat(SliceDiff.needsUpdate(spec(halfSecond), spec(withTime))).isFalse();
    assertThat(SliceDiff.needsUpdate(spec(later), spec(withTime))).isTrue();
    Device otherEffect =
        gpu("a").toBuilder()
            .taint(
                DeviceTaint.of(DRIVER + "/unhealthy", "xid", TaintEffect.NO_SCHEDULE)
                    .withTimeAdded("2026-03-01T10:00:00Z"))
            .build();
    assertThat(SliceDiff.needsUpdate(spec(otherEffect), spec(withTime))).isTrue();
  }

  @Test
  void withTaintTimesFromCopiesTheExistingTimeOfTheSameTaint() {
    Device desired =
        gpu("a").toBuilder()
            .taint(taint(null))
            .taint(DeviceTaint.of(DRIVER + "/new", "", TaintEffect.NONE))
            .build();
    Device existing = gpu("a").toBuilder().taint(taint("2026-03-01T10:00:00Z")).build();
    ResourceSliceSpec merged = SliceDiff.withTaintTimesFrom(spec(desired), spec(existing));
    assertThat(merged.devices().get(0).taints())
        .containsExactly(
            taint("2026-03-01T10:00:00Z"), DeviceTaint.of(DRIVER + "/new", "", TaintEffect.NONE));
    ResourceSliceSpec untouched = spec(gpu("a"));
    assertThat(SliceDiff.withTaintTimesFrom(untouched, spec(existing))).isSameAs(untouched);
  }

  @Test
  void sliceLevelFieldsAreCompared() {
    ResourceSliceSpec base = spec(gpu("a"));
    ResourceSliceSpec otherPool = base.withPool(new ResourceSliceSpec.ResourcePool("node-1", 3, 1));
    assertThat(SliceDiff.differences(base, otherPool)).containsExactly("pool");
    ResourceSliceSpec allNodes =
        SliceLayout.layout(
                DRIVER,
                Pool.builder("node-1")
                    .devices(List.of(gpu("a")))
                    .scope(PoolScope.allNodes())
                    .build(),
                LayoutOptions.clusterWide())
            .get(0);
    assertThat(SliceDiff.differences(base, allNodes)).containsExactly("nodeName", "allNodes");
    CounterSet set = CounterSet.of("s", Map.of("c", Counter.of(Quantity.parse("2"))));
    CounterSet set2 = CounterSet.of("s", Map.of("c", Counter.of(Quantity.parse("2000m"))));
    ResourceSliceSpec counters =
        SliceLayout.layout(
                DRIVER,
                Pool.builder("node-1").counterSets(List.of(set)).build(),
                LayoutOptions.node("node-1"))
            .get(0);
    ResourceSliceSpec counters2 =
        SliceLayout.layout(
                DRIVER,
                Pool.builder("node-1").counterSets(List.of(set2)).build(),
                LayoutOptions.node("node-1"))
            .get(0);
    assertThat(SliceDiff.needsUpdate(counters, counters2)).isFalse();
  }

  @Test
  void fieldsUnknownToThisVersionAreIgnored() throws Exception {
    ResourceSliceSpec desired = spec(gpu("a"));
    var tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.valueToTree(desired);
    tree.put("futureSliceField", "x");
    ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("devices").get(0))
        .put("futureDeviceField", 1);
    ResourceSliceSpec existing = mapper.treeToValue(tree, ResourceSliceSpec.class);
    assertThat(existing.unknownFields()).containsKey("futureSliceField");
    assertThat(existing.devices().get(0).unknownFields()).containsKey("futureDeviceField");
    assertThat(SliceDiff.needsUpdate(desired, existing)).isFalse();
  }

  @Test
  void fieldsUnknownToThisVersionInsideADeviceAreIgnoredToo() throws Exception {
    // A newer API server that defaults a field inside a capacity, a taint or a counter must not
    // make every publish an update.
    Device d =
        gpu("a").toBuilder()
            .capacity("memory", Quantity.parse("80Gi"))
            .taint(DeviceTaint.of(DRIVER + "/t", "", TaintEffect.NO_SCHEDULE))
            .consumesCounters(
                DeviceCounterConsumption.of("s", Map.of("c", Counter.of(Quantity.of(1)))))
            .build();
    ResourceSliceSpec desired = spec(d);
    var tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.valueToTree(desired);
    var device = (com.fasterxml.jackson.databind.node.ObjectNode) tree.get("devices").get(0);
    ((com.fasterxml.jackson.databind.node.ObjectNode) device.get("capacity").get("memory"))
        .put("future", 1);
    ((com.fasterxml.jackson.databind.node.ObjectNode) device.get("taints").get(0)).put("future", 1);
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            device.get("consumesCounters").get(0).get("counters").get("c"))
        .put("future", 1);
    ResourceSliceSpec existing = mapper.treeToValue(tree, ResourceSliceSpec.class);
    assertThat(existing.devices().get(0).capacity().get("memory").unknownFields())
        .containsKey("future");
    assertThat(SliceDiff.needsUpdate(desired, existing)).isFalse();
    // And they are written back as read.
    assertThat((Object) mapper.valueToTree(existing)).isEqualTo(tree);
  }

  @Test
  void requestPoliciesAndCountersCompareByValue() {
    Device a =
        Device.builder("nic")
            .allowMultipleAllocations(true)
            .capacity(
                "bw",
                DeviceCapacity.of(Quantity.parse("10G"))
                    .withRequestPolicy(
                        CapacityRequestPolicy.builder()
                            .defaultValue(Quantity.parse("1G"))
                            .validRange(CapacityRequestPolicy.Range.of(Quantity.parse("1G")))
                            .build()))
            .consumesCounters(
                DeviceCounterConsumption.of("s", Map.of("c", Counter.of(Quantity.parse("1k")))))
            .build();
    Device b =
        Device.builder("nic")
            .allowMultipleAllocations(true)
            .capacity(
                "bw",
                DeviceCapacity.of(Quantity.parse("10000M"))
                    .withRequestPolicy(
                        CapacityRequestPolicy.builder()
                            .defaultValue(Quantity.parse("1000M"))
                            .validRange(CapacityRequestPolicy.Range.of(Quantity.parse("1e9")))
                            .build()))
            .consumesCounters(
                DeviceCounterConsumption.of("s", Map.of("c", Counter.of(Quantity.parse("1000")))))
            .build();
    assertThat(SliceDiff.deviceEqual(a, b)).isTrue();
    assertThat(SliceDiff.deviceEqual(a, b.toBuilder().allowMultipleAllocations(false).build()))
        .isFalse();
  }
}
