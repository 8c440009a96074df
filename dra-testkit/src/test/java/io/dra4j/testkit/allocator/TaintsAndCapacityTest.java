package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Fixtures.DRIVER;
import static io.dra4j.testkit.allocator.Fixtures.NODE;
import static io.dra4j.testkit.allocator.Fixtures.claim;
import static io.dra4j.testkit.allocator.Fixtures.exact;
import static io.dra4j.testkit.allocator.Fixtures.gpuClass;
import static io.dra4j.testkit.allocator.Fixtures.nodeSlice;
import static io.dra4j.testkit.allocator.Fixtures.q;
import static io.dra4j.testkit.allocator.Fixtures.request;
import static io.dra4j.testkit.allocator.Fixtures.withCapacity;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.kube.ResourceSlice;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Taints and tolerations; devices shared by several allocations (consumable capacity). */
class TaintsAndCapacityTest {
  private final Allocator allocator = new Allocator();
  private final List<DeviceClass> classes = List.of(gpuClass());

  private static Device tainted(String name, String key, TaintEffect effect) {
    return Device.builder(name).taint(DeviceTaint.of(key, "bad", effect)).build();
  }

  private static DeviceToleration toleration(String key, String operator, TaintEffect effect) {
    DeviceToleration.Builder b =
        DeviceToleration.builder().key(key).operator(operator).value("bad");
    return (effect == null ? b : b.effect(effect)).build();
  }

  @Test
  void noScheduleAndNoExecuteTaintsBlockUnlessToleratedAndNoneNeverBlocks() {
    ResourceSlice slice =
        nodeSlice(
            "s",
            tainted("no-schedule", "gpu.example.com/ecc", TaintEffect.NO_SCHEDULE),
            tainted("no-execute", "gpu.example.com/xid", TaintEffect.NO_EXECUTE),
            tainted("informational", "gpu.example.com/temp", TaintEffect.NONE));

    AllocationResult plain =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim("c", request("gpu", exact(DRIVER, 1))),
                NODE,
                Set.of())
            .orElseThrow();
    assertThat(plain.devices().results().get(0).device()).isEqualTo("informational");

    AllocationOutcome blocked =
        allocator.allocate(
            List.of(slice), classes, claim("c", request("gpu", exact(DRIVER, 2))), NODE, Set.of());
    assertThat(blocked.describe())
        .contains("2 tainted and not tolerated")
        .contains("has taint gpu.example.com/ecc=bad:NoSchedule");

