package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Fixtures.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.dra4j.api.device.Quantity;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** KEP-5004 names and the scheduler's claim for a pod. */
class ExtendedResourceMappingTest {

  private static DeviceClass deviceClass(String name, String created, String extendedName) {
    ObjectMeta meta =
        new ObjectMeta(
            name,
            "",
            "",
            "uid-" + name,
            "",
            0,
            created,
            Optional.empty(),
            Map.of(),
            Map.of(),
            List.of(),
            List.of(),
            Map.of());
    DeviceClass.Spec spec = DeviceClass.Spec.of(List.of());
    return DeviceClass.of(
        meta, extendedName.isEmpty() ? spec : spec.withExtendedResourceName(extendedName));
  }

  private static Pod.Container container(String name, Map<String, Quantity> requests) {
    return Pod.Container.of(name, Pod.Resources.of(requests, Map.of(), List.of()));
  }

  private static Pod pod(List<Pod.Container> init, List<Pod.Container> containers) {
    ObjectMeta meta =
        new ObjectMeta(
            "app",
            "",
            "team-a",
            "pod-uid",
            "",
            0,
            "",
            Optional.empty(),
            Map.of(),
            Map.of(),
            List.of(),
            List.of(),
            Map.of());
    return Pod.of(meta, new Pod.Spec(containers, init, List.of(), "", Optional.empty(), Map.of()));
  }

  @Test
  void everyClassHasAnImplicitNameUpTo63Characters() {
    String name63 = "c".repeat(63);
    String name64 = "c".repeat(64);
    ExtendedResourceMapping mapping =
        ExtendedResourceMapping.of(
            List.of(deviceClass(name63, "", ""), deviceClass(name64, "", "")));

    assertThat(mapping.deviceClass("deviceclass.resource.kubernetes.io/" + name63))
        .map(c -> c.metadata().name())
        .contains(name63);
    assertThat(mapping.deviceClass("deviceclass.resource.kubernetes.io/" + name64)).isEmpty();
    assertThat(ExtendedResourceMapping.implicitName(name64)).isEmpty();
    assertThat(ExtendedResourceMapping.implicitName("gpu.example.com"))
        .contains("deviceclass.resource.kubernetes.io/gpu.example.com");
    assertThat(mapping.notes()).anyMatch(n -> n.contains(name64) && n.contains("63 characters"));
  }

  @Test
  void forDuplicateExplicitNamesTheLaterClassWinsAndTiesGoToTheFirstName() {
    DeviceClass older = deviceClass("a-older", "2026-01-01T00:00:00Z", "example.com/gpu");
    DeviceClass newer = deviceClass("z-newer", "2026-02-01T00:00:00Z", "example.com/gpu");
    assertThat(ExtendedResourceMapping.of(List.of(older, newer)).classNames())
        .containsEntry("example.com/gpu", "z-newer");
    assertThat(ExtendedResourceMapping.of(List.of(newer, older)).classNames())
        .containsEntry("example.com/gpu", "z-newer");

    DeviceClass b = deviceClass("b", "2026-03-01T00:00:00Z", "example.com/fpga");
    DeviceClass a = deviceClass("a", "2026-03-01T00:00:00Z", "example.com/fpga");
    ExtendedResourceMapping tie = ExtendedResourceMapping.of(List.of(b, a));
    assertThat(tie.classNames()).containsEntry("example.com/fpga", "a");
    assertThat(tie.notes()).anyMatch(n -> n.contains("\"a\" wins over \"b\""));

    // A scheduler that starts adds them in name order: b, seen after a, loses the name and so
    // gets no implicit name (extendedresourcecache.go:178-186 returns before setting it).
    assertThat(tie.classNames())
        .containsEntry("deviceclass.resource.kubernetes.io/a", "a")
        .doesNotContainKey("deviceclass.resource.kubernetes.io/b");
    assertThat(tie.notes())
        .anyMatch(n -> n.contains("\"b\": its implicit name deviceclass.resource.kubernetes.io/b"));
  }

