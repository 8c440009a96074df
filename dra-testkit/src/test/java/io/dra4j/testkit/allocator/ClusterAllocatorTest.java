package io.dra4j.testkit.allocator;

import static io.dra4j.testkit.allocator.Fixtures.DRIVER;
import static io.dra4j.testkit.allocator.Fixtures.NODE;
import static io.dra4j.testkit.allocator.Fixtures.claim;
import static io.dra4j.testkit.allocator.Fixtures.exact;
import static io.dra4j.testkit.allocator.Fixtures.gpu;
import static io.dra4j.testkit.allocator.Fixtures.nodeSlice;
import static io.dra4j.testkit.allocator.Fixtures.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.Pod;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The API-level driver against the fake API server, over real HTTP. */
class ClusterAllocatorTest {
  private static final Instant NOW = Instant.parse("2026-07-01T12:00:00Z");

  private FakeApiServer server;
  private HttpKubeClient client;
  private ClusterAllocator cluster;

  @BeforeEach
  void start() throws KubeException {
    server = FakeApiServer.start();
    client = server.clientBuilder().rateLimit(1000, 1000).build();
    cluster = new ClusterAllocator(client, new Allocator(), Clock.fixed(NOW, ZoneOffset.UTC));
    client.create(
        ResourceSlice.TYPE, nodeSlice("node-1-gpu", gpu("gpu-0", "80Gi"), gpu("gpu-1", "80Gi")));
    client.create(
        DeviceClass.TYPE,
        DeviceClass.of(
            ObjectMeta.named("", "gpu.example.com"),
            DeviceClass.Spec.of(List.of(DeviceSelector.cel("device.driver == 'gpu.example.com'")))
                .withExtendedResourceName("example.com/gpu")));
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private Pod createPod(
      String name, Map<String, Quantity> requests, List<Pod.PodResourceClaim> claims)
      throws KubeException {
    Pod.Container c =
        new Pod.Container(
            "app",
            Pod.Resources.of(requests, Map.of(), List.of()),
            Map.of("image", "registry.example.com/app:1"));
    return client.create(
        Pod.TYPE, Pod.of(ObjectMeta.named("default", name), Pod.Spec.of(List.of(c), claims)));
  }

  @Test
  void schedulesAPodWithAnExtendedResourceLikeTheScheduler() throws Exception {
    Pod created = createPod("trainer", Map.of("example.com/gpu", Quantity.of(1)), List.of());

    PodDecision decision = cluster.schedulePod("default", "trainer", NODE);

    assertThat(decision.scheduled()).as(decision.reason()).isTrue();
    assertThat(decision.steps())
        .extracting(Step::action)
        .containsExactly(
            "build", "allocate", "create", "update", "updateStatus", "updateStatus", "bind");

    // What the server stores: one claim, the scheduler's.
    List<ResourceClaim> claims = server.objects(ResourceClaim.TYPE);
    assertThat(claims).hasSize(1);
    ResourceClaim claim = claims.get(0);
    assertThat(claim.metadata().name()).startsWith("trainer-extended-resources-");
    assertThat(claim.metadata().annotations())
        .containsEntry("resource.kubernetes.io/extended-resource-claim", "true");
    assertThat(claim.metadata().ownerReferences()).hasSize(1);
    assertThat(claim.metadata().ownerReferences().get(0).uid()).isEqualTo(created.metadata().uid());
    assertThat(claim.metadata().ownerReferences().get(0).controller()).isTrue();
    assertThat(claim.metadata().finalizers()).containsExactly(ClusterAllocator.FINALIZER);
    assertThat(claim.spec().devices().requests()).hasSize(1);
    assertThat(claim.spec().devices().requests().get(0).name()).isEqualTo("container-0-request-0");

    var allocation = claim.status().allocation().orElseThrow();
    assertThat(allocation.devices().results()).hasSize(1);
    assertThat(allocation.devices().results().get(0).request()).isEqualTo("container-0-request-0");
    assertThat(allocation.devices().results().get(0).device()).isEqualTo("gpu-0");
    assertThat(allocation.allocationTimestamp()).contains("2026-07-01T12:00:00Z");
    assertThat(claim.status().reservedFor())
        .containsExactly(ResourceClaimConsumerReference.pod("trainer", created.metadata().uid()));

    Pod pod = server.object(Pod.TYPE, "default", "trainer").orElseThrow();
    assertThat(pod.spec().nodeName()).isEqualTo(NODE);
    Pod.ExtendedResourceClaimStatus status =
        pod.status().extendedResourceClaimStatus().orElseThrow();
    assertThat(status.resourceClaimName()).isEqualTo(claim.metadata().name());
    assertThat(status.requestMappings())
        .containsExactly(
            Pod.ExtendedResourceRequest.of("app", "example.com/gpu", "container-0-request-0"));
    // Other container fields survive the round trips.
    assertThat(pod.spec().containers().get(0).unknownFields())
        .containsEntry("image", "registry.example.com/app:1");

    // The stored claim is a valid resource.k8s.io/v1 ResourceClaim.
    JsonNode raw = server.raw(ResourceClaim.TYPE, "default", claim.metadata().name()).orElseThrow();
    assertThat(OpenApiSchemas.resourceV1().validateObject(raw)).isEmpty();
    assertThat(raw.at("/status/reservedFor/0/resource").asText()).isEqualTo("pods");

    // Scheduling again changes nothing.
    PodDecision again = cluster.schedulePod("default", "trainer", NODE);
    assertThat(again.scheduled()).isTrue();
    assertThat(server.objects(ResourceClaim.TYPE)).hasSize(1);
    assertThat(again.steps())
        .extracting(Step::action)
        .doesNotContain("create", "updateStatus", "bind");
  }

  @Test
  void devicesTakenByOnePodAreNotGivenToTheNextAndAnUnschedulablePodWritesNothing()
      throws Exception {
    createPod("first", Map.of("example.com/gpu", Quantity.of(1)), List.of());
    createPod("second", Map.of("example.com/gpu", Quantity.of(1)), List.of());
    createPod("third", Map.of("example.com/gpu", Quantity.of(1)), List.of());

    assertThat(cluster.schedulePod("default", "first", NODE).scheduled()).isTrue();
    PodDecision second = cluster.schedulePod("default", "second", NODE);
    assertThat(
            second
                .extendedResourceClaim()
                .orElseThrow()
                .status()
                .allocation()
                .orElseThrow()
                .devices()
                .results()
                .get(0)
                .device())
        .isEqualTo("gpu-1");

    long writesBefore = server.writes("resourceclaims");
    PodDecision third = cluster.schedulePod("default", "third", NODE);
    assertThat(third.scheduled()).isFalse();
    assertThat(third.reason())
        .contains("container-0-request-0")
        .contains("2 in use by another claim");
    assertThat(server.writes("resourceclaims")).isEqualTo(writesBefore);
    assertThat(server.object(Pod.TYPE, "default", "third").orElseThrow().spec().nodeName())
        .isEmpty();
  }

  @Test
  void aPodWithAClaimAndAnExtendedResourceGetsBoth() throws Exception {
    client.create(ResourceClaim.TYPE, claim("shared-gpu", request("gpu", exact(DRIVER, 1))));
    Pod created =
        createPod(
            "both",
            Map.of("example.com/gpu", Quantity.of(1)),
            List.of(Pod.PodResourceClaim.claim("gpu", "shared-gpu")));

    PodDecision decision = cluster.schedulePod("default", "both", NODE);

    assertThat(decision.scheduled()).as(decision.reason()).isTrue();
    ResourceClaim shared = server.object(ResourceClaim.TYPE, "default", "shared-gpu").orElseThrow();
    assertThat(shared.status().allocation().orElseThrow().devices().results().get(0).device())
        .isEqualTo("gpu-0");
    assertThat(shared.status().reservedFor())
        .containsExactly(ResourceClaimConsumerReference.pod("both", created.metadata().uid()));
    ResourceClaim extended = decision.extendedResourceClaim().orElseThrow();
    assertThat(extended.status().allocation().orElseThrow().devices().results().get(0).device())
        .isEqualTo("gpu-1");
    assertThat(decision.claims()).hasSize(2);
  }

  @Test
  void aDevicePluginOnTheNodeServesTheResourceInstead() throws Exception {
    server.put(
        Node.TYPE,
        Node.of(
            ObjectMeta.named("", NODE),
            Node.Status.of(
                Map.of("example.com/gpu", Quantity.of(4)),
                Map.of("example.com/gpu", Quantity.of(4)))));
    createPod("legacy", Map.of("example.com/gpu", Quantity.of(1)), List.of());

    PodDecision decision = cluster.schedulePod("default", "legacy", NODE);

    assertThat(decision.scheduled()).isTrue();
    assertThat(decision.extendedResourceClaim()).isEmpty();
    assertThat(server.objects(ResourceClaim.TYPE)).isEmpty();
    assertThat(server.object(Pod.TYPE, "default", "legacy").orElseThrow().spec().nodeName())
        .isEqualTo(NODE);
  }

  /**
   * {@code
   * MigrationIT.aDuplicateNameOnEqualCreationTimesGoesToTheFirstNameAndDeletingTheOtherUnmapsIt} on
   * the real scheduler, step by step, with the same outcomes: the tie goes to the first name, the
   * class that lost has no implicit name, deleting it unmaps the name, updating the winner maps it
   * again.
   */
  @Test
  void aDuplicateNameIsDecidedOneDeviceClassEventAtATimeAsByTheScheduler() throws Exception {
    // The scheduler runs before the classes come, and sees them come one after the other.
    createPod("before", Map.of("cpu", Quantity.of(1)), List.of());
    assertThat(cluster.schedulePod("default", "before", NODE).scheduled()).isTrue();
    List<DeviceClass> tie = List.of();
    for (int attempt = 0; attempt < 5; attempt++) {
      for (DeviceClass c : tie) {
        client.delete(DeviceClass.TYPE, "", c.metadata().name(), Preconditions.NONE);
      }
      Await.nextSecond(); // at the start of a second
      tie =
          List.of(
              client.create(DeviceClass.TYPE, tieClass("a-tie")),
              client.create(DeviceClass.TYPE, tieClass("b-tie")));
      if (tie.get(0)
          .metadata()
          .creationTimestamp()
          .equals(tie.get(1).metadata().creationTimestamp())) {
        break;
      }
    }
    assertThat(tie.get(0).metadata().creationTimestamp())
        .as("both created in one second")
        .isEqualTo(tie.get(1).metadata().creationTimestamp());

    createPod("tie-1", Map.of("example.com/tie", Quantity.of(1)), List.of());
    PodDecision tie1 = cluster.schedulePod("default", "tie-1", NODE);
    assertThat(tie1.scheduled()).as(tie1.reason()).isTrue();
    assertThat(
            tie1.extendedResourceClaim()
                .orElseThrow()
                .spec()
                .devices()
                .requests()
                .get(0)
                .exactly()
                .orElseThrow()
                .deviceClassName())
        .isEqualTo("a-tie");
    // b-tie lost the name when the scheduler saw it, and with it its implicit name.
    String implicitB = "deviceclass.resource.kubernetes.io/b-tie";
    createPod("implicit-b", Map.of(implicitB, Quantity.of(1)), List.of());
    assertThat(cluster.schedulePod("default", "implicit-b", NODE).reason())
        .isEqualTo("Insufficient " + implicitB);

    client.delete(DeviceClass.TYPE, "", "b-tie", Preconditions.NONE);
    createPod("tie-2", Map.of("example.com/tie", Quantity.of(1)), List.of());
    PodDecision tie2 = cluster.schedulePod("default", "tie-2", NODE);
    assertThat(tie2.scheduled()).isFalse();
    assertThat(tie2.reason()).isEqualTo("Insufficient example.com/tie");
    assertThat(server.object(Pod.TYPE, "default", "tie-2").orElseThrow().spec().nodeName())
        .isEmpty();

    DeviceClass a = client.get(DeviceClass.TYPE, "", "a-tie");
    client.update(
        DeviceClass.TYPE,
        DeviceClass.of(a.metadata().withLabels(Map.of("dra4j.io/touched", "true")), a.spec()));
    PodDecision again = cluster.schedulePod("default", "tie-2", NODE);
    assertThat(again.scheduled()).as(again.reason()).isTrue();
  }

  private static DeviceClass tieClass(String name) {
    return DeviceClass.of(
        ObjectMeta.named("", name),
        DeviceClass.Spec.of(List.of(DeviceSelector.cel("device.driver == 'gpu.example.com'")))
            .withExtendedResourceName("example.com/tie"));
  }

  @Test
  void allocateClaimSkipsDevicesOfOtherClaimsAndRetriesOnConflict() throws Exception {
    client.create(ResourceClaim.TYPE, claim("a", request("gpu", exact(DRIVER, 1))));
    client.create(ResourceClaim.TYPE, claim("b", request("gpu", exact(DRIVER, 1))));
    client.create(ResourceClaim.TYPE, claim("c", request("gpu", exact(DRIVER, 1))));

    ClaimDecision a = cluster.allocateClaim("default", "a", NODE);
    assertThat(a.allocated()).isTrue();
    assertThat(a.claim().status().allocation().orElseThrow().devices().results().get(0).device())
        .isEqualTo("gpu-0");
    assertThat(a.claim().status().reservedFor()).isEmpty();

    // One stale write: the allocator reads the claim again and succeeds.
    server.faults().failNext("update", "resourceclaims/status", 1, 409);
    ResourceClaimConsumerReference consumer = ResourceClaimConsumerReference.pod("p", "uid-p");
    ClaimDecision b = cluster.allocateClaim("default", "b", NODE, Optional.of(consumer));
    assertThat(b.allocated()).isTrue();
    assertThat(b.steps()).extracting(Step::action).contains("conflict");
    ResourceClaim storedB = server.object(ResourceClaim.TYPE, "default", "b").orElseThrow();
    assertThat(storedB.status().allocation().orElseThrow().devices().results().get(0).device())
        .isEqualTo("gpu-1");
    assertThat(storedB.status().reservedFor()).containsExactly(consumer);

    ClaimDecision c = cluster.tryAllocateClaim("default", "c", NODE);
    assertThat(c.allocated()).isFalse();
    assertThat(c.outcome().describe()).contains("claim default/c on node node-1");
    assertThatThrownBy(() -> cluster.allocateClaim("default", "c", NODE))
        .isInstanceOf(UnsatisfiableClaimException.class)
        .hasMessage(c.outcome().describe());
    assertThat(
            server.object(ResourceClaim.TYPE, "default", "c").orElseThrow().status().allocation())
        .isEmpty();

    // An allocated claim stays as it is; only the reservation is added.
    ClaimDecision again =
        cluster.allocateClaim(
            "default", "a", NODE, Optional.of(ResourceClaimConsumerReference.pod("q", "uid-q")));
    assertThat(again.claim().status().allocation()).isEqualTo(a.claim().status().allocation());
    assertThat(again.claim().status().reservedFor())
        .extracting(ResourceClaimConsumerReference::uid)
        .containsExactly("uid-q");

    // ... and is not usable on another node.
    ClaimDecision elsewhere = cluster.tryAllocateClaim("default", "a", "node-2");
    assertThat(elsewhere.allocated()).isFalse();
    assertThat(elsewhere.outcome().describe()).contains("not usable on node \"node-2\"");
  }

  @Test
  void anUnsatisfiableClaimFailsWithTheRequestAndTheSelectorThatMatchedNothing() throws Exception {
    client.create(
        ResourceClaim.TYPE,
        claim(
            "big",
            request(
                "train",
                exact(
                    DRIVER,
                    1,
                    "device.capacity['gpu.example.com'].memory.compareTo(quantity('1Ti')) >= 0"))));
    assertThatThrownBy(() -> cluster.allocateClaim("default", "big", NODE))
        .isInstanceOf(UnsatisfiableClaimException.class)
        .hasMessageContaining("claim default/big on node node-1")
        .hasMessageContaining("request \"train\"")
        .hasMessageContaining("quantity('1Ti')");
    assertThat(
            server.object(ResourceClaim.TYPE, "default", "big").orElseThrow().status().allocation())
        .isEmpty();
  }
}
