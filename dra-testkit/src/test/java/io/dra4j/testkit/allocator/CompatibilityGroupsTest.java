package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Fixtures.DRIVER;
import static io.dra4j.testkit.allocator.Fixtures.NODE;
import static io.dra4j.testkit.allocator.Fixtures.claim;
import static io.dra4j.testkit.allocator.Fixtures.device;
import static io.dra4j.testkit.allocator.Fixtures.exact;
import static io.dra4j.testkit.allocator.Fixtures.gpuClass;
import static io.dra4j.testkit.allocator.Fixtures.request;
import static io.dra4j.testkit.allocator.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Compatibility groups (KEP-5963) as the v1.37.2 scheduler's allocator applies them: devices on one
 * counter set go together only while their groups have one in common, a device without groups only
 * with others without, devices on different counter sets are never compared, and devices other
 * claims hold count with the groups their slice gives them now.
 */
class CompatibilityGroupsTest {
  private final Allocator allocator = new Allocator();
  private final List<DeviceClass> classes = List.of(gpuClass());

  /** One GPU's counter set with room for four quarter devices; the devices given. */
  private static List<ResourceSlice> gpu(Device... devices) {
    ResourceSlice counters =
        slice("counters")
            .pool(NODE, 1, 2)
            .counters(
                CounterSet.of("gpu-0", Map.of("slots", Counter.of(Quantity.of(4)))),
                CounterSet.of("gpu-1", Map.of("slots", Counter.of(Quantity.of(4)))))
            .build();
    return List.of(counters, slice("devices").pool(NODE, 1, 2).devices(devices).build());
  }

  /** A device drawing one slot of {@code set}, in the given groups. */
  private static Device quarter(String name, String set, String... groups) {
    return device(name)
        .consumesCounters(
            DeviceCounterConsumption.of(set, Map.of("slots", Counter.of(Quantity.of(1))))
                .withCompatibilityGroups(List.of(groups)))
        .build();
  }

  private AllocationOutcome allocate(List<ResourceSlice> slices, int count, Set<DeviceKey> inUse) {
    ResourceClaim c = claim("c", request("gpu", exact(DRIVER, count)));
    return allocator.allocate(slices, classes, c, NODE, inUse);
  }

  private static List<String> devices(AllocationOutcome outcome) {
    return outcome.orElseThrow().devices().results().stream()
        .map(DeviceRequestAllocationResult::device)
        .collect(Collectors.toList());
  }

  private static Set<DeviceKey> held(String... devices) {
    return Arrays.stream(devices)
        .map(d -> new DeviceKey(DRIVER, NODE, d))
        .collect(Collectors.toSet());
  }

  @Test
  void theSearchSkipsADeviceOfAnotherGroupOnTheSameCounterSet() {
    List<ResourceSlice> slices =
        gpu(
            quarter("mig-0", "gpu-0", "mig"),
            quarter("vgpu-0", "gpu-0", "vgpu"),
            quarter("mig-1", "gpu-0", "mig"));
    // Counters would allow mig-0 + vgpu-0; the groups do not, so the search backtracks.
    assertThat(devices(allocate(slices, 2, Set.of()))).containsExactly("mig-0", "mig-1");
    AllocationOutcome three = allocate(slices, 3, Set.of());
    assertThat(three.isAllocated()).isFalse();
    assertThat(three.describe()).contains("no combination of devices satisfies all of them");
  }

  @Test
  void devicesOtherClaimsHoldDecideWhatStillFits() {
    List<ResourceSlice> slices =
        gpu(quarter("mig-0", "gpu-0", "mig"), quarter("vgpu-0", "gpu-0", "vgpu"));
    AllocationOutcome outcome = allocate(slices, 1, held("mig-0"));
    assertThat(outcome.isAllocated()).isFalse();
    assertThat(outcome.describe())
        .contains("1 in use by another claim")
        .contains("1 with incompatible compatibility groups")
        .contains(
            "gpu.example.com/node-1/vgpu-0: counter set \"gpu-0\" is in use by devices of"
                + " compatibility groups [mig], the device is in [vgpu]");
    // Once the claim holding mig-0 is gone, vgpu-0 fits.
    assertThat(devices(allocate(slices, 1, Set.of()))).containsExactly("mig-0");
    assertThat(allocate(slices, 1, held("vgpu-0")).isAllocated()).isFalse();
  }

