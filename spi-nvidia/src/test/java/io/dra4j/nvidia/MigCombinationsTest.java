package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.internal.slices.LayoutOptions;
import io.dra4j.runtime.internal.slices.SliceLayout;
import io.dra4j.testkit.allocator.AllocationOutcome;
import io.dra4j.testkit.allocator.Allocator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why spi-nvidia publishes no compatibility groups (KEP-5963) for partitionable MIG: the counters
 * alone already let the scheduler (here the test kit's allocator, which applies counters as it
 * does) allocate the MIG layouts an A100-like GPU supports and refuse those it does not, so every
 * impossible combination fails at allocation, not at prepare.
 */
class MigCombinationsTest {
  static final String DRIVER = "gpu.nvidia.com";
  static final String NODE = "node-a";

  @TempDir Path tmp;
  FakeNvml fake;
  List<ResourceSlice> slices;

  @BeforeEach
  void publish() throws Exception {
    fake = FakeNvml.current();
    fake.configure(tmp, "gpu.0.mig=1");
    Inventory inv;
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      inv = p.discover(fake.context(tmp, Map.of("mig-mode", "partitionable")));
    }
    slices = new ArrayList<>();
    for (Pool pool : inv.pools()) {
      for (ResourceSliceSpec spec : SliceLayout.layout(DRIVER, pool, LayoutOptions.node(NODE))) {
        slices.add(
            ResourceSlice.of(
                ObjectMeta.named("", "s" + slices.size()),
                spec.withPool(
                    new ResourceSliceSpec.ResourcePool(
                        spec.pool().name(), 1, spec.pool().resourceSliceCount()))));
      }
    }
  }

  @AfterEach
  void nvmlShutDown() {
    assertThat(fake.initCount()).isZero();
  }

  /** One request per profile (the whole GPU is profile "gpu"), all in one claim. */
  private AllocationOutcome allocate(String... profiles) {
    List<DeviceRequest> requests = new ArrayList<>();
    for (int i = 0; i < profiles.length; i++) {
      String selector =
          profiles[i].equals("gpu")
              ? "device.attributes['gpu.nvidia.com'].type == 'gpu'"
              : "device.attributes['gpu.nvidia.com'].type == 'mig' &&"
                  + " device.attributes['gpu.nvidia.com'].profile == '"
                  + profiles[i]
                  + "'";
      requests.add(
          DeviceRequest.exactly(
              "r" + i,
              ExactDeviceRequest.of("gpu", 1)
                  .withSelectors(List.of(DeviceSelector.cel(selector)))));
    }
    ResourceClaim claim =
        ResourceClaim.of(
            ObjectMeta.named("default", "c"),
            ResourceClaimSpec.of(
                new io.dra4j.kube.DeviceClaim(requests, List.of(), List.of(), null)));
    DeviceClass gpu =
        DeviceClass.of(
            ObjectMeta.named("", "gpu"),
            DeviceClass.Spec.of(List.of(DeviceSelector.cel("device.driver == '" + DRIVER + "'"))));
    return new Allocator().allocate(slices, List.of(gpu), claim, NODE, Set.of());
  }

  @Test
  void layoutsTheGpuSupportsAreAllocated() {
    assertThat(allocate("4g.40gb", "3g.40gb").isAllocated()).isTrue();
    assertThat(allocate("3g.40gb", "3g.40gb").isAllocated()).isTrue();
    assertThat(
            allocate("1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb")
                .isAllocated())
        .isTrue();
    assertThat(allocate("1g.10gb+me", "1g.10gb", "2g.20gb", "3g.40gb").isAllocated()).isTrue();
  }

  @Test
  void layoutsItRefusesAreRefusedByTheCountersAlone() {
    // More memory slices than the GPU has, two media-extension instances (one set of media
    // engines), a 7g with anything, and the whole GPU next to any MIG device.
    assertThat(allocate("4g.40gb", "4g.40gb").isAllocated()).isFalse();
    assertThat(allocate("3g.40gb", "3g.40gb", "1g.10gb").isAllocated()).isFalse();
    assertThat(allocate("1g.10gb+me", "1g.10gb+me").isAllocated()).isFalse();
    assertThat(allocate("7g.80gb", "1g.10gb").isAllocated()).isFalse();
    assertThat(allocate("gpu", "1g.10gb").isAllocated()).isFalse();
    // Each alone fits: the refusals above are about the combination.
    assertThat(allocate("gpu").isAllocated()).isTrue();
    assertThat(allocate("7g.80gb").isAllocated()).isTrue();
    assertThat(allocate("1g.10gb+me").isAllocated()).isTrue();
  }
}