  @Test
  void invalidExplicitNamesAreIgnored() {
    ExtendedResourceMapping mapping =
        ExtendedResourceMapping.of(
            List.of(
                deviceClass("no-domain", "", "gpu"),
                deviceClass("reserved", "", "kubernetes.io/gpu"),
                deviceClass("quota", "", "requests.example.com/gpu"),
                deviceClass("long", "", "example.com/" + "x".repeat(64))));
    assertThat(mapping.classNames().keySet())
        .allMatch(n -> n.startsWith("deviceclass.resource.kubernetes.io/"));
    assertThat(mapping.notes()).hasSize(4);
    assertThat(ExtendedResourceMapping.extendedResourceNameProblem("example.com/gpu")).isEmpty();
  }

  @Test
  void theClaimHasTheSchedulersShape() {
    ExtendedResourceMapping mapping =
        ExtendedResourceMapping.of(List.of(deviceClass("gpu.example.com", "", "example.com/gpu")));
    Map<String, Quantity> requests = new LinkedHashMap<>();
    requests.put("cpu", q("500m"));
    requests.put("example.com/gpu", Quantity.of(2));
    requests.put("memory", q("1Gi"));
    Pod pod =
        pod(
            List.of(),
            List.of(
                container("sidecar-less", Map.of("cpu", q("1"))), container("trainer", requests)));

    ExtendedResourceClaim built = mapping.claimFor(pod).orElseThrow();
    ResourceClaim claim = built.claim();

    assertThat(claim.metadata().name()).isEmpty();
    assertThat(claim.metadata().generateName()).isEqualTo("app-extended-resources-");
    assertThat(claim.metadata().namespace()).isEqualTo("team-a");
    assertThat(claim.metadata().annotations())
        .containsExactly(Map.entry("resource.kubernetes.io/extended-resource-claim", "true"));
    assertThat(claim.metadata().ownerReferences())
        .containsExactly(new OwnerReference("v1", "Pod", "app", "pod-uid", true, false));
    // Container 1 (the second), resource index 1 among its sorted names cpu, example.com/gpu,
    // memory.
    assertThat(claim.spec().devices().requests())
        .extracting(DeviceRequest::name)
        .containsExactly("container-1-request-1");
    ExactDeviceRequest exact = claim.spec().devices().requests().get(0).exactly().orElseThrow();
    assertThat(exact.deviceClassName()).isEqualTo("gpu.example.com");
    assertThat(exact.allocationMode()).isEqualTo("ExactCount");
    assertThat(exact.count()).isEqualTo(2);
    assertThat(exact.selectors()).isEmpty();
    assertThat(built.requestMappings())
        .containsExactly(
            Pod.ExtendedResourceRequest.of("trainer", "example.com/gpu", "container-1-request-1"));

    // The request JSON carries exactly deviceClassName, allocationMode and count.
    assertThat(KubeJson.mapper().valueToTree(claim.spec().devices().requests().get(0)).toString())
        .isEqualTo(
            "{\"name\":\"container-1-request-1\",\"exactly\":{\"deviceClassName\":"
                + "\"gpu.example.com\",\"allocationMode\":\"ExactCount\",\"count\":2}}");

    Pod.ExtendedResourceClaimStatus status = built.podStatus("app-extended-resources-x1y2z");
    assertThat(status.resourceClaimName()).isEqualTo("app-extended-resources-x1y2z");
    assertThat(KubeJson.mapper().valueToTree(status).toString())
        .isEqualTo(
            "{\"resourceClaimName\":\"app-extended-resources-x1y2z\",\"requestMappings\":["
                + "{\"containerName\":\"trainer\",\"resourceName\":\"example.com/gpu\","
                + "\"requestName\":\"container-1-request-1\"}]}");
  }

