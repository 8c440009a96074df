package io.dra4j.testkit.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.Condition;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceClaim;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeList;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.kube.Watch;
import io.dra4j.kube.WatchEvent;
import io.dra4j.kube.WatchHandler;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's contract, run against two API server implementations: the test kit's fake server and
 * fabric8's mock server in CRUD mode (written by others). A test that needs a semantics one of them
 * lacks is skipped there with the reason; {@link Fabric8MockContractTest} lists them.
 */
@SuppressWarnings("try") // watches are opened for their side effect and closed by the block
abstract class KubeClientContractTest {
  static final String DRIVER = "gpu.example.com";

  /** Semantics not every server implements. */
  enum Feature {
    /** Chunked HTTP watch streams (fabric8 serves watches over WebSocket only). */
    HTTP_WATCH,
    /** 409 Conflict for an update carrying a stale resourceVersion. */
    STALE_UPDATE_CONFLICT,
    /** Field selectors on spec fields (spec.nodeName, spec.driver). */
    SPEC_FIELD_SELECTORS,
    /** Server-side apply with list-map merge by key and per-manager ownership. */
    SERVER_SIDE_APPLY,
    /** Delete preconditions on uid and resourceVersion. */
    DELETE_PRECONDITIONS,
    /** Set-based label selectors (in, notin). */
    SET_BASED_LABEL_SELECTORS,
    /** metadata.generation bumped when the spec changes. */
    GENERATION_ON_SPEC_CHANGE,
    /** Status reason AlreadyExists (not just code 409) for a create of an existing name. */
    ALREADY_EXISTS_REASON,
    /** Fields the schema of a built-in type does not know are dropped, not stored. */
    UNKNOWN_FIELDS_DROPPED,
  }

  protected KubeClient client;

  protected abstract KubeClient newClient() throws Exception;

  protected abstract boolean supports(Feature feature);

  protected void stopServer() throws Exception {}

  @BeforeEach
  void setUpClient() throws Exception {
    client = newClient();
  }

  @AfterEach
  void tearDownClient() throws Exception {
    client.close();
    stopServer();
  }

  static ResourceSlice slice(String name, String node, String driver) {
    ResourceSliceSpec spec =
        new ResourceSliceSpec(
            driver,
            new ResourceSliceSpec.ResourcePool(node, 1, 1),
            Optional.of(node),
            Optional.empty(),
            false,
            false,
            List.of(
                Device.builder("gpu-0")
                    .attribute("type", "gpu")
                    .capacity("memory", Quantity.parse("80Gi"))
                    .build()),
            List.of(),
            Optional.empty(),
            List.of(),
            Map.of());
    return ResourceSlice.of(ObjectMeta.named("", name), spec);
  }

  static ResourceClaim claim(String ns, String name, Map<String, String> labels) {
    return ResourceClaim.of(
        ObjectMeta.named(ns, name).withLabels(labels),
        ResourceClaimSpec.of(
            DeviceClaim.of(
                List.of(
                    DeviceRequest.exactly("gpu", ExactDeviceRequest.of("gpu.example.com", 1))))));
  }

