package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Fixtures.DRIVER;
import static io.dra4j.testkit.allocator.Fixtures.NODE;
import static io.dra4j.testkit.allocator.Fixtures.claim;
import static io.dra4j.testkit.allocator.Fixtures.deviceClass;
import static io.dra4j.testkit.allocator.Fixtures.exact;
import static io.dra4j.testkit.allocator.Fixtures.gpu;
import static io.dra4j.testkit.allocator.Fixtures.gpuClass;
import static io.dra4j.testkit.allocator.Fixtures.q;
import static io.dra4j.testkit.allocator.Fixtures.request;
import static io.dra4j.testkit.allocator.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceConstraint;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Pool completeness and generations, shared counters, matchAttribute and distinctAttribute. */
class PoolsCountersConstraintsTest {
  private final Allocator allocator = new Allocator();
  private final List<DeviceClass> classes = List.of(gpuClass());

  private List<String> allocateDevices(List<ResourceSlice> slices, ResourceClaim claim) {
    return allocator
        .allocate(slices, classes, claim, NODE, Set.of())
        .orElseThrow()
        .devices()
        .results()
        .stream()
        .map(DeviceRequestAllocationResult::device)
        .collect(Collectors.toList());
  }

  @Test
  void anIncompletePoolIsIgnoredAndSaysSo() {
    ResourceSlice oneOfTwo = slice("s-1").pool(NODE, 1, 2).devices(gpu("gpu-0", "80Gi")).build();
    ResourceSlice complete =
        slice("other").pool("complete", 1, 1).devices(gpu("gpu-9", "80Gi")).build();

    assertThat(
            allocateDevices(
                List.of(oneOfTwo, complete), claim("c", request("gpu", exact(DRIVER, 1)))))
        .containsExactly("gpu-9");

    AllocationOutcome outcome =
        allocator.allocate(
            List.of(oneOfTwo),
            classes,
            claim("c", request("gpu", exact(DRIVER, 1))),
            NODE,
            Set.of());
    assertThat(outcome.describe())
        .contains("no device is published for node \"node-1\"")
        .contains(
            "pool gpu.example.com/node-1 ignored: incomplete: 1 of 2 slices of generation 1"
                + " published");

    // "All" refuses to run while a pool is incomplete: it could not know what "all" is.
    AllocationOutcome all =
        allocator.allocate(
            List.of(oneOfTwo, complete),
            classes,
            claim("c", request("gpu", Fixtures.all(DRIVER))),
            NODE,
            Set.of());
    assertThat(all.describe()).contains("asks for all matching devices, but pool");
  }

  @Test
  void onlyTheNewestGenerationCounts() {
    ResourceSlice old = slice("s-old").pool(NODE, 1, 1).devices(gpu("gpu-old", "80Gi")).build();
    ResourceSlice current = slice("s-new").pool(NODE, 2, 1).devices(gpu("gpu-new", "80Gi")).build();

    assertThat(allocateDevices(List.of(old, current), claim("c", request("gpu", exact(DRIVER, 1)))))
        .containsExactly("gpu-new");
    assertThat(
            allocator
                .allocate(
                    List.of(current, old),
                    classes,
                    claim("c", request("gpu", exact(DRIVER, 2))),
                    NODE,
                    Set.of())
                .isAllocated())
        .isFalse();

    // A newer generation that has nothing for this node makes the old one obsolete.
    ResourceSlice newerElsewhere =
        slice("s-moved").pool(NODE, 3, 1).node("node-2").devices(gpu("gpu-x", "80Gi")).build();
    AllocationOutcome outcome =
        allocator.allocate(
            List.of(current, newerElsewhere),
            classes,
            claim("c", request("gpu", exact(DRIVER, 1))),
            NODE,
            Set.of());
    assertThat(outcome.describe()).contains("is being replaced by generation 3");
  }

  @Test
  void duplicateDeviceNamesMakeThePoolInvalid() {
    ResourceSlice a = slice("a").pool(NODE, 1, 2).devices(gpu("gpu-0", "80Gi")).build();
    ResourceSlice b = slice("b").pool(NODE, 1, 2).devices(gpu("gpu-0", "80Gi")).build();
    AllocationOutcome outcome =
        allocator.allocate(
            List.of(a, b), classes, claim("c", request("gpu", exact(DRIVER, 1))), NODE, Set.of());
    assertThat(outcome.describe()).contains("invalid: duplicate device name \"gpu-0\"");
  }

