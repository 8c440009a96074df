package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Fixtures.DRIVER;
import static io.dra4j.testkit.allocator.Fixtures.NODE;
import static io.dra4j.testkit.allocator.Fixtures.all;
import static io.dra4j.testkit.allocator.Fixtures.claim;
import static io.dra4j.testkit.allocator.Fixtures.deviceClass;
import static io.dra4j.testkit.allocator.Fixtures.exact;
import static io.dra4j.testkit.allocator.Fixtures.gpu;
import static io.dra4j.testkit.allocator.Fixtures.gpuClass;
import static io.dra4j.testkit.allocator.Fixtures.nodeSlice;
import static io.dra4j.testkit.allocator.Fixtures.q;
import static io.dra4j.testkit.allocator.Fixtures.request;
import static io.dra4j.testkit.allocator.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.DeviceClaimConfiguration;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.DeviceSubRequest;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OpaqueDeviceConfiguration;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Device selection, modes, admin access, the result's shape and the reasons for failures. */
class AllocatorTest {
  private final Allocator allocator = new Allocator();

  private AllocationOutcome allocate(
      List<ResourceSlice> slices, List<DeviceClass> classes, ResourceClaim claim) {
    return allocator.allocate(slices, classes, claim, NODE, Set.of());
  }

  private static List<String> devices(AllocationOutcome outcome) {
    return outcome.orElseThrow().devices().results().stream()
        .map(DeviceRequestAllocationResult::device)
        .collect(Collectors.toList());
  }

  @Test
  void classAndRequestSelectorsUseAttributesAndCapacityQuantities() {
    ResourceSlice slice =
        nodeSlice(
            "s",
            Device.builder("gpu-0")
                .attribute("model", "a100")
                .capacity("memory", q("20Gi"))
                .build(),
            Device.builder("gpu-1")
                .attribute("model", "h100")
                .capacity("memory", q("80Gi"))
                .build(),
            Device.builder("gpu-2")
                .attribute("model", "a100")
                .capacity("memory", q("80Gi"))
                .build(),
            Device.builder("nic-0")
                .attribute("model", "a100")
                .capacity("memory", q("80Gi"))
                .build());
    DeviceClass gpus =
        deviceClass(
            "gpu.example.com",
            "device.driver == 'gpu.example.com'",
            "device.attributes['gpu.example.com'].model.startsWith('a') ||"
                + " device.attributes['gpu.example.com'].model.startsWith('h')");
    ResourceClaim claim =
        claim(
            "c",
            request(
                "gpu",
                exact(
                    "gpu.example.com",
                    1,
                    "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
                    "device.attributes['gpu.example.com'].model == 'a100'")));

    AllocationOutcome outcome = allocate(List.of(slice), List.of(gpus), claim);

    // gpu-0 has too little memory, gpu-1 is the wrong model: gpu-2 is the first that fits.
    assertThat(devices(outcome)).containsExactly("gpu-2");
    DeviceRequestAllocationResult r = outcome.orElseThrow().devices().results().get(0);
    assertThat(r.request()).isEqualTo("gpu");
    assertThat(r.driver()).isEqualTo(DRIVER);
    assertThat(r.pool()).isEqualTo(NODE);
    assertThat(r.adminAccess()).isEmpty();
    assertThat(r.shareID()).isEmpty();
    assertThat(r.consumedCapacity()).isEmpty();
  }

  @Test
  void versionsCompareAsSemverNotAsText() {
    // As text "1.10.0" < "1.9.0"; as semver it is the newer one.
    ResourceSlice slice =
        nodeSlice(
            "s",
            Device.builder("old")
                .attribute("driverVersion", DeviceAttribute.version("1.9.0"))
                .build(),
            Device.builder("new")
                .attribute("driverVersion", DeviceAttribute.version("1.10.0"))
                .build());
    ResourceClaim claim =
        claim(
            "c",
            request(
                "gpu",
                exact(
                    "gpu.example.com",
                    1,
                    "device.attributes['gpu.example.com'].driverVersion"
                        + ".isGreaterThan(semver('1.9.5'))")));

    assertThat(devices(allocate(List.of(slice), List.of(gpuClass()), claim)))
        .containsExactly("new");
  }

