package io.dra4j.runtime.internal.extendedresource;

import static io.dra4j.runtime.extendedresource.Classes.DRIVER;
import static io.dra4j.runtime.extendedresource.Classes.NODE;
import static io.dra4j.runtime.extendedresource.Classes.T1;
import static io.dra4j.runtime.extendedresource.Classes.T2;
import static io.dra4j.runtime.extendedresource.Classes.cls;
import static io.dra4j.runtime.extendedresource.Classes.node;
import static io.dra4j.runtime.extendedresource.Classes.ours;
import static io.dra4j.runtime.extendedresource.Classes.pools;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.cel.CelSelectors;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.extendedresource.GuardReport.Conflict;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.extendedresource.GuardReport.NameStatus;
import io.dra4j.runtime.extendedresource.GuardReport.Phase;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The guard's decisions as pure functions, with CEL evaluated for real. */
class GuardEvaluatorTest {

  final CelSelectors cel = new CelSelectors();
  final List<Pool> pools = pools(4);

  GuardEvaluator.Evaluation eval(List<DeviceClass> classes, Optional<Node> node) {
    return GuardEvaluator.evaluate(
        DRIVER, NODE, classes, GuardEvaluator.mapping(classes), node, pools, cel, false);
  }

  @Test
  void explicitNameAdvertisedByTheNodeIsAConflictWithTheSelectedDevices() {
    DeviceClass big =
        cls(
            "big",
            T1,
            Optional.of("example.com/gpu"),
            "device.driver == '" + DRIVER + "'",
            "device.attributes['" + DRIVER + "'].model == 'big'");
    var e = eval(List.of(big), Optional.of(node("example.com/gpu", "4")));
    assertThat(e.conflicts())
        .containsExactly(
            new Conflict(
                "example.com/gpu",
                List.of("big"),
                NODE,
                Optional.of(Quantity.of(4)),
                Optional.of(Quantity.of(4)),
                List.of(new DeviceRef(NODE, "gpu-1"), new DeviceRef(NODE, "gpu-3"))));
    assertThat(e.conflicts().get(0).describe())
        .contains(
            "example.com/gpu", "DeviceClass big", "node node-1", "capacity 4", "allocatable 4");
  }