  @Test
  void implicitNamesLimitsAndSeveralResourcesAndContainers() {
    ExtendedResourceMapping mapping =
        ExtendedResourceMapping.of(
            List.of(
                deviceClass("gpu.example.com", "", "example.com/gpu"),
                deviceClass("fpga", "", "")));
    Pod.Container a =
        Pod.Container.of(
            "a",
            Pod.Resources.of(
                Map.of(),
                Map.of("example.com/gpu", Quantity.of(1)), // limits only: defaulted to requests
                List.of()));
    Pod.Container b =
        container(
            "b",
            Map.of(
                "example.com/gpu", Quantity.of(1),
                "deviceclass.resource.kubernetes.io/fpga", Quantity.of(3),
                "example.com/unknown", Quantity.of(1)));
    Pod.Container zero = container("zero", Map.of("example.com/gpu", Quantity.of(0)));

    ExtendedResourceClaim built =
        mapping.claimFor(pod(List.of(), List.of(a, b, zero))).orElseThrow();

    // Requests sorted by name; b's names sorted: deviceclass...fpga (0), example.com/gpu (1),
    // example.com/unknown (2).
    assertThat(built.claim().spec().devices().requests())
        .extracting(
            DeviceRequest::name,
            r -> r.exactly().orElseThrow().deviceClassName(),
            r -> r.exactly().orElseThrow().count())
        .containsExactly(
            tuple("container-0-request-0", "gpu.example.com", 1L),
            tuple("container-1-request-0", "fpga", 3L),
            tuple("container-1-request-1", "gpu.example.com", 1L));
    // Mappings per resource (sorted), containers in order.
    assertThat(built.requestMappings())
        .extracting(
            Pod.ExtendedResourceRequest::containerName,
            Pod.ExtendedResourceRequest::resourceName,
            Pod.ExtendedResourceRequest::requestName)
        .containsExactly(
            tuple("b", "deviceclass.resource.kubernetes.io/fpga", "container-1-request-0"),
            tuple("a", "example.com/gpu", "container-0-request-0"),
            tuple("b", "example.com/gpu", "container-1-request-1"));

    // Served by a device plugin on this node: no claim for it.
    ExtendedResourceClaim rest =
        mapping.claimFor(pod(List.of(), List.of(a, b)), Set.of("example.com/gpu")).orElseThrow();
    assertThat(rest.claim().spec().devices().requests())
        .extracting(DeviceRequest::name)
        .containsExactly("container-1-request-0");

    assertThat(mapping.claimFor(pod(List.of(), List.of(zero)))).isEmpty();
  }

  @Test
  void initContainersCountFirstReuseLaterRequestsAndShareTheLargestOwnRequest() {
    ExtendedResourceMapping mapping =
        ExtendedResourceMapping.of(List.of(deviceClass("gpu.example.com", "", "example.com/gpu")));
    Map<String, Object> always = Map.of("restartPolicy", "Always");
    Pod.Container init0 = container("init-0", Map.of("example.com/gpu", Quantity.of(3)));
    Pod.Container sidecar =
        new Pod.Container(
            "sidecar",
            Pod.Resources.of(Map.of("example.com/gpu", Quantity.of(1)), Map.of(), List.of()),
            always);
    Pod.Container init2 = container("init-2", Map.of("example.com/gpu", Quantity.of(2)));
    Pod.Container main = container("main", Map.of("example.com/gpu", Quantity.of(1)));

    ExtendedResourceClaim built =
        mapping.claimFor(pod(List.of(init0, sidecar, init2), List.of(main))).orElseThrow();

    // Long-lived: sidecar (index 1) and main (index 3) get their own requests. init-0 reuses
    // the sidecar's and main's requests (1 + 1) and asks for 1 more; init-2 reuses main's (1)
    // and asks for 1 more. Only the largest own init request is kept (a tie keeps the first).
    List<String> names = new ArrayList<>();
    built.claim().spec().devices().requests().forEach(r -> names.add(r.name()));
    assertThat(names)
        .containsExactly("container-0-request-0", "container-1-request-0", "container-3-request-0");
    assertThat(built.requestMappings())
        .extracting(
            Pod.ExtendedResourceRequest::containerName, Pod.ExtendedResourceRequest::requestName)
        .containsExactly(
            tuple("sidecar", "container-1-request-0"),
            tuple("main", "container-3-request-0"),
            tuple("init-0", "container-1-request-0"),
            tuple("init-0", "container-3-request-0"),
            tuple("init-0", "container-0-request-0"),
            tuple("init-2", "container-3-request-0"),
            tuple("init-2", "container-0-request-0"));
  }
}
