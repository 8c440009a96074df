package io.dra4j.runtime.internal.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.api.provider.SkipNodeOperation;
import io.dra4j.kube.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SliceLayoutTest {
  static final String DRIVER = "gpu.example.com";
  static final LayoutOptions NODE = LayoutOptions.node("node-1");

  static Device plain(int i) {
    return Device.builder("dev-" + i)
        .attribute("index", i)
        .capacity("memory", Quantity.parse("1Gi"))
        .build();
  }

  static Device tainted(int i) {
    return plain(i).toBuilder()
        .taint(DeviceTaint.of(DRIVER + "/unhealthy", "", TaintEffect.NO_SCHEDULE))
        .build();
  }

  static List<Device> plainDevices(int n) {
    return IntStream.range(0, n).mapToObj(SliceLayoutTest::plain).toList();
  }

  static List<ResourceSliceSpec> layout(List<Device> devices) {
    return SliceLayout.layout(DRIVER, Pool.of("node-1", devices), NODE);
  }

  static List<Integer> sizes(List<ResourceSliceSpec> specs) {
    return specs.stream().map(s -> s.devices().size()).toList();
  }

  static List<String> names(ResourceSliceSpec spec) {
    return spec.devices().stream().map(Device::name).toList();
  }

  /** Indices of slices whose content differs, for two layouts of the same length. */
  static List<Integer> changedSlices(List<ResourceSliceSpec> a, List<ResourceSliceSpec> b) {
    List<Integer> changed = new ArrayList<>();
    for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
      if (i >= a.size() || i >= b.size() || !a.get(i).equals(b.get(i))) {
        changed.add(i);
      }
    }
    return changed;
  }

  @Test
  void oneDeviceIsOneNodeLocalSlice() {
    List<ResourceSliceSpec> specs = layout(List.of(plain(0)));
    assertThat(specs).hasSize(1);
    ResourceSliceSpec s = specs.get(0);
    assertThat(s.driver()).isEqualTo(DRIVER);
    assertThat(s.pool()).isEqualTo(new ResourceSliceSpec.ResourcePool("node-1", 0, 1));
    assertThat(s.nodeName()).contains("node-1");
    assertThat(s.nodeSelector()).isEmpty();
    assertThat(s.allNodes()).isFalse();
    assertThat(s.perDeviceNodeSelection()).isFalse();
    assertThat(s.devices()).containsExactly(plain(0));
    assertThat(s.sharedCounters()).isEmpty();
  }

  @Test
  void anEmptyPoolIsOneEmptySlice() {
    List<ResourceSliceSpec> specs = layout(List.of());
    assertThat(specs).hasSize(1);
    assertThat(specs.get(0).devices()).isEmpty();
    assertThat(specs.get(0).pool().resourceSliceCount()).isEqualTo(1);
  }

  @Test
  void aThousandPlainDevicesMakeEightSlicesOf128AndTheRest() {
    List<ResourceSliceSpec> specs = layout(plainDevices(1000));
    // 7 * 128 = 896, 1000 - 896 = 104.
    assertThat(sizes(specs)).containsExactly(128, 128, 128, 128, 128, 128, 128, 104);
    assertThat(specs).allSatisfy(s -> assertThat(s.pool().resourceSliceCount()).isEqualTo(8));
    List<String> all = specs.stream().flatMap(s -> names(s).stream()).toList();
    assertThat(all).isEqualTo(plainDevices(1000).stream().map(Device::name).toList());
  }

  @Test
  void slicesWithATaintedDeviceHoldAtMost64() {
    List<Device> devices = new ArrayList<>(plainDevices(300));
    devices.set(5, tainted(5));
    devices.set(290, tainted(290));
    List<ResourceSliceSpec> specs = layout(devices);
    // Blocks of 64: [0,64) tainted, [64,128), [128,192)+[192,256) plain, [256,300) tainted.
    assertThat(sizes(specs)).containsExactly(64, 64, 128, 44);
    for (ResourceSliceSpec s : specs) {
      if (s.devices().stream().anyMatch(Device::usesAdvancedFeatures)) {
        assertThat(s.devices()).hasSizeLessThanOrEqualTo(64);
      }
      assertThat(s.devices()).hasSizeLessThanOrEqualTo(128);
    }
  }

  @Test
  void listAttributesAlsoLimitTo64() {
    List<Device> devices = new ArrayList<>(plainDevices(128));
    devices.set(
        100,
        plain(100).toBuilder().attribute("cores", DeviceAttribute.ofInts(List.of(0L, 1L))).build());
    assertThat(sizes(layout(devices))).containsExactly(64, 64);
  }

  @Test
  void skipNodeOperationsGoOnEverySliceAndPartitionTypeOnlyWhereDevicesConsumeCounters() {
    // 64 plain devices, then 1 that consumes counters: two device slices after the counter set's.
    List<Device> devices = new java.util.ArrayList<>();
    IntStream.range(0, 64).forEach(i -> devices.add(plain(i)));
    devices.add(
        plain(64).toBuilder()
            .attribute("profile", "1g")
            .consumesCounters(
                DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(Quantity.of(1)))))
            .build());
    Pool pool =
        Pool.builder("node-1")
            .devices(devices)
            .counterSets(
                List.of(CounterSet.of("gpu-0", Map.of("memory", Counter.of(Quantity.of(8))))))
            .partitionTypeAttribute(DRIVER + "/profile")
            .skipNodeOperations(
                SkipNodeOperation.NODE_UNPREPARE_RESOURCES,
                SkipNodeOperation.NODE_PREPARE_RESOURCES)
            .build();
    List<ResourceSliceSpec> specs = SliceLayout.layout(DRIVER, pool, NODE);
    assertThat(specs).hasSize(3);
    assertThat(specs)
        .allSatisfy(
            s ->
                assertThat(s.skipNodeOperations())
                    .containsExactly("NodePrepareResources", "NodeUnprepareResources"));
    assertThat(specs.get(0).partitionTypeAttribute()).isEmpty(); // the counter set
    assertThat(specs.get(1).partitionTypeAttribute()).isEmpty(); // plain devices only
    assertThat(specs.get(2).partitionTypeAttribute()).contains(DRIVER + "/profile");
  }

  @Test
  void counterSetsGoInTheirOwnSlicesFirstEightPerSlice() {
    List<CounterSet> sets =
        IntStream.range(0, 10)
            .mapToObj(
                i ->
                    CounterSet.of("gpu-" + i, Map.of("memory", Counter.of(Quantity.parse("80Gi")))))
            .toList();
    List<Device> devices =
        IntStream.range(0, 70)
            .mapToObj(
                i ->
                    plain(i).toBuilder()
                        .consumesCounters(
                            DeviceCounterConsumption.of(
                                "gpu-" + (i % 10),
                                Map.of("memory", Counter.of(Quantity.parse("10Gi")))))
                        .build())
            .toList();
    List<ResourceSliceSpec> specs =
        SliceLayout.layout(
            DRIVER, Pool.builder("node-1").devices(devices).counterSets(sets).build(), NODE);
    assertThat(specs).hasSize(4);
    assertThat(specs.get(0).sharedCounters()).hasSize(8);
    assertThat(specs.get(0).devices()).isEmpty();
    assertThat(specs.get(1).sharedCounters())
        .extracting(CounterSet::name)
        .containsExactly("gpu-8", "gpu-9");
    assertThat(specs.get(1).devices()).isEmpty();
    assertThat(specs.get(2).sharedCounters()).isEmpty();
    assertThat(specs.get(2).devices()).hasSize(64);
    assertThat(specs.get(3).devices()).hasSize(6);
    assertThat(specs).allSatisfy(s -> assertThat(s.pool().resourceSliceCount()).isEqualTo(4));
  }

  @Test
  void changingOneDeviceChangesExactlyOneSlice() {
    List<Device> before = plainDevices(1000);
    for (int changed : List.of(0, 127, 128, 500, 999)) {
      List<Device> after = new ArrayList<>(before);
      after.set(changed, before.get(changed).toBuilder().attribute("firmware", "2.0").build());
      assertThat(changedSlices(layout(before), layout(after)))
          .as("device %d", changed)
          .containsExactly(changed / 128);
    }
  }

  @Test
  void withDynamicTaintsATaintChangesExactlyOneSlice() {
    LayoutOptions options = NODE.withDynamicTaints(true);
    List<Device> before = plainDevices(1000);
    List<ResourceSliceSpec> a = SliceLayout.layout(DRIVER, Pool.of("node-1", before), options);
    assertThat(a).hasSize(16);
    List<Device> after = new ArrayList<>(before);
    after.set(700, tainted(700));
    List<ResourceSliceSpec> b = SliceLayout.layout(DRIVER, Pool.of("node-1", after), options);
    assertThat(changedSlices(a, b)).containsExactly(700 / 64);
  }

  @Test
  void withoutDynamicTaintsATaintSplitsOnlyItsOwnPair() {
    List<Device> before = plainDevices(1000);
    List<Device> after = new ArrayList<>(before);
    after.set(300, tainted(300));
    List<ResourceSliceSpec> a = layout(before);
    List<ResourceSliceSpec> b = layout(after);
    assertThat(b).hasSize(9);
    // Pair 2 ([256, 384)) splits into two slices; every other slice keeps its devices.
    assertThat(sizes(b)).containsExactly(128, 128, 64, 64, 128, 128, 128, 128, 104);
    for (int i = 0; i < 2; i++) {
      assertThat(names(b.get(i))).isEqualTo(names(a.get(i)));
    }
    for (int i = 3; i < 8; i++) {
      assertThat(names(b.get(i + 1))).isEqualTo(names(a.get(i)));
    }
  }

  @Test
  void appendingADeviceChangesOnlyTheLastSliceOrAddsOne() {
    for (int n : List.of(1, 63, 64, 100, 127, 128, 1000, 1023, 1024)) {
      List<Device> before = plainDevices(n);
      List<Device> after = plainDevices(n + 1);
      List<ResourceSliceSpec> a = layout(before);
      List<ResourceSliceSpec> b = layout(after);
      if (b.size() == a.size()) {
        // Only the last slice differs (contents; resourceSliceCount is unchanged).
        assertThat(changedSlices(a, b)).as("n=%d", n).containsExactly(a.size() - 1);
      } else {
        assertThat(b).as("n=%d", n).hasSize(a.size() + 1);
        for (int i = 0; i < a.size(); i++) {
          assertThat(names(b.get(i))).as("n=%d slice %d", n, i).isEqualTo(names(a.get(i)));
        }
        assertThat(names(b.get(a.size()))).containsExactly("dev-" + n);
      }
    }
  }

  @Test
  void removingADeviceLeavesEarlierSlicesAlone() {
    List<Device> before = plainDevices(1000);
    List<Device> after = new ArrayList<>(before);
    after.remove(600);
    List<ResourceSliceSpec> a = layout(before);
    List<ResourceSliceSpec> b = layout(after);
    assertThat(b).hasSize(8);
    assertThat(changedSlices(a, b)).containsExactly(4, 5, 6, 7);
    // Removing the last device touches only the last slice.
    assertThat(changedSlices(a, layout(plainDevices(999)))).containsExactly(7);
  }

  @Test
  void scopesMapToTheNodeSelectionFields() {
    NodeSelector sel = NodeSelector.forNodeName("node-7");
    ResourceSliceSpec all =
        SliceLayout.layout(
                DRIVER,
                Pool.builder("net").devices(List.of(plain(0))).scope(PoolScope.allNodes()).build(),
                LayoutOptions.clusterWide())
            .get(0);
    assertThat(all.allNodes()).isTrue();
    assertThat(all.nodeName()).isEmpty();
    ResourceSliceSpec bySelector =
        SliceLayout.layout(
                DRIVER,
                Pool.builder("net")
                    .devices(List.of(plain(0)))
                    .scope(PoolScope.nodeSelector(sel))
                    .build(),
                LayoutOptions.clusterWide())
            .get(0);
    assertThat(bySelector.nodeSelector()).contains(sel);
    assertThat(bySelector.allNodes()).isFalse();
    ResourceSliceSpec perDevice =
        SliceLayout.layout(
                DRIVER,
                Pool.builder("net")
                    .devices(List.of(plain(0).toBuilder().nodeName("node-1").build()))
                    .scope(PoolScope.perDevice())
                    .build(),
                NODE)
            .get(0);
    assertThat(perDevice.perDeviceNodeSelection()).isTrue();
    assertThat(perDevice.nodeName()).isEmpty();
    assertThat(perDevice.devices().get(0).nodeName()).contains("node-1");
  }

  @Test
  void aNodeLocalPoolNeedsANodeName() {
    assertThatThrownBy(
            () ->
                SliceLayout.layout(
                    DRIVER, Pool.of("node-1", List.of(plain(0))), LayoutOptions.clusterWide()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "pool \"node-1\" is node-local (PoolScope.node()) but the layout options name no node");
  }

  @Test
  void theLayoutIsDeterministic() {
    List<Device> devices = new ArrayList<>(plainDevices(500));
    devices.set(3, tainted(3));
    assertThat(layout(devices)).isEqualTo(layout(List.copyOf(devices)));
    assertThat(layout(devices).get(0).partitionTypeAttribute()).isEqualTo(Optional.empty());
  }
}