  @Test
  void onlyANonZeroAllocatableIsAConflictAsOnlyItKeepsTheSchedulerOnTheDevicePlugin() {
    DeviceClass c = ours("gpu", "example.com/gpu");
    assertThat(eval(List.of(c), Optional.of(node("example.com/gpu", "0"))).conflicts()).isEmpty();
    assertThat(eval(List.of(c), Optional.of(node(Map.of(), Map.of()))).conflicts()).isEmpty();
    assertThat(eval(List.of(c), Optional.empty()).conflicts()).isEmpty();
    // A stopped plugin within the kubelet's endpointStopGracePeriod: capacity 2, allocatable 0.
    // The scheduler already delegates the name to DRA (fit.go shouldDelegateResourceToDRA).
    var stopped =
        eval(
            List.of(c),
            Optional.of(node(Map.of("example.com/gpu", "2"), Map.of("example.com/gpu", "0"))));
    assertThat(stopped.conflicts()).isEmpty();
    assertThat(stopped.names())
        .containsExactly(
            new NameStatus(
                "example.com/gpu",
                "gpu",
                Optional.of(Quantity.of(2)),
                Optional.of(Quantity.of(0)),
                Phase.PLUGIN_STOPPED,
                true));
    var capOnly = eval(List.of(c), Optional.of(node(Map.of("example.com/gpu", "2"), Map.of())));
    assertThat(capOnly.conflicts()).isEmpty();
    var allocOnly =
        eval(
            List.of(c),
            Optional.of(node(Map.of("example.com/gpu", "0"), Map.of("example.com/gpu", "1"))));
    assertThat(allocOnly.conflicts()).hasSize(1);
    assertThat(allocOnly.names())
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.phase()).isEqualTo(Phase.DEVICE_PLUGIN);
              assertThat(n.published()).isFalse();
            });
  }

  @Test
  void phasesFollowTheKubeletsNodeStatusThroughAMigration() {
    assertThat(GuardEvaluator.phase(q("4"), q("4"))).isEqualTo(Phase.DEVICE_PLUGIN);
    assertThat(GuardEvaluator.phase(q("4"), q("0"))).isEqualTo(Phase.PLUGIN_STOPPED);
    // After endpointStopGracePeriod the kubelet writes capacity 0 and keeps the name.
    assertThat(GuardEvaluator.phase(q("0"), q("0"))).isEqualTo(Phase.DRA);
    assertThat(GuardEvaluator.phase(Optional.empty(), Optional.empty())).isEqualTo(Phase.DRA);
    // Hand-written status with allocatable alone: the scheduler reads allocatable.
    assertThat(GuardEvaluator.phase(Optional.empty(), q("1"))).isEqualTo(Phase.DEVICE_PLUGIN);
  }

  @Test
  void namesListEveryNameOfTheNodeWhoseClassSelectsOurDevicesAndWhetherTheyArePublished() {
    DeviceClass c = ours("gpu", "example.com/gpu");
    DeviceClass other =
        cls("other", T1, Optional.of("other.com/x"), "device.driver == 'other.example.com'");
    Node n =
        node(
            Map.of("example.com/gpu", "0", "other.com/x", "3", "cpu", "8"),
            Map.of("example.com/gpu", "0", "other.com/x", "3", "cpu", "8"));
    assertThat(eval(List.of(c, other), Optional.of(n)).names())
        .extracting(NameStatus::resourceName, NameStatus::phase, NameStatus::published)
        .containsExactly(tuple("example.com/gpu", Phase.DRA, true));
    // Under warn the devices of a name in conflict are out too.
    var warn =
        GuardEvaluator.evaluate(
            DRIVER,
            NODE,
            List.of(c),
            GuardEvaluator.mapping(List.of(c)),
            Optional.of(node("example.com/gpu", "4")),
            pools,
            cel,
            true);
    assertThat(warn.names()).singleElement().satisfies(x -> assertThat(x.published()).isTrue());
    assertThat(warn.conflicts()).hasSize(1);
  }

  static Optional<Quantity> q(String value) {
    return Optional.of(Quantity.parse(value));
  }

  @Test
  void classesOfOtherDriversNeverMatter() {
    DeviceClass other =
        cls("other", T1, Optional.of("example.com/gpu"), "device.driver == 'other.example.com'");
    var e = eval(List.of(other), Optional.of(node("example.com/gpu", "4")));
    assertThat(e.conflicts()).isEmpty();
    // Neither does its implicit name, even if the node advertised it.
    assertThat(
            eval(List.of(other), Optional.of(node("deviceclass.resource.kubernetes.io/other", "1")))
                .conflicts())
        .isEmpty();
  }

  @Test
  void aClassWithoutSelectorsSelectsEveryDevice() {
    DeviceClass any = cls("any", T1, Optional.of("example.com/gpu"));
    var e = eval(List.of(any), Optional.of(node("example.com/gpu", "1")));
    assertThat(e.conflicts())
        .singleElement()
        .satisfies(c -> assertThat(c.affectedDevices()).hasSize(4));
  }

  @Test
  void theImplicitNameCountsToo() {
    DeviceClass c =
        cls("gpu.example.com", T1, Optional.empty(), "device.driver == '" + DRIVER + "'");
    var e =
        eval(
            List.of(c),
            Optional.of(node("deviceclass.resource.kubernetes.io/gpu.example.com", "8")));
    assertThat(e.conflicts())
        .singleElement()
        .satisfies(x -> assertThat(x.deviceClasses()).containsExactly("gpu.example.com"));
  }

  @Test
  void duplicatesNewestWinsAndOnATieTheFirstName() {
    DeviceClass older =
        cls("a-older", T1, Optional.of("example.com/gpu"), "device.driver == '" + DRIVER + "'");
    DeviceClass newer =
        cls("z-newer", T2, Optional.of("example.com/gpu"), "device.driver == '" + DRIVER + "'");
    var e = eval(List.of(older, newer), Optional.empty());
    assertThat(e.duplicates())
        .containsExactly(
            new GuardReport.Duplicate("example.com/gpu", "z-newer", List.of("a-older")));

    DeviceClass b =
        cls("b", T1, Optional.of("example.com/gpu"), "device.driver == '" + DRIVER + "'");
    DeviceClass a =
        cls("a", T1, Optional.of("example.com/gpu"), "device.driver == '" + DRIVER + "'");
    DeviceClass c = cls("c", T1, Optional.of("example.com/gpu"));
    assertThat(eval(List.of(b, c, a), Optional.empty()).duplicates())
        .containsExactly(new GuardReport.Duplicate("example.com/gpu", "a", List.of("b", "c")));
  }

  @Test
  void onlyTheWinnerOfADuplicateNameCanConflict() {
    DeviceClass ourOld =
        cls("ours", T1, Optional.of("example.com/gpu"), "device.driver == '" + DRIVER + "'");
    DeviceClass theirNew =
        cls("theirs", T2, Optional.of("example.com/gpu"), "device.driver == 'other.example.com'");
    var e = eval(List.of(ourOld, theirNew), Optional.of(node("example.com/gpu", "4")));
    // The scheduler maps the name to "theirs": our devices are not reachable through it.
    assertThat(e.conflicts()).isEmpty();
    assertThat(e.duplicates())
        .singleElement()
        .satisfies(d -> assertThat(d.winner()).isEqualTo("theirs"));
    // Duplicates among other drivers' classes only are none of our business.
    DeviceClass x =
        cls("x", T1, Optional.of("example.com/gpu"), "device.driver == 'other.example.com'");
    assertThat(eval(List.of(x, theirNew), Optional.empty()).duplicates()).isEmpty();
  }

  @Test
  void anInvalidExplicitNameIsIgnoredAndReported() {
    DeviceClass bad = cls("bad", T1, Optional.of("gpu"), "device.driver == '" + DRIVER + "'");
    var e = eval(List.of(bad), Optional.of(node("gpu", "4")));
    assertThat(e.conflicts()).isEmpty();
    assertThat(e.problems())
        .containsExactly(
            "DeviceClass bad: spec.extendedResourceName \"gpu\" is ignored, it must contain"
                + " '/' (domain/name, e.g. example.com/gpu): names without a domain are Kubernetes'"
                + " native resources");
  }

  @Test
  void longClassNamesHaveNoUsableImplicitName() {
    String longName = "gpu-" + "x".repeat(60);
    DeviceClass c = cls(longName, T1, Optional.empty(), "device.driver == '" + DRIVER + "'");
    DeviceClass theirs =
        cls("y".repeat(70), T1, Optional.empty(), "device.driver == 'other.example.com'");
    var e =
        eval(
            List.of(c, theirs),
            Optional.of(node("deviceclass.resource.kubernetes.io/" + longName, "1")));
    assertThat(e.unusable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.deviceClass()).isEqualTo(longName);
              assertThat(u.resourceName())
                  .isEqualTo("deviceclass.resource.kubernetes.io/" + longName);
              assertThat(u.reason()).contains("64 characters");
            });
    assertThat(e.conflicts()).isEmpty();
  }

  @Test
  void selectorsThatFailAtRunTimeSelectNothingAndUnevaluableOnesCountAsAccepting() {
    // Reading a missing attribute fails at run time: Kubernetes never allocates through it.
    DeviceClass failing =
        cls(
            "failing",
            T1,
            Optional.of("example.com/a"),
            "device.attributes['" + DRIVER + "'].missing == 'x'");
    // A selector of an unknown kind cannot be evaluated: assume it accepts, hold devices back.
    DeviceClass unknownKind =
        DeviceClass.of(
            ObjectMeta.named("", "future"),
            DeviceClass.Spec.of(
                    List.of(new DeviceSelector(Optional.empty(), Map.of("future", Map.of()))))
                .withExtendedResourceName("example.com/b"));
    // ... unless another selector of the class already rejects our devices.
    DeviceClass unknownButOther =
        DeviceClass.of(
            ObjectMeta.named("", "future-other"),
            DeviceClass.Spec.of(
                    List.of(
                        DeviceSelector.cel("device.driver == 'other.example.com'"),
                        new DeviceSelector(Optional.empty(), Map.of("future", Map.of()))))
                .withExtendedResourceName("example.com/c"));
    Node n =
        node(
            Map.of("example.com/a", "1", "example.com/b", "1", "example.com/c", "1"),
            Map.of("example.com/a", "1", "example.com/b", "1", "example.com/c", "1"));
    var e = eval(List.of(failing, unknownKind, unknownButOther), Optional.of(n));
    assertThat(e.conflicts()).extracting(Conflict::resourceName).containsExactly("example.com/b");
    assertThat(e.problems())
        .anyMatch(p -> p.startsWith("DeviceClass future: spec.selectors[0] is not a CEL selector"));
  }
}