    DeviceToleration ecc = toleration("gpu.example.com/ecc", "Equal", TaintEffect.NO_SCHEDULE);
    AllocationResult tolerated =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim("c", request("gpu", Fixtures.tolerating(DRIVER, ecc))),
                NODE,
                Set.of())
            .orElseThrow();
    DeviceRequestAllocationResult r = tolerated.devices().results().get(0);
    assertThat(r.device()).isEqualTo("no-schedule");
    assertThat(r.tolerations()).containsExactly(ecc);

    // A toleration for NoSchedule only does not cover NoExecute.
    DeviceToleration xidNoSchedule =
        toleration("gpu.example.com/xid", "Exists", TaintEffect.NO_SCHEDULE);
    AllocationResult wrongEffect =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim("c", request("gpu", Fixtures.tolerating(DRIVER, xidNoSchedule))),
                NODE,
                Set.of())
            .orElseThrow();
    assertThat(wrongEffect.devices().results().get(0).device()).isEqualTo("informational");

    // Empty key with Exists tolerates everything.
    DeviceToleration everything = toleration("", "Exists", null);
    AllocationResult all =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim(
                    "c",
                    request(
                        "gpu",
                        new io.dra4j.kube.ExactDeviceRequest(
                            DRIVER,
                            null,
                            null,
                            3,
                            Optional.empty(),
                            List.of(everything),
                            Optional.empty(),
                            null))),
                NODE,
                Set.of())
            .orElseThrow();
    assertThat(all.devices().results()).hasSize(3);
  }

  private static Device shared(String name, DeviceCapacity memory) {
    return Device.builder(name)
        .allowMultipleAllocations(true)
        .capacity("memory", memory)
        .capacity("cores", DeviceCapacity.of(Quantity.of(8)))
        .build();
  }

  private static DeviceCapacity ranged(String total, String def, String min, String step) {
    return DeviceCapacity.of(q(total))
        .withRequestPolicy(
            CapacityRequestPolicy.builder()
                .defaultValue(q(def))
                .validRange(CapacityRequestPolicy.Range.of(q(min)).withStep(q(step)))
                .build());
  }

  @Test
  void sharedDevicesGetAShareIdAndConsumedCapacityRoundedUpByTheStep() {
    AtomicInteger ids = new AtomicInteger();
    Allocator predictable =
        new Allocator(
            () -> String.format("00000000-0000-4000-8000-%012d", ids.incrementAndGet()),
            Allocator.DEFAULT_SEARCH_BUDGET);
    ResourceSlice slice = nodeSlice("s", shared("gpu-0", ranged("80Gi", "8Gi", "4Gi", "2Gi")));
    ResourceClaim claim =
        claim("c", request("gpu", withCapacity(DRIVER, Map.of("memory", q("9Gi")))));

    DeviceRequestAllocationResult r =
        predictable
            .allocate(List.of(slice), classes, claim, NODE, Set.of())
            .orElseThrow()
            .devices()
            .results()
            .get(0);

    assertThat(r.shareID()).contains("00000000-0000-4000-8000-000000000001");
    // 9Gi on min 4Gi, step 2Gi: 4, 6, 8, 10 -> 10Gi. Cores are not requested and have no
    // policy: the whole capacity.
    assertThat(r.consumedCapacity()).containsOnlyKeys("memory", "cores");
    assertThat(r.consumedCapacity().get("memory")).isEqualTo(q("10Gi"));
    assertThat(r.consumedCapacity().get("memory").toString()).isEqualTo("10Gi");
    assertThat(r.consumedCapacity().get("cores")).isEqualTo(Quantity.of(8));

    // Below the minimum: the minimum. Not requested: the default.
    assertThat(Capacities.consumption(Optional.of(q("1Gi")), ranged("80Gi", "8Gi", "4Gi", "2Gi")))
        .isEqualTo(q("4Gi"));
    assertThat(Capacities.consumption(Optional.empty(), ranged("80Gi", "8Gi", "4Gi", "2Gi")))
        .isEqualTo(q("8Gi"));
  }

  @Test
  void randomShareIdsAreLowerCaseUuids() {
    ResourceSlice slice = nodeSlice("s", shared("gpu-0", ranged("80Gi", "8Gi", "4Gi", "2Gi")));
    String id =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim("c", request("gpu", exact(DRIVER, 1))),
                NODE,
                Set.of())
            .orElseThrow()
            .devices()
            .results()
            .get(0)
            .shareID()
            .orElseThrow();
    assertThat(id).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  }

  @Test
  void validValuesRoundToTheSmallestValueThatIsLargeEnough() {
    DeviceCapacity discrete =
        DeviceCapacity.of(q("16"))
            .withRequestPolicy(
                CapacityRequestPolicy.validValues(q("1"), List.of(q("1"), q("2"), q("4"), q("8"))));
    assertThat(Capacities.consumption(Optional.of(q("3")), discrete)).isEqualTo(q("4"));
    assertThat(Capacities.consumption(Optional.of(q("8")), discrete)).isEqualTo(q("8"));

    // More than the largest valid value: the device does not fit.
    ResourceSlice slice =
        nodeSlice(
            "s",
            Device.builder("d").allowMultipleAllocations(true).capacity("slots", discrete).build());
    AllocationOutcome outcome =
        allocator.allocate(
            List.of(slice),
            classes,
            claim("c", request("gpu", withCapacity(DRIVER, Map.of("slots", q("9"))))),
            NODE,
            Set.of());
    assertThat(outcome.describe())
        .contains("1 without enough capacity")
        .contains("9 is not allowed by the device's request policy");
  }

  @Test
  void sharesAddUpAcrossClaimsAndWithinOneClaim() {
    ResourceSlice slice = nodeSlice("s", shared("gpu-0", ranged("80Gi", "8Gi", "4Gi", "2Gi")));
    ResourceClaim first =
        claim("first", request("gpu", withCapacity(DRIVER, Map.of("memory", q("70Gi")))));
    AllocationResult firstAllocation =
        allocator.allocate(List.of(slice), classes, first, NODE, Set.of()).orElseThrow();
    // Cores have no policy: one share takes all 8, so a second share cannot get any.
    ResourceClaim allocatedFirst =
        first.withStatus(new ResourceClaimStatus(Optional.of(firstAllocation), null, null, null));
    AllocatedState state = AllocatedState.fromClaims(List.of(allocatedFirst));
    assertThat(state.shared()).containsExactly(new DeviceKey(DRIVER, NODE, "gpu-0"));
    assertThat(state.consumedCapacity(new DeviceKey(DRIVER, NODE, "gpu-0")))
        .containsEntry(DRIVER + "/memory", q("70Gi"))
        .containsEntry(DRIVER + "/cores", Quantity.of(8));

    ResourceClaim second =
        claim(
            "second",
            request(
                "gpu", withCapacity(DRIVER, Map.of("memory", q("10Gi"), "cores", Quantity.of(0)))));
    AllocationOutcome outcome =
        allocator.allocate(List.of(slice), classes, second, Allocator.node(NODE), state);
    assertThat(outcome.isAllocated()).isTrue();
    assertThat(outcome.orElseThrow().devices().results().get(0).consumedCapacity())
        .containsEntry("memory", q("10Gi"))
        .containsEntry("cores", Quantity.of(0));

    ResourceClaim third =
        claim(
            "third",
            request(
                "gpu",
                withCapacity(DRIVER, Map.of(DRIVER + "/memory", q("12Gi"), "cores", q("0")))));
    AllocationOutcome full =
        allocator.allocate(List.of(slice), classes, third, Allocator.node(NODE), state);
    assertThat(full.describe())
        .contains("without enough capacity")
        .contains("12Gi requested, but only 10Gi of 80Gi left");

    // Within one claim two requests may share the device, each with its own share ID.
    AllocationResult two =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim(
                    "two",
                    request("a", withCapacity(DRIVER, Map.of("memory", q("8Gi"), "cores", q("4")))),
                    request(
                        "b", withCapacity(DRIVER, Map.of("memory", q("8Gi"), "cores", q("4"))))),
                NODE,
                Set.of())
            .orElseThrow();
    assertThat(two.devices().results())
        .extracting(DeviceRequestAllocationResult::device)
        .containsExactly("gpu-0", "gpu-0");
    assertThat(two.devices().results().get(0).shareID())
        .isNotEqualTo(two.devices().results().get(1).shareID());
  }

  @Test
  void aCapacityRequestOnAnExclusiveDeviceIsAMinimumAndAnUnknownCapacityDoesNotFit() {
    ResourceSlice slice =
        nodeSlice(
            "s",
            Device.builder("small").capacity("memory", q("20Gi")).build(),
            Device.builder("large").capacity("memory", q("80Gi")).build());

    DeviceRequestAllocationResult r =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim("c", request("gpu", withCapacity(DRIVER, Map.of("memory", q("40Gi"))))),
                NODE,
                Set.of())
            .orElseThrow()
            .devices()
            .results()
            .get(0);
    assertThat(r.device()).isEqualTo("large");
    assertThat(r.shareID()).isEmpty();
    assertThat(r.consumedCapacity()).isEmpty();

    AllocationOutcome unknown =
        allocator.allocate(
            List.of(slice),
            classes,
            claim("c", request("gpu", withCapacity(DRIVER, Map.of("bandwidth", q("1"))))),
            NODE,
            Set.of());
    assertThat(unknown.describe()).contains("has no capacity \"bandwidth\"");
  }
}