  @Test
  void exactCountTakesDevicesInOrderAndAllTakesEveryMatchingDevice() {
    ResourceSlice slice =
        nodeSlice("s", gpu("gpu-0", "80Gi"), gpu("gpu-1", "80Gi"), gpu("gpu-2", "40Gi"));
    List<DeviceClass> classes = List.of(gpuClass());

    assertThat(
            devices(
                allocate(
                    List.of(slice),
                    classes,
                    claim("two", request("gpu", exact("gpu.example.com", 2))))))
        .containsExactly("gpu-0", "gpu-1");
    assertThat(
            devices(
                allocate(
                    List.of(slice),
                    classes,
                    claim(
                        "all",
                        request(
                            "gpu",
                            all("gpu.example.com")
                                .withSelectors(
                                    List.of(
                                        io.dra4j.kube.DeviceSelector.cel(
                                            "device.capacity['gpu.example.com'].memory"
                                                + ".isGreaterThan(quantity('50Gi'))"))))))))
        .containsExactly("gpu-0", "gpu-1");

    // All fails when one of the matching devices is taken.
    AllocationOutcome taken =
        allocator.allocate(
            List.of(slice),
            classes,
            claim("all", request("gpu", all("gpu.example.com"))),
            NODE,
            Set.of(new DeviceKey(DRIVER, NODE, "gpu-1")));
    assertThat(taken.isAllocated()).isFalse();
    assertThat(taken.describe())
        .contains("request \"gpu\"")
        .contains("all matching devices")
        .contains("1 in use by another claim");
  }