  private static Device partition(String name, String memory, long slices) {
    return Device.builder(name)
        .attribute("type", "partition")
        .consumesCounters(
            DeviceCounterConsumption.of(
                "gpu-0-counters",
                Map.of(
                    "memory", Counter.of(q(memory)),
                    "slices", Counter.of(io.dra4j.api.device.Quantity.of(slices)))))
        .build();
  }

  /** A partitionable GPU as 1.35+ publishes it: counters in their own slice of the pool. */
  private static List<ResourceSlice> partitionable() {
    ResourceSlice counters =
        slice("gpu-counters")
            .pool(NODE, 1, 2)
            .counters(
                CounterSet.of(
                    "gpu-0-counters",
                    Map.of(
                        "memory", Counter.of(q("80Gi")),
                        "slices", Counter.of(io.dra4j.api.device.Quantity.of(7)))))
            .build();
    ResourceSlice devices =
        slice("gpu-devices")
            .pool(NODE, 1, 2)
            .devices(
                partition("whole", "80Gi", 7),
                partition("half-0", "40Gi", 3),
                partition("half-1", "40Gi", 3),
                partition("seventh-0", "10Gi", 1))
            .build();
    return List.of(counters, devices);
  }

  @Test
  void partitionsFitOnlyWhileTheSharedCountersLast() {
    List<ResourceSlice> slices = partitionable();

    // The whole GPU consumes everything; nothing else fits with it.
    assertThat(allocateDevices(slices, claim("c", request("gpu", exact(DRIVER, 1)))))
        .containsExactly("whole");
    // Two devices: "whole" plus anything is too much, so the search backtracks to the halves.
    assertThat(allocateDevices(slices, claim("c", request("gpu", exact(DRIVER, 2)))))
        .containsExactly("half-0", "half-1");
    // Three: 40+40+10 memory is 90Gi > 80Gi.
    AllocationOutcome three =
        allocator.allocate(
            slices, classes, claim("c", request("gpu", exact(DRIVER, 3))), NODE, Set.of());
    assertThat(three.isAllocated()).isFalse();
    assertThat(three.describe())
        .contains("no combination of devices satisfies all of them")
        .doesNotContain("request \"gpu\": needs");
  }

  @Test
  void countersOfDevicesAllocatedToOtherClaimsAreGone() {
    List<ResourceSlice> slices = partitionable();
    Set<DeviceKey> inUse = Set.of(new DeviceKey(DRIVER, NODE, "half-0"));

    AllocationOutcome whole =
        allocator.allocate(
            slices, classes, claim("c", request("gpu", exact(DRIVER, 1))), NODE, inUse);
    // half-0 is taken: whole (80Gi) no longer fits; half-1 (40Gi) does.
    assertThat(whole.orElseThrow().devices().results().get(0).device()).isEqualTo("half-1");

    AllocationOutcome onlyWhole =
        allocator.allocate(
            slices,
            classes,
            claim("c", request("gpu", exact(DRIVER, 1))),
            NODE,
            Set.of(
                new DeviceKey(DRIVER, NODE, "half-0"),
                new DeviceKey(DRIVER, NODE, "half-1"),
                new DeviceKey(DRIVER, NODE, "seventh-0")));
    // Everything else is taken, and 40+40+10 of the 80Gi are drawn: whole cannot fit.
    assertThat(onlyWhole.describe())
        .contains("3 in use by another claim")
        .contains("1 without enough shared counters")
        .contains(
            "whole: counter \"memory\" of counter set \"gpu-0-counters\" has -10Gi left, the"
                + " device needs 80Gi");
  }

  @Test
  void aDeviceReferringToAMissingCounterSetMakesThePoolInvalid() {
    ResourceSlice devices =
        slice("gpu-devices").pool(NODE, 1, 1).devices(partition("half-0", "40Gi", 3)).build();
    AllocationOutcome outcome =
        allocator.allocate(
            List.of(devices),
            classes,
            claim("c", request("gpu", exact(DRIVER, 1))),
            NODE,
            Set.of());
    assertThat(outcome.describe())
        .contains("consumes counters of counter set \"gpu-0-counters\", which the pool does not");
  }

