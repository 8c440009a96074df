package io.dra4j.runtime.internal.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What to delete, update and create for one pool, given what exists and what is wanted. */
class SyncPlannerTest {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";
  static final String POOL = "node-1";

  static Device dev(int i) {
    return Device.builder("dev-" + i).attribute("index", i).build();
  }

  static List<Device> devices(int n) {
    return IntStream.range(0, n).mapToObj(SyncPlannerTest::dev).toList();
  }

  /** The layout of {@code n} plain devices: 128 per slice. */
  static List<ResourceSliceSpec> desired(List<Device> devices) {
    return SliceLayout.layout(DRIVER, Pool.of(POOL, devices), LayoutOptions.node(NODE));
  }

  /** An existing slice holding {@code spec} at {@code generation}, named for index {@code i}. */
  static ResourceSlice existing(int i, int count, ResourceSliceSpec spec, long generation) {
    String name = SliceNames.generateName(i, count, DRIVER, NODE) + "x" + i + "abc";
    return slice(name, spec, generation, count);
  }

  static ResourceSlice slice(String name, ResourceSliceSpec spec, long generation, int count) {
    return ResourceSlice.of(
        ObjectMeta.named("", name).withResourceVersion("7"),
        spec.withPool(new ResourceSliceSpec.ResourcePool(POOL, generation, count)));
  }

  /** What the server would hold after publishing {@code desired} at {@code generation}. */
  static List<ResourceSlice> published(List<ResourceSliceSpec> desired, long generation) {
    List<ResourceSlice> out = new ArrayList<>();
    for (int i = 0; i < desired.size(); i++) {
      out.add(existing(i, desired.size(), desired.get(i), generation));
    }
    return out;
  }

  static List<String> names(List<ResourceSlice> slices) {
    return slices.stream().map(s -> s.metadata().name()).toList();
  }