  @Test
  void theIntersectionNarrowsAsDevicesArePlaced() {
    // a+b, then b+c leaves {b}; a device only in a no longer fits, one in b does.
    List<ResourceSlice> slices =
        gpu(
            quarter("ab", "gpu-0", "a", "b"),
            quarter("bc", "gpu-0", "b", "c"),
            quarter("a", "gpu-0", "a"),
            quarter("b", "gpu-0", "b"));
    assertThat(devices(allocate(slices, 3, Set.of()))).containsExactly("ab", "bc", "b");
    assertThat(allocate(slices, 2, held("ab", "bc")).isAllocated()).isFalse();
    assertThat(devices(allocate(slices, 1, held("ab", "bc")))).containsExactly("b");
  }

  @Test
  void noGroupsPairsOnlyWithNoGroups() {
    List<ResourceSlice> slices =
        gpu(
            quarter("plain-0", "gpu-0"),
            quarter("mig-0", "gpu-0", "mig"),
            quarter("plain-1", "gpu-0"));
    assertThat(devices(allocate(slices, 2, Set.of()))).containsExactly("plain-0", "plain-1");
    AllocationOutcome next = allocate(slices, 1, held("plain-0"));
    assertThat(devices(next)).containsExactly("plain-1");
    assertThat(allocate(slices, 2, held("plain-0")).describe())
        .contains(
            "mig-0: counter set \"gpu-0\" is in use by devices without compatibility groups, the"
                + " device is in [mig]");
    assertThat(allocate(slices, 1, held("mig-0")).describe())
        .contains(
            "counter set \"gpu-0\" is in use by devices of compatibility groups [mig], the"
                + " device is in none");
  }

  @Test
  void devicesOnDifferentCounterSetsAreNeverCompared() {
    List<ResourceSlice> slices =
        gpu(quarter("gpu0-mig", "gpu-0", "mig"), quarter("gpu1-vgpu", "gpu-1", "vgpu"));
    assertThat(devices(allocate(slices, 2, Set.of()))).containsExactly("gpu0-mig", "gpu1-vgpu");
  }

  @Test
  void aFurtherShareOfADeviceInUseIsNotComparedAgain() {
    // A multi-allocatable device draws its counters (and joins its groups) once, for its first
    // share; the scheduler skips both checks for later shares. Here a slice update left an
    // incompatible device allocated next to it, which would refuse any new member.
    Device shared =
        device("shared")
            .allowMultipleAllocations(true)
            .capacity("memory", Quantity.parse("8Gi"))
            .consumesCounters(
                DeviceCounterConsumption.of("gpu-0", Map.of("slots", Counter.of(Quantity.of(1))))
                    .withCompatibilityGroups(List.of("vgpu")))
            .build();
    List<ResourceSlice> slices = gpu(shared, quarter("mig-0", "gpu-0", "mig"));
    ResourceClaim share =
        claim(
            "share",
            request("gpu", Fixtures.withCapacity(DRIVER, Map.of("memory", Quantity.parse("1Gi")))));
    AllocationOutcome first =
        allocator.allocate(slices, classes, share, Allocator.node(NODE), AllocatedState.empty());
    AllocatedState state = AllocatedState.of(held("mig-0")).plus(first.orElseThrow());
    AllocationOutcome second =
        allocator.allocate(slices, classes, share, Allocator.node(NODE), state);
    assertThat(devices(second)).containsExactly("shared");
  }
}