  @Test
  void matchAttributeBacktracksToDevicesThatShareTheValue() {
    ResourceSlice slice =
        slice("s")
            .devices(
                Device.builder("gpu-0")
                    .attribute("type", "gpu")
                    .attribute("resource.kubernetes.io/pcieRoot", "pci0000:00")
                    .build(),
                Device.builder("gpu-1")
                    .attribute("type", "gpu")
                    .attribute("resource.kubernetes.io/pcieRoot", "pci0000:40")
                    .build(),
                Device.builder("nic-0")
                    .attribute("type", "nic")
                    .attribute("resource.kubernetes.io/pcieRoot", "pci0000:40")
                    .build())
            .build();
    List<DeviceClass> twoClasses =
        List.of(
            deviceClass("gpu", "device.attributes['gpu.example.com'].type == 'gpu'"),
            deviceClass("nic", "device.attributes['gpu.example.com'].type == 'nic'"));
    ResourceClaim claim =
        claim(
            "c",
            List.of(request("gpu", exact("gpu", 1)), request("nic", exact("nic", 1))),
            List.of(
                DeviceConstraint.matchAttribute(
                    List.of("gpu", "nic"), "resource.kubernetes.io/pcieRoot")),
            List.of());

    List<String> chosen =
        allocator
            .allocate(List.of(slice), twoClasses, claim, NODE, Set.of())
            .orElseThrow()
            .devices()
            .results()
            .stream()
            .map(DeviceRequestAllocationResult::device)
            .collect(Collectors.toList());
    assertThat(chosen).containsExactly("gpu-1", "nic-0");

    // Without a device on the same root the claim fails as a whole, naming the constraint.
    AllocationOutcome none =
        allocator.allocate(
            List.of(slice), twoClasses, claim, NODE, Set.of(new DeviceKey(DRIVER, NODE, "gpu-1")));
    assertThat(none.describe())
        .contains("no combination of devices satisfies all of them together")
        .contains("matchAttribute resource.kubernetes.io/pcieRoot");
  }

  @Test
  void matchAttributeOnListsNeedsACommonValueAndDriverDomainNamesMayBeUnqualified() {
    ResourceSlice slice =
        slice("s")
            .devices(
                Device.builder("cpu-a")
                    .attribute("numa", DeviceAttribute.ofInts(List.of(0L, 1L)))
                    .build(),
                Device.builder("cpu-b")
                    .attribute("numa", DeviceAttribute.ofInts(List.of(2L)))
                    .build(),
                Device.builder("cpu-c").attribute("numa", DeviceAttribute.of(1L)).build())
            .build();
    ResourceClaim claim =
        claim(
            "c",
            List.of(request("cpus", exact(DRIVER, 2))),
            List.of(DeviceConstraint.matchAttribute(List.of(), DRIVER + "/numa")),
            List.of());

    assertThat(allocateDevices(List.of(slice), claim)).containsExactly("cpu-a", "cpu-c");
  }

  @Test
  void distinctAttributeNeedsDisjointValues() {
    ResourceSlice slice =
        slice("s")
            .devices(
                Device.builder("a").attribute("numa", 0L).build(),
                Device.builder("b").attribute("numa", 0L).build(),
                Device.builder("c").attribute("numa", 1L).build())
            .build();
    ResourceClaim claim =
        claim(
            "c",
            List.of(request("gpus", exact(DRIVER, 2))),
            List.of(
                new DeviceConstraint(
                    List.of("gpus"), Optional.empty(), Optional.of(DRIVER + "/numa"), null)),
            List.of());

    assertThat(allocateDevices(List.of(slice), claim)).containsExactly("a", "c");
  }

  @Test
  void theSearchBudgetStopsHopelessSearches() {
    Device[] devices = new Device[20];
    for (int i = 0; i < devices.length; i++) {
      devices[i] = Device.builder("d" + i).build();
    }
    // 4 + 17 devices out of 20: every combination for the first request is tried in vain.
    ResourceClaim claim =
        claim("c", request("a", exact(DRIVER, 4)), request("b", exact(DRIVER, 17)));
    Allocator small = new Allocator(() -> UUID.randomUUID().toString(), 1000);

    AllocationOutcome outcome =
        small.allocate(
            List.of(slice("s").devices(devices).build()), classes, claim, NODE, Set.of());
    assertThat(outcome.describe()).contains("gave up after 1000 placement attempts");
  }
}