  @Test
  void requestsOfOneClaimNeverShareADeviceAndResultsFollowRequestOrder() {
    ResourceSlice slice = nodeSlice("s", gpu("gpu-0", "80Gi"), gpu("gpu-1", "80Gi"));
    ResourceClaim claim =
        claim(
            "c",
            request("a", exact("gpu.example.com", 1)),
            request("b", exact("gpu.example.com", 1)));

    AllocationResult result = allocate(List.of(slice), List.of(gpuClass()), claim).orElseThrow();

    assertThat(result.devices().results())
        .extracting(DeviceRequestAllocationResult::request, DeviceRequestAllocationResult::device)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", "gpu-0"),
            org.assertj.core.groups.Tuple.tuple("b", "gpu-1"));
  }

  @Test
  void slicesAreTriedInNameOrderAndPoolsInDriverAndPoolOrder() {
    ResourceSlice b = slice("b-slice").devices(gpu("from-b", "80Gi")).pool(NODE, 1, 2).build();
    ResourceSlice a = slice("a-slice").devices(gpu("from-a", "80Gi")).pool(NODE, 1, 2).build();
    ResourceSlice otherPool =
        slice("0-first-by-name").pool("z-pool", 1, 1).devices(gpu("from-z", "80Gi")).build();

    assertThat(
            devices(
                allocate(
                    List.of(otherPool, b, a),
                    List.of(gpuClass()),
                    claim("c", request("gpu", exact("gpu.example.com", 3))))))
        .containsExactly("from-a", "from-b", "from-z");
  }

  @Test
  void firstAvailableUsesTheFirstSubrequestThatFitsAndNamesItInTheResult() {
    ResourceSlice slice = nodeSlice("s", gpu("small-0", "20Gi"), gpu("small-1", "20Gi"));
    DeviceClass big =
        deviceClass(
            "big", "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0");
    DeviceClass small =
        DeviceClass.of(
            ObjectMeta.named("", "small"),
            DeviceClass.Spec.of(
                    List.of(io.dra4j.kube.DeviceSelector.cel("device.driver == 'gpu.example.com'")))
                .withConfig(
                    List.of(
                        DeviceClass.Configuration.opaque(
                            OpaqueDeviceConfiguration.of(DRIVER, Map.of("mode", "shared"))))));
    ResourceClaim claim =
        claim(
            "c",
            DeviceRequest.firstAvailable(
                "gpu",
                List.of(
                    DeviceSubRequest.of("large", "big", 1),
                    DeviceSubRequest.of("two-small", "small", 2))));

    AllocationResult result = allocate(List.of(slice), List.of(big, small), claim).orElseThrow();

    assertThat(result.devices().results())
        .extracting(DeviceRequestAllocationResult::request)
        .containsExactly("gpu/two-small", "gpu/two-small");
    assertThat(result.devices().results())
        .extracting(DeviceRequestAllocationResult::device)
        .containsExactly("small-0", "small-1");
    // The class config of the chosen subrequest's class; with one request it applies to all.
    assertThat(result.devices().config()).hasSize(1);
    assertThat(result.devices().config().get(0).source()).isEqualTo("FromClass");
    assertThat(result.devices().config().get(0).requests()).isEmpty();
  }

  @Test
  void adminAccessIgnoresOtherClaimsButNotTheClaimItself() {
    ResourceSlice slice = nodeSlice("s", gpu("gpu-0", "80Gi"));
    Set<DeviceKey> inUse = Set.of(new DeviceKey(DRIVER, NODE, "gpu-0"));
    List<DeviceClass> classes = List.of(gpuClass());

    AllocationOutcome normal =
        allocator.allocate(
            List.of(slice),
            classes,
            claim("c", request("gpu", exact("gpu.example.com", 1))),
            NODE,
            inUse);
    assertThat(normal.isAllocated()).isFalse();

    AllocationResult admin =
        allocator
            .allocate(
                List.of(slice),
                classes,
                claim("monitor", request("gpu", Fixtures.admin("gpu.example.com"))),
                NODE,
                inUse)
            .orElseThrow();
    assertThat(admin.devices().results().get(0).device()).isEqualTo("gpu-0");
    assertThat(admin.devices().results().get(0).adminAccess()).contains(true);

    // An admin request and a normal one in the same claim cannot both have the only device.
    AllocationOutcome both =
        allocate(
            List.of(slice),
            classes,
            claim(
                "both",
                request("watch", Fixtures.admin("gpu.example.com")),
                request("use", exact("gpu.example.com", 1))));
    assertThat(both.isAllocated()).isFalse();

    // Admin-access results do not make the device "in use" for others.
    ResourceClaim adminClaim =
        claim("monitor", request("gpu", Fixtures.admin("gpu.example.com")))
            .withStatus(
                new io.dra4j.kube.ResourceClaimStatus(Optional.of(admin), null, null, null));
    assertThat(AllocatedState.fromClaims(List.of(adminClaim)).exclusivelyAllocated()).isEmpty();
  }

  @Test
  void nodeLocalDevicesPinTheAllocationToTheNode() {
    AllocationResult result =
        allocate(
                List.of(nodeSlice("s", gpu("gpu-0", "80Gi"))),
                List.of(gpuClass()),
                claim("c", request("gpu", exact("gpu.example.com", 1))))
            .orElseThrow();

    assertThat(result.nodeSelector()).contains(NodeSelector.forNodeName(NODE));
    JsonNode json = KubeJson.mapper().valueToTree(result);
    assertThat(json.at("/nodeSelector/nodeSelectorTerms/0/matchFields/0/key").asText())
        .isEqualTo("metadata.name");
    assertThat(json.at("/nodeSelector/nodeSelectorTerms/0/matchFields/0/operator").asText())
        .isEqualTo("In");
    assertThat(json.at("/nodeSelector/nodeSelectorTerms/0/matchFields/0/values/0").asText())
        .isEqualTo(NODE);
    assertThat(result.allocationTimestamp()).isEmpty();
  }

  @Test
  void networkAttachedDevicesCarryTheSliceSelectorOrNothing() {
    NodeSelector rack =
        NodeSelector.of(
            List.of(
                NodeSelector.Term.of(
                    List.of(NodeSelector.Requirement.of("rack", "In", List.of("r1"))), List.of())));
    ResourceSlice rackSlice =
        slice("rack")
            .driver("net.example.com")
            .pool("rack-r1", 1, 1)
            .selector(rack)
            .devices(gpu("fabric-0", "1Gi"))
            .build();
    ResourceSlice everywhere =
        slice("cluster").pool("cluster", 1, 1).allNodes().devices(gpu("remote-0", "80Gi")).build();
    Node node = Node.of(ObjectMeta.named("", NODE).withLabels(Map.of("rack", "r1")), null);
    List<DeviceClass> classes =
        List.of(gpuClass(), deviceClass("net", "device.driver == 'net.example.com'"));

    AllocationResult remote =
        allocator
            .allocate(
                List.of(everywhere),
                classes,
                claim("c", request("gpu", exact("gpu.example.com", 1))),
                node,
                AllocatedState.empty())
            .orElseThrow();
    assertThat(remote.nodeSelector()).isEmpty();

    AllocationResult onRack =
        allocator
            .allocate(
                List.of(rackSlice, everywhere),
                classes,
                claim(
                    "c",
                    request("net", exact("net", 1)),
                    request("gpu", exact("gpu.example.com", 1))),
                node,
                AllocatedState.empty())
            .orElseThrow();
    assertThat(onRack.nodeSelector()).contains(rack);

    // Another rack's node does not see the slice at all.
    Node elsewhere = Node.of(ObjectMeta.named("", "node-9").withLabels(Map.of("rack", "r2")), null);
    AllocationOutcome none =
        allocator.allocate(
            List.of(rackSlice),
            classes,
            claim("c", request("net", exact("net", 1))),
            elsewhere,
            AllocatedState.empty());
    assertThat(none.describe()).contains("no device is published for node \"node-9\"");
  }

  @Test
  void perDeviceNodeSelectionAndBindsToNode() {
    ResourceSlice slice =
        slice("s")
            .pool("shared", 1, 1)
            .perDeviceNodeSelection()
            .devices(
                Device.builder("elsewhere").nodeName("node-2").build(),
                Device.builder("here").nodeName(NODE).build())
            .build();
    assertThat(
            devices(
                allocate(
                    List.of(slice),
                    List.of(gpuClass()),
                    claim("c", request("gpu", exact("gpu.example.com", 1))))))
        .containsExactly("here");

    ResourceSlice binding =
        slice("b")
            .pool("attachable", 1, 1)
            .allNodes()
            .devices(
                Device.builder("dev")
                    .bindsToNode(true)
                    .bindingConditions(List.of("Attached"), List.of("AttachFailed"))
                    .build())
            .build();
    AllocationResult result =
        allocate(
                List.of(binding),
                List.of(gpuClass()),
                claim("c", request("gpu", exact("gpu.example.com", 1))))
            .orElseThrow();
    assertThat(result.nodeSelector()).contains(NodeSelector.forNodeName(NODE));
    assertThat(result.devices().results().get(0).bindingConditions()).containsExactly("Attached");
    assertThat(result.devices().results().get(0).bindingFailureConditions())
        .containsExactly("AttachFailed");
  }

  @Test
  void classConfigsComeFirstOncePerClassThenClaimConfigsInOrder() {
    OpaqueDeviceConfiguration classCfg = OpaqueDeviceConfiguration.of(DRIVER, Map.of("c", 1));
    DeviceClass gpus =
        DeviceClass.of(
            ObjectMeta.named("", "gpu.example.com"),
            DeviceClass.Spec.of(List.of())
                .withConfig(List.of(DeviceClass.Configuration.opaque(classCfg))));
    DeviceClass nics = deviceClass("nic", "device.attributes['gpu.example.com'].type == 'nic'");
    ResourceSlice slice =
        nodeSlice(
            "s",
            gpu("gpu-0", "1Gi"),
            gpu("gpu-1", "1Gi"),
            Device.builder("nic-0").attribute("type", "nic").build());
    OpaqueDeviceConfiguration forAll = OpaqueDeviceConfiguration.of(DRIVER, Map.of("all", true));
    OpaqueDeviceConfiguration forA = OpaqueDeviceConfiguration.of(DRIVER, Map.of("a", true));
    OpaqueDeviceConfiguration forNobody = OpaqueDeviceConfiguration.of(DRIVER, Map.of("x", 0));
    ResourceClaim claim =
        claim(
            "c",
            List.of(
                request("a", exact("gpu.example.com", 1)),
                request("nic", exact("nic", 1)),
                request("b", exact("gpu.example.com", 1))),
            List.of(),
            List.of(
                DeviceClaimConfiguration.opaque(List.of(), forAll),
                DeviceClaimConfiguration.opaque(List.of("a"), forA),
                DeviceClaimConfiguration.opaque(List.of("gpu/unused-sub"), forNobody)));

    List<DeviceAllocationConfiguration> config =
        allocate(List.of(slice), List.of(gpus, nics), claim).orElseThrow().devices().config();

    assertThat(config)
        .extracting(DeviceAllocationConfiguration::source, DeviceAllocationConfiguration::requests)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("FromClass", List.of("a", "b")),
            org.assertj.core.groups.Tuple.tuple("FromClaim", List.of()),
            org.assertj.core.groups.Tuple.tuple("FromClaim", List.of("a")));
    assertThat(config.get(0).opaque().get().parameters().path("c").asInt()).isEqualTo(1);
    assertThat(config.get(1).opaque().get().parameters().path("all").asBoolean()).isTrue();
  }

  @Test
  void theResultIsValidAgainstTheOpenApiSchema() {
    ResourceSlice slice =
        nodeSlice(
            "s",
            Device.builder("gpu-0")
                .bindingConditions(List.of("Ready"), List.of("Failed"))
                .capacity("memory", q("80Gi"))
                .build());
    ResourceClaim claim =
        claim(
            "c",
            List.of(
                request(
                    "gpu",
                    Fixtures.tolerating(
                        "gpu.example.com",
                        io.dra4j.api.device.DeviceToleration.builder()
                            .key("k")
                            .operator("Exists")
                            .build()))),
            List.of(),
            List.of(
                DeviceClaimConfiguration.opaque(
                    List.of("gpu"), OpaqueDeviceConfiguration.of(DRIVER, Map.of("x", 1)))));

    AllocationResult result = allocate(List.of(slice), List.of(gpuClass()), claim).orElseThrow();

    OpenApiSchemas.resourceV1()
        .assertValid(
            "io.k8s.api.resource.v1.AllocationResult",
            (JsonNode) KubeJson.mapper().valueToTree(result));
    assertThat(result.devices().results().get(0).tolerations()).hasSize(1);
  }

  @Test
  void failuresNameTheRequestAndWhatFailed() {
    ResourceSlice slice = nodeSlice("s", gpu("gpu-0", "80Gi"), gpu("gpu-1", "20Gi"));

    AllocationOutcome missingClass =
        allocate(List.of(slice), List.of(), claim("c", request("gpu", exact("nope", 1))));
    assertThat(missingClass).isInstanceOf(AllocationOutcome.Unsatisfiable.class);
    AllocationOutcome.Unsatisfiable u = (AllocationOutcome.Unsatisfiable) missingClass;
    assertThat(u.request()).isEqualTo("gpu");
    assertThat(u.claim()).isEqualTo("default/c");
    assertThat(u.node()).isEqualTo(NODE);
    assertThat(u.reason()).isEqualTo("device class \"nope\" does not exist");

    AllocationOutcome tooMany =
        allocate(
            List.of(slice),
            List.of(gpuClass()),
            claim(
                "c",
                request(
                    "gpu",
                    exact(
                        "gpu.example.com",
                        2,
                        "device.capacity['gpu.example.com'].memory"
                            + ".compareTo(quantity('40Gi')) >= 0"))));
    assertThat(tooMany.describe())
        .isEqualTo(
            "claim default/c on node node-1: request \"gpu\": needs 2 devices of class"
                + " \"gpu.example.com\", but only 1 of the 2 devices usable on node \"node-1\""
                + " fits: 1 not selected by the request's selectors"
                + " (device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0)");

    AllocationOutcome badSyntax =
        allocate(
            List.of(slice),
            List.of(gpuClass()),
            claim("c", request("gpu", exact("gpu.example.com", 1, "device.driver =="))));
    assertThat(badSyntax.describe())
        .contains("request \"gpu\"")
        .contains("the request: selector #0: invalid CEL selector");

    assertThatThrownBy(missingClass::orElseThrow)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not exist");
  }

  @Test
  void aSelectorErrorOnADeviceTheSearchReachesFailsTheWholeClaim() {
    // As kube-scheduler's allocator: the error of the first device is the claim's error, although
    // the second device would match (the real scheduler does the same; see Kubernetes137IT).
    ResourceSlice slice =
        nodeSlice(
            "s",
            Device.builder("no-model").build(),
            Device.builder("a100").attribute("model", "a100").build());
    ResourceClaim claim =
        claim(
            "c",
            request(
                "gpu",
                exact(
                    "gpu.example.com", 1, "device.attributes['gpu.example.com'].model == 'a100'")));
    AllocationOutcome failed = allocate(List.of(slice), List.of(gpuClass()), claim);
    assertThat(failed.isAllocated()).isFalse();
    assertThat(failed.describe())
        .contains("request \"gpu\"")
        .contains("the request: selector #0: CEL selector")
        .contains("failed for device \"no-model\"")
        .contains("model");

    // A device the search never reaches does not matter: a100 comes first and is taken.
    ResourceSlice reordered =
        nodeSlice(
            "s",
            Device.builder("a100").attribute("model", "a100").build(),
            Device.builder("no-model").build());
    assertThat(devices(allocate(List.of(reordered), List.of(gpuClass()), claim)))
        .containsExactly("a100");

    // Nor does a device in use: it is passed over before its selectors are evaluated.
    assertThat(
            devices(
                allocator.allocate(
                    List.of(slice),
                    List.of(gpuClass()),
                    claim,
                    NODE,
                    Set.of(new DeviceKey(DRIVER, NODE, "no-model")))))
        .containsExactly("a100");

    // "All" evaluates every device first: the error fails it too.
    ResourceClaim all =
        claim(
            "all",
            request(
                "gpu",
                all("gpu.example.com")
                    .withSelectors(
                        List.of(
                            io.dra4j.kube.DeviceSelector.cel(
                                "device.attributes['gpu.example.com'].model == 'a100'")))));
    assertThat(allocate(List.of(reordered), List.of(gpuClass()), all).describe())
        .contains("failed for device \"no-model\"");
  }

  @Test
  void anEmptyClaimGetsAnEmptyAllocation() {
    AllocationResult result = allocate(List.of(), List.of(), claim("c")).orElseThrow();
    assertThat(result.devices().results()).isEmpty();
    assertThat(result.nodeSelector()).isEmpty();
  }

  @Test
  void moreThan32DevicesIsRefused() {
    AllocationOutcome outcome =
        allocate(
            List.of(nodeSlice("s", gpu("gpu-0", "1Gi"))),
            List.of(gpuClass()),
            claim("c", request("gpu", exact("gpu.example.com", 33))));
    assertThat(outcome.describe()).contains("at least 33 devices").contains("32 results");
  }
}