  @Test
  void aNewPoolIsCreatedAtGenerationOneWithItsSliceCount() {
    List<ResourceSliceSpec> want = desired(devices(300)); // 128 + 128 + 44
    SyncPlan plan = SyncPlanner.plan(POOL, want, List.of(), 0);
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.updates()).isEmpty();
    assertThat(plan.creates()).extracting(SyncPlan.Create::index).containsExactly(0, 1, 2);
    assertThat(plan.generation()).isEqualTo(1);
    for (SyncPlan.Create c : plan.creates()) {
      assertThat(c.spec().pool()).isEqualTo(new ResourceSliceSpec.ResourcePool(POOL, 1, 3));
      assertThat(c.sliceCount()).isEqualTo(3);
      assertThat(c.spec().devices()).isEqualTo(want.get(c.index()).devices());
    }
  }

  @Test
  void aRecreatedPoolContinuesAfterTheGenerationItHadBefore() {
    SyncPlan plan = SyncPlanner.plan(POOL, desired(devices(3)), List.of(), 7);
    assertThat(plan.generation()).isEqualTo(8);
    assertThat(plan.creates().get(0).spec().pool().generation()).isEqualTo(8);
  }

  @Test
  void anUnchangedPoolNeedsNoWrite() {
    List<ResourceSliceSpec> want = desired(devices(1000));
    SyncPlan plan = SyncPlanner.plan(POOL, want, published(want, 4), 4);
    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.generation()).isEqualTo(4);
  }

  @Test
  void oneChangedSliceIsOneUpdateWithoutGenerationBump() {
    List<Device> before = devices(1000);
    List<ResourceSlice> existing = published(desired(before), 4);
    List<Device> after = new ArrayList<>(before);
    after.set(300, Device.builder("dev-300").attribute("index", 3000).build());
    SyncPlan plan = SyncPlanner.plan(POOL, desired(after), existing, 4);
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.creates()).isEmpty();
    assertThat(plan.updates()).hasSize(1);
    SyncPlan.Update u = plan.updates().get(0);
    assertThat(u.index()).isEqualTo(2); // devices 256..383
    assertThat(u.existing()).isSameAs(existing.get(2));
    assertThat(u.spec().pool()).isEqualTo(new ResourceSliceSpec.ResourcePool(POOL, 4, 8));
    assertThat(u.spec().devices().get(300 - 256).attributes().get("index").javaValue())
        .isEqualTo(3000L);
    assertThat(plan.generation()).isEqualTo(4);
  }

  @Test
  void twoChangedSlicesBumpTheGenerationAndRewriteEverySlice() {
    List<Device> before = devices(1000);
    List<ResourceSlice> existing = published(desired(before), 4);
    List<Device> after = new ArrayList<>(before);
    after.set(0, Device.builder("dev-0").attribute("index", -1).build());
    after.set(999, Device.builder("dev-999").attribute("index", -1).build());
    SyncPlan plan = SyncPlanner.plan(POOL, desired(after), existing, 4);
    assertThat(plan.generation()).isEqualTo(5);
    assertThat(plan.updates()).hasSize(8);
    assertThat(plan.updates())
        .allSatisfy(u -> assertThat(u.spec().pool().generation()).isEqualTo(5));
    assertThat(plan.creates()).isEmpty();
    assertThat(plan.deletes()).isEmpty();
  }

  @Test
  void aNewSliceBumpsTheGenerationAndRewritesTheMatchedOnes() {
    List<Device> before = devices(128);
    List<ResourceSlice> existing = published(desired(before), 2);
    SyncPlan plan = SyncPlanner.plan(POOL, desired(devices(129)), existing, 2);
    assertThat(plan.generation()).isEqualTo(3);
    assertThat(plan.updates()).hasSize(1);
    assertThat(plan.updates().get(0).spec().pool())
        .isEqualTo(new ResourceSliceSpec.ResourcePool(POOL, 3, 2));
    assertThat(plan.creates()).extracting(SyncPlan.Create::index).containsExactly(1);
    assertThat(plan.creates().get(0).spec().devices())
        .extracting(Device::name)
        .containsExactly("dev-128");
  }

  @Test
  void shrinkingDeletesTheSlicesPastTheEndFirst() {
    List<ResourceSlice> existing = published(desired(devices(300)), 3);
    SyncPlan plan = SyncPlanner.plan(POOL, desired(devices(200)), existing, 3);
    assertThat(names(plan.deletes())).containsExactly(existing.get(2).metadata().name());
    // Both remaining slices change (resourceSliceCount 3 -> 2, and the second's devices).
    assertThat(plan.generation()).isEqualTo(4);
    assertThat(plan.updates()).extracting(SyncPlan.Update::index).containsExactly(0, 1);
    assertThat(plan.creates()).isEmpty();
  }

  @Test
  void shrinkingToOneSliceKeepsTheGenerationWhenOnlyThatSliceChanges() {
    List<ResourceSlice> existing = published(desired(devices(129)), 3);
    SyncPlan plan = SyncPlanner.plan(POOL, desired(devices(128)), existing, 3);
    assertThat(names(plan.deletes())).containsExactly(existing.get(1).metadata().name());
    assertThat(plan.updates()).hasSize(1);
    assertThat(plan.updates().get(0).spec().pool())
        .isEqualTo(new ResourceSliceSpec.ResourcePool(POOL, 3, 1));
    assertThat(plan.generation()).isEqualTo(3);
  }

  @Test
  void aRemovedPoolLosesEverySlice() {
    List<ResourceSlice> existing = published(desired(devices(300)), 3);
    SyncPlan plan = SyncPlanner.plan(POOL, List.of(), existing, 3);
    assertThat(names(plan.deletes())).containsExactlyElementsOf(names(existing));
    assertThat(plan.updates()).isEmpty();
    assertThat(plan.creates()).isEmpty();
  }

  @Test
  void ofTwoSlicesWithTheSameIndexTheOneWithTheRightContentStays() {
    List<ResourceSliceSpec> want = desired(devices(3));
    ResourceSlice stale =
        slice("00000-gpu.example.com-node-1-aaaaa", desired(devices(2)).get(0), 1, 1);
    ResourceSlice right = slice("00000-gpu.example.com-node-1-zzzzz", want.get(0), 1, 1);
    SyncPlan plan = SyncPlanner.plan(POOL, want, List.of(stale, right), 1);
    assertThat(plan.deletes()).containsExactly(stale);
    assertThat(plan.updates()).isEmpty();
    assertThat(plan.creates()).isEmpty();
    assertThat(plan.generation()).isEqualTo(1);
  }

  @Test
  void ofTwoSlicesWithTheSameIndexTheOneWithTheHigherGenerationStays() {
    List<ResourceSliceSpec> want = desired(devices(3));
    ResourceSlice old = slice("00000-gpu.example.com-node-1-aaaaa", want.get(0), 1, 1);
    ResourceSlice newer = slice("00000-gpu.example.com-node-1-zzzzz", want.get(0), 2, 1);
    SyncPlan plan = SyncPlanner.plan(POOL, want, List.of(old, newer), 0);
    assertThat(plan.deletes()).containsExactly(old);
    assertThat(plan.isEmpty()).isFalse();
    assertThat(plan.updates()).isEmpty();
    assertThat(plan.generation()).isEqualTo(2);
  }

  @Test
  void slicesWithoutAnIndexPrefixAreReplaced() {
    List<ResourceSliceSpec> want = desired(devices(3));
    // A name from the 1.34/1.35 scheme (<owner>-<driver>-<random>), same content.
    ResourceSlice legacy = slice("node-1-gpu.example.com-k8x2p", want.get(0), 1, 1);
    SyncPlan plan = SyncPlanner.plan(POOL, want, List.of(legacy), 1);
    assertThat(plan.deletes()).containsExactly(legacy);
    assertThat(plan.creates()).hasSize(1);
    assertThat(plan.generation()).isEqualTo(2);
  }

  @Test
  void aSliceLeftAtAnOlderGenerationIsUpdatedNotReplaced() {
    List<ResourceSliceSpec> want = desired(devices(200));
    ResourceSlice first = existing(0, 2, want.get(0), 5);
    ResourceSlice behind = existing(1, 2, want.get(1), 4); // a bump that was interrupted
    SyncPlan plan = SyncPlanner.plan(POOL, want, List.of(first, behind), 5);
    assertThat(plan.deletes()).isEmpty();
    assertThat(plan.creates()).isEmpty();
    assertThat(plan.updates()).extracting(SyncPlan.Update::existing).containsExactly(behind);
    assertThat(plan.generation()).isEqualTo(5);
    assertThat(plan.updates().get(0).spec().pool().generation()).isEqualTo(5);
  }

  @Test
  void theGenerationNeverGoesBackwards() {
    List<ResourceSliceSpec> want = desired(devices(3));
    // The server holds generation 2, but this publisher already wrote 6 (someone reset the pool).
    List<ResourceSlice> existing = published(want, 2);
    SyncPlan plan = SyncPlanner.plan(POOL, want, existing, 6);
    assertThat(plan.generation()).isEqualTo(6);
    assertThat(plan.updates()).hasSize(1);
    assertThat(plan.updates().get(0).spec().pool().generation()).isEqualTo(6);
  }

  @Test
  void aSliceWithAnotherNodeNameCannotBeUpdatedAndIsReplaced() {
    List<Device> devs = devices(3);
    List<ResourceSliceSpec> want =
        SliceLayout.layout(
            DRIVER,
            Pool.builder(POOL).devices(devs).scope(PoolScope.allNodes()).build(),
            LayoutOptions.node(NODE));
    ResourceSlice nodeLocal = existing(0, 1, desired(devs).get(0), 1);
    SyncPlan plan = SyncPlanner.plan(POOL, want, List.of(nodeLocal), 1);
    assertThat(plan.deletes()).containsExactly(nodeLocal);
    assertThat(plan.creates()).hasSize(1);
    assertThat(plan.creates().get(0).spec().allNodes()).isTrue();
    assertThat(plan.creates().get(0).spec().nodeName()).isEmpty();
  }

  @Test
  void serverTaintTimesAreNotAChangeAndAreKeptOnUpdate() {
    DeviceTaint sent = DeviceTaint.of(DRIVER + "/unhealthy", "", TaintEffect.NO_SCHEDULE);
    DeviceTaint stored =
        DeviceTaint.of(sent.key(), "", sent.effect()).withTimeAdded("2026-01-02T03:04:05Z");
    Device d0 = Device.builder("dev-0").taint(sent).build();
    Device d0Stored = Device.builder("dev-0").taint(stored).build();
    List<ResourceSliceSpec> want = desired(List.of(d0, dev(1)));
    ResourceSlice onServer = existing(0, 1, want.get(0).withDevices(List.of(d0Stored, dev(1))), 1);
    assertThat(SyncPlanner.plan(POOL, want, List.of(onServer), 1).isEmpty()).isTrue();

    // Another device changes: the update keeps the time the server gave the taint.
    List<ResourceSliceSpec> changed =
        desired(List.of(d0, Device.builder("dev-1").attribute("index", 9).build()));
    SyncPlan plan = SyncPlanner.plan(POOL, changed, List.of(onServer), 1);
    assertThat(plan.updates()).hasSize(1);
    assertThat(plan.updates().get(0).spec().devices().get(0).taints()).containsExactly(stored);
  }
}