  @Test
  void createGetListDeleteRoundTrip() throws Exception {
    ResourceSlice created = client.create(ResourceSlice.TYPE, slice("s1", "node-1", DRIVER));
    assertThat(created.metadata().uid()).isNotEmpty();
    assertThat(created.metadata().resourceVersion()).isNotEmpty();
    assertThat(created.metadata().creationTimestamp()).isNotEmpty();
    assertThat(created.spec().devices()).hasSize(1);

    ResourceSlice got = client.get(ResourceSlice.TYPE, "", "s1");
    assertThat(got.spec()).isEqualTo(created.spec());
    assertThat(got.spec().devices().get(0).capacity().get("memory").value().value())
        .isEqualByComparingTo(Quantity.parse("80Gi").value());

    KubeList<ResourceSlice> list = client.list(ResourceSlice.TYPE, "", ListOptions.ALL);
    assertThat(list.items()).extracting(s -> s.metadata().name()).containsExactly("s1");
    assertThat(list.items().get(0).kind()).isEqualTo("ResourceSlice");

    client.delete(ResourceSlice.TYPE, "", "s1", Preconditions.NONE);
    assertThatThrownBy(() -> client.get(ResourceSlice.TYPE, "", "s1"))
        .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.isNotFound()).isTrue());
    assertThatThrownBy(() -> client.delete(ResourceSlice.TYPE, "", "s1", Preconditions.NONE))
        .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.isNotFound()).isTrue());
  }

  @Test
  void generateNameGivesAUniqueName() throws Exception {
    ResourceSlice template =
        slice("", "node-1", DRIVER)
            .withMetadata(ObjectMeta.generated("", "node-1-gpu.example.com-"));
    ResourceSlice a = client.create(ResourceSlice.TYPE, template);
    ResourceSlice b = client.create(ResourceSlice.TYPE, template);
    assertThat(a.metadata().name()).startsWith("node-1-gpu.example.com-").hasSizeGreaterThan(23);
    assertThat(b.metadata().name()).isNotEqualTo(a.metadata().name());
  }

  @Test
  void createOfAnExistingNameIsAlreadyExists() throws Exception {
    client.create(ResourceSlice.TYPE, slice("dup", "node-1", DRIVER));
    assertThatThrownBy(() -> client.create(ResourceSlice.TYPE, slice("dup", "node-1", DRIVER)))
        .isInstanceOfSatisfying(
            KubeException.class,
            e -> {
              assertThat(e.status()).isEqualTo(409);
              if (supports(Feature.ALREADY_EXISTS_REASON)) {
                assertThat(e.isAlreadyExists()).isTrue();
              }
            });
  }

  @Test
  void updateWithAStaleResourceVersionIsAConflict() throws Exception {
    assumeTrue(supports(Feature.STALE_UPDATE_CONFLICT), "server does not check resourceVersion");
    ResourceSlice v1 = client.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
    ResourceSlice v2 =
        client.update(
            ResourceSlice.TYPE,
            v1.withSpec(v1.spec().withPool(new ResourceSliceSpec.ResourcePool("node-1", 2, 1))));
    assertThat(v2.metadata().resourceVersion()).isNotEqualTo(v1.metadata().resourceVersion());
    assertThat(v2.spec().pool().generation()).isEqualTo(2);
    if (supports(Feature.GENERATION_ON_SPEC_CHANGE)) {
      assertThat(v2.metadata().generation()).isEqualTo(v1.metadata().generation() + 1);
    }
    assertThatThrownBy(
            () ->
                client.update(
                    ResourceSlice.TYPE,
                    v1.withSpec(
                        v1.spec().withPool(new ResourceSliceSpec.ResourcePool("node-1", 3, 1)))))
        .isInstanceOfSatisfying(
            KubeException.class,
            e -> {
              assertThat(e.isConflict()).isTrue();
              assertThat(e.isAlreadyExists()).isFalse();
            });
    assertThat(client.get(ResourceSlice.TYPE, "", "s").spec().pool().generation()).isEqualTo(2);
  }

  @Test
  void labelSelectors() throws Exception {
    client.create(ResourceClaim.TYPE, claim("ns1", "a", Map.of("app", "a", "tier", "x")));
    client.create(ResourceClaim.TYPE, claim("ns1", "b", Map.of("app", "b")));
    client.create(ResourceClaim.TYPE, claim("ns2", "c", Map.of("app", "c")));
    assertThat(names(ListOptions.labels("app=a"), "ns1")).containsExactly("a");
    assertThat(names(ListOptions.labels("app==b"), "ns1")).containsExactly("b");
    assertThat(names(ListOptions.labels("app!=a"), "ns1")).containsExactly("b");
    assertThat(names(ListOptions.labels("tier"), "ns1")).containsExactly("a");
    assertThat(names(ListOptions.labels("!tier"), "ns1")).containsExactly("b");
    assertThat(names(ListOptions.labels("app=c"), "")).containsExactly("c");
    assertThat(names(ListOptions.ALL, "")).containsExactlyInAnyOrder("a", "b", "c");
    if (supports(Feature.SET_BASED_LABEL_SELECTORS)) {
      assertThat(names(ListOptions.labels("app in (a,c)"), "")).containsExactlyInAnyOrder("a", "c");
      assertThat(names(ListOptions.labels("app notin (a)"), ""))
          .containsExactlyInAnyOrder("b", "c");
    }
  }

  private List<String> names(ListOptions options, String ns) throws KubeException {
    List<String> out = new ArrayList<>();
    for (ResourceClaim c : client.list(ResourceClaim.TYPE, ns, options).items()) {
      out.add(c.metadata().name());
    }
    return out;
  }

  @Test
  void fieldSelectorsOnSlices() throws Exception {
    assumeTrue(supports(Feature.SPEC_FIELD_SELECTORS), "server ignores spec field selectors");
    client.create(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
    client.create(ResourceSlice.TYPE, slice("b", "node-2", DRIVER));
    client.create(ResourceSlice.TYPE, slice("c", "node-1", "net.example.com"));
    assertThat(sliceNames("spec.nodeName=node-1")).containsExactlyInAnyOrder("a", "c");
    assertThat(sliceNames("spec.nodeName=node-1,spec.driver=" + DRIVER)).containsExactly("a");
    assertThat(sliceNames("spec.driver!=" + DRIVER)).containsExactly("c");
    assertThat(sliceNames("metadata.name=b")).containsExactly("b");
    assertThat(sliceNames("spec.pool.name=node-2")).containsExactly("b");
  }

  private List<String> sliceNames(String fieldSelector) throws KubeException {
    List<String> out = new ArrayList<>();
    for (ResourceSlice s :
        client.list(ResourceSlice.TYPE, "", ListOptions.fields(fieldSelector)).items()) {
      out.add(s.metadata().name());
    }
    return out;
  }

  @Test
  void deletePreconditions() throws Exception {
    assumeTrue(supports(Feature.DELETE_PRECONDITIONS), "server ignores delete preconditions");
    ResourceSlice s = client.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
    assertThatThrownBy(
            () -> client.delete(ResourceSlice.TYPE, "", "s", new Preconditions("other-uid", "")))
        .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.isConflict()).isTrue());
    assertThatThrownBy(
            () ->
                client.delete(
                    ResourceSlice.TYPE, "", "s", new Preconditions(s.metadata().uid(), "999999")))
        .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.isConflict()).isTrue());
    client.delete(
        ResourceSlice.TYPE,
        "",
        "s",
        new Preconditions(s.metadata().uid(), s.metadata().resourceVersion()));
    assertThat(client.list(ResourceSlice.TYPE, "", ListOptions.ALL).items()).isEmpty();
  }

  @Test
  void updateStatusChangesOnlyTheStatus() throws Exception {
    ResourceClaim c = client.create(ResourceClaim.TYPE, claim("ns", "c", Map.of()));
    ResourceClaim allocated =
        client.updateStatus(ResourceClaim.TYPE, c.withStatus(allocation("gpu-0", "gpu-1")));
    assertThat(allocated.status().allocation()).isPresent();
    assertThat(allocated.spec()).isEqualTo(c.spec());
    ResourceClaim got = client.get(ResourceClaim.TYPE, "ns", "c");
    assertThat(got.status().allocation().get().devices().results())
        .extracting(DeviceRequestAllocationResult::device)
        .containsExactly("gpu-0", "gpu-1");
  }

  @Test
  void nodeStatusIsUpdatedThroughItsSubresource() throws Exception {
    Node n =
        client.create(
            Node.TYPE,
            Node.of(
                ObjectMeta.named("", "node-9"),
                Node.Status.of(Map.of("cpu", Quantity.of(8)), Map.of("cpu", Quantity.of(8)))));
    Node updated =
        client.updateStatus(
            Node.TYPE,
            n.withStatus(
                Node.Status.of(
                    Map.of("cpu", Quantity.of(8), "example.com/gpu", Quantity.of(4)),
                    Map.of("cpu", Quantity.of(8), "example.com/gpu", Quantity.of(4)))));
    assertThat(updated.metadata().resourceVersion()).isNotEqualTo(n.metadata().resourceVersion());
    Node got = client.get(Node.TYPE, "", "node-9");
    assertThat(got.status().capacity()).containsEntry("example.com/gpu", Quantity.of(4));
    assertThat(got.status().allocatable()).containsEntry("example.com/gpu", Quantity.of(4));
  }

  static ResourceClaimStatus allocation(String... devices) {
    List<DeviceRequestAllocationResult> results = new ArrayList<>();
    for (String d : devices) {
      results.add(DeviceRequestAllocationResult.of("gpu", DRIVER, "node-1", d));
    }
    return new ResourceClaimStatus(
        Optional.of(AllocationResult.of(DeviceAllocationResult.of(results, List.of()), null)),
        null,
        null,
        null);
  }

  static Map<String, Object> deviceStatusPatch(String ns, String name, String... devices) {
    List<Object> entries = new ArrayList<>();
    for (String d : devices) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("driver", DRIVER);
      e.put("pool", "node-1");
      e.put("device", d);
      e.put(
          "conditions",
          List.of(
              Map.of(
                  "type",
                  "Ready",
                  "status",
                  "True",
                  "reason",
                  "Prepared",
                  "message",
                  "",
                  "lastTransitionTime",
                  Instant.parse("2026-01-01T00:00:00Z").toString())));
      entries.add(e);
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("apiVersion", "resource.k8s.io/v1");
    patch.put("kind", "ResourceClaim");
    patch.put("metadata", Map.of("name", name, "namespace", ns));
    patch.put("status", Map.of("devices", entries));
    return patch;
  }

  @Test
  void serverSideApplyOnStatusMergesDevicesByKeyPerManager() throws Exception {
    assumeTrue(supports(Feature.SERVER_SIDE_APPLY), "server has no server-side apply");
    ResourceClaim c = client.create(ResourceClaim.TYPE, claim("ns", "c", Map.of()));
    client.updateStatus(ResourceClaim.TYPE, c.withStatus(allocation("gpu-0", "gpu-1")));

    ResourceClaim afterA =
        client.apply(
            ResourceClaim.TYPE,
            "ns",
            "c",
            "status",
            deviceStatusPatch("ns", "c", "gpu-0"),
            new ApplyOptions("driver-a", true));
    assertThat(afterA.status().devices())
        .extracting(AllocatedDeviceStatus::device)
        .containsExactly("gpu-0");
    ResourceClaim afterB =
        client.apply(
            ResourceClaim.TYPE,
            "ns",
            "c",
            "status",
            deviceStatusPatch("ns", "c", "gpu-1"),
            new ApplyOptions("driver-b", true));
    assertThat(afterB.status().devices())
        .extracting(AllocatedDeviceStatus::device)
        .containsExactlyInAnyOrder("gpu-0", "gpu-1");
    assertThat(afterB.status().allocation()).isPresent();
    Condition ready = afterB.status().devices().get(0).conditions().get(0);
    assertThat(ready.type()).isEqualTo("Ready");
    assertThat(ready.status()).isEqualTo("True");

    // driver-a applies without its entry: SSA removes what driver-a owned, keeps driver-b's.
    ResourceClaim afterEmpty =
        client.apply(
            ResourceClaim.TYPE,
            "ns",
            "c",
            "status",
            deviceStatusPatch("ns", "c"),
            new ApplyOptions("driver-a", true));
    assertThat(afterEmpty.status().devices())
        .extracting(AllocatedDeviceStatus::device)
        .containsExactly("gpu-1");
    assertThat(afterEmpty.spec()).isEqualTo(c.spec());
  }

  @Test
  void fieldsTheServerDoesNotKnowAreDropped() throws Exception {
    assumeTrue(supports(Feature.UNKNOWN_FIELDS_DROPPED), "server keeps unknown fields");
    ResourceSlice s = slice("s", "node-1", DRIVER);
    Map<String, Object> extra = new LinkedHashMap<>(s.spec().unknownFields());
    extra.put("futureField", Map.of("a", 1));
    ResourceSliceSpec spec =
        new ResourceSliceSpec(
            s.spec().driver(),
            s.spec().pool(),
            s.spec().nodeName(),
            s.spec().nodeSelector(),
            false,
            false,
            s.spec().devices(),
            List.of(),
            Optional.empty(),
            List.of(),
            extra);
    // The real API server decodes a built-in type into its Go struct: a field it does not know is
    // dropped (with a warning), never stored, so a newer client's field on an older server is lost.
    ResourceSlice created = client.create(ResourceSlice.TYPE, s.withSpec(spec));
    assertThat(created.spec().unknownFields()).doesNotContainKey("futureField");
    ResourceSlice got = client.get(ResourceSlice.TYPE, "", "s");
    assertThat(got.spec().unknownFields()).doesNotContainKey("futureField");
    assertThat(got.spec().devices()).isEqualTo(s.spec().devices());
  }

  // ---- watch

  static final class Recorder<T> implements WatchHandler<T> {
    final BlockingQueue<WatchEvent<T>> events = new LinkedBlockingQueue<>();
    final BlockingQueue<Optional<KubeException>> closed = new LinkedBlockingQueue<>();

    @Override
    public void onEvent(WatchEvent<T> event) {
      events.add(event);
    }

    @Override
    public void onClose(Optional<KubeException> error) {
      closed.add(error);
    }

    WatchEvent<T> next() throws InterruptedException {
      WatchEvent<T> e;
      do {
        e = events.poll(10, TimeUnit.SECONDS);
        assertThat(e).as("a watch event within 10 s").isNotNull();
      } while (e.type() == WatchEvent.Type.BOOKMARK);
      return e;
    }
  }

  @Test
  void watchDeliversAddModifyDeleteInOrder() throws Exception {
    assumeTrue(supports(Feature.HTTP_WATCH), "server has no HTTP streaming watch");
    client.create(ResourceSlice.TYPE, slice("before", "node-1", DRIVER));
    KubeList<ResourceSlice> list = client.list(ResourceSlice.TYPE, "", ListOptions.ALL);
    Recorder<ResourceSlice> rec = new Recorder<>();
    try (Watch w =
        client.watch(
            ResourceSlice.TYPE,
            "",
            ListOptions.fields("spec.nodeName=node-1").withResourceVersion(list.resourceVersion()),
            rec)) {
      ResourceSlice a = client.create(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
      client.create(ResourceSlice.TYPE, slice("other-node", "node-2", DRIVER));
      client.update(
          ResourceSlice.TYPE,
          a.withSpec(a.spec().withPool(new ResourceSliceSpec.ResourcePool("node-1", 2, 1))));
      client.delete(ResourceSlice.TYPE, "", "a", Preconditions.NONE);

      WatchEvent<ResourceSlice> added = rec.next();
      assertThat(added.type()).isEqualTo(WatchEvent.Type.ADDED);
      assertThat(added.object().metadata().name()).isEqualTo("a");
      WatchEvent<ResourceSlice> modified = rec.next();
      assertThat(modified.type()).isEqualTo(WatchEvent.Type.MODIFIED);
      assertThat(modified.object().spec().pool().generation()).isEqualTo(2);
      assertThat(modified.resourceVersion()).isNotEqualTo(added.resourceVersion());
      WatchEvent<ResourceSlice> deleted = rec.next();
      assertThat(deleted.type()).isEqualTo(WatchEvent.Type.DELETED);
      assertThat(deleted.object().metadata().name()).isEqualTo("a");
    }
    assertThat(rec.closed).as("close() does not call onClose").isEmpty();
  }
}
