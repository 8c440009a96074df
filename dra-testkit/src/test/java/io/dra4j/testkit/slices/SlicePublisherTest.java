package io.dra4j.testkit.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.api.provider.SkipNodeOperation;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.Watch;
import io.dra4j.kube.WatchEvent;
import io.dra4j.kube.WatchHandler;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DroppedFieldsException;
import io.dra4j.runtime.internal.slices.DroppedFields;
import io.dra4j.runtime.internal.slices.PublishListener;
import io.dra4j.runtime.internal.slices.SlicePublisher;
import io.dra4j.runtime.report.PublisherStats;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.validation.PoolValidation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SlicePublisher} against the fake API server over real HTTP: what it writes, how many
 * writes it needs, and how it recovers. Every test ends by checking all slices on the server
 * against the OpenAPI schema and the pool rules ({@link PublishedSlices#assertValid}).
 */
class SlicePublisherTest {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";
  static final Duration WAIT = Duration.ofSeconds(20);

  FakeApiServer server;
  HttpKubeClient client;
  String nodeUid;
  PublishedSlices published;
  final List<SlicePublisher> publishers = new ArrayList<>();
  final Recorder events = new Recorder();

  /** Everything the publisher reports. */
  static final class Recorder implements PublishListener {
    final List<String> errors = new CopyOnWriteArrayList<>();
    final List<PoolValidation> invalid = new CopyOnWriteArrayList<>();
    final List<String> dropped = new CopyOnWriteArrayList<>();

    @Override
    public void onError(String pool, Exception e) {
      errors.add(pool + ": " + e.getMessage());
    }

    @Override
    public void onInvalidPool(PoolValidation v) {
      invalid.add(v);
    }

    @Override
    public void onDroppedFields(String pool, int sliceIndex, DroppedFields d) {
      dropped.add(pool + "#" + sliceIndex + " " + d.disabledFeatures());
    }
  }

  @BeforeEach
  void startServer() {
    server = FakeApiServer.start();
    nodeUid = server.put(Node.TYPE, Node.of(ObjectMeta.named("", NODE), null)).metadata().uid();
    client = newClient(1);
    published = new PublishedSlices(server, DRIVER);
  }

  HttpKubeClient newClient(int retries) {
    return server
        .clientBuilder()
        .rateLimit(10_000, 10_000)
        .retries(retries, Duration.ofMillis(10), Duration.ofMillis(50))
        .callTimeout(Duration.ofSeconds(3))
        .connectTimeout(Duration.ofSeconds(1))
        .build();
  }

  @AfterEach
  void stop() {
    publishers.forEach(SlicePublisher::close);
    client.close();
    server.close();
  }

  SlicePublisher.Builder builder(KubeClient c) {
    return SlicePublisher.builder(c, DRIVER)
        .nodeName(NODE)
        .listener(events)
        .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .resyncDelay(Duration.ofMillis(100));
  }

  SlicePublisher start(SlicePublisher.Builder b) {
    SlicePublisher p = b.build();
    publishers.add(p);
    return p.start();
  }

  SlicePublisher start() {
    return start(builder(client));
  }

  static Device gpu(int i) {
    return Device.builder("gpu-" + i)
        .attribute("model", "H200")
        .attribute("index", i)
        .capacity("memory", Quantity.ofBytes(141L << 30))
        .build();
  }

  static List<Device> gpus(int n) {
    return IntStream.range(0, n).mapToObj(SlicePublisherTest::gpu).toList();
  }

  static DeviceTaint unhealthy() {
    return DeviceTaint.of(DRIVER + "/unhealthy", "xid-79", TaintEffect.NO_SCHEDULE);
  }

  void publishAndWait(SlicePublisher p, Pool... pools) throws InterruptedException {
    p.publish(List.of(pools));
    assertThat(p.awaitIdle(WAIT)).as("publisher idle").isTrue();
  }

  long writes() {
    return server.writes("resourceslices");
  }

  void assertAllValid() {
    published.assertValid(Optional.of(NODE), nodeUid);
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void oneDeviceIsOneSliceOwnedByTheNode() throws Exception {
    SlicePublisher p = start();
    publishAndWait(p, Pool.of(NODE, List.of(gpu(0))));

    List<ResourceSlice> slices = published.pool(NODE);
    assertThat(slices).hasSize(1);
    ResourceSlice s = slices.get(0);
    assertThat(s.metadata().name()).startsWith("00000-gpu.example.com-node-1-");
    assertThat(s.spec().nodeName()).contains(NODE);
    assertThat(s.spec().pool().generation()).isEqualTo(1);
    assertThat(s.spec().pool().resourceSliceCount()).isEqualTo(1);
    assertThat(s.spec().devices()).containsExactly(gpu(0));
    assertThat(writes()).isEqualTo(1);
    assertThat(server.requests("get", "nodes")).as("owner uid looked up once").isEqualTo(1);
    assertThat(p.stats().creates()).isEqualTo(1);
    assertThat(p.lastValidation()).singleElement().satisfies(v -> assertThat(v.isValid()).isTrue());
    assertAllValid();
  }

  @Test
  void aMissingNodeIsReportedWithWhatToCheckAndPublishingStartsOnceItExists() throws Exception {
    client.delete(Node.TYPE, "", NODE, Preconditions.NONE);
    SlicePublisher p = start();
    p.publish(List.of(Pool.of(NODE, List.of(gpu(0)))));
    Await.until("the missing Node reported", WAIT, () -> !events.errors.isEmpty());
    assertThat(events.errors.get(0))
        .contains("Node \"" + NODE + "\" does not exist")
        .contains("--node-name")
        .contains("--node " + NODE);
    server.putNode(NODE);
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(published.pool(NODE)).hasSize(1);
  }

  @Test
  void aThousandDevicesAreSplitIntoEightSlicesInOrder() throws Exception {
    SlicePublisher p = start(builder(client).ownerUid(nodeUid));
    publishAndWait(p, Pool.of(NODE, gpus(1000)));

    List<ResourceSlice> slices = published.pool(NODE);
    assertThat(slices).hasSize(8);
    assertThat(slices.stream().map(s -> s.spec().devices().size()).toList())
        .containsExactly(128, 128, 128, 128, 128, 128, 128, 104);
    assertThat(published.devices(NODE)).isEqualTo(gpus(1000));
    assertThat(writes()).isEqualTo(8);
    assertThat(server.requests("get", "nodes")).as("uid given: no lookup").isZero();
    assertAllValid();
  }

  @Test
  void taintedDevicesKeepTheirSlicesAtSixtyFour() throws Exception {
    SlicePublisher p = start();
    List<Device> devices = new ArrayList<>(gpus(200));
    devices.set(70, gpu(70).toBuilder().taint(unhealthy()).build());
    publishAndWait(p, Pool.of(NODE, devices));

    // Blocks 0 and 1 cannot pair (device 70 is tainted); blocks 2 and 3 can.
    assertThat(published.pool(NODE).stream().map(s -> s.spec().devices().size()).toList())
        .containsExactly(64, 64, 72);
    assertThat(published.devices(NODE)).isEqualTo(devices);
    assertAllValid();
  }

  @Test
  void withDynamicTaintsATaintChangeIsOneWriteWithoutGenerationBump() throws Exception {
    SlicePublisher p = start(builder(client).dynamicTaints(true));
    List<Device> devices = gpus(200);
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(published.pool(NODE)).hasSize(4);
    long before = writes();

    List<Device> tainted = new ArrayList<>(devices);
    tainted.set(70, gpu(70).toBuilder().taint(unhealthy()).build());
    publishAndWait(p, Pool.of(NODE, tainted));
    assertThat(writes() - before).isEqualTo(1);
    assertThat(published.generation(NODE)).isEqualTo(1);

    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(writes() - before).isEqualTo(2);
    assertThat(published.devices(NODE)).isEqualTo(devices);
    assertAllValid();
  }

  @Test
  void counterSetsGetASliceOfTheirOwn() throws Exception {
    SlicePublisher p = start();
    List<CounterSet> sets = new ArrayList<>();
    List<Device> partitions = new ArrayList<>();
    for (int g = 0; g < 2; g++) {
      sets.add(
          CounterSet.of(
              "gpu-" + g + "-counters", Map.of("memory", Counter.of(Quantity.parse("80Gi")))));
      for (int part = 0; part < 4; part++) {
        partitions.add(
            Device.builder("gpu-" + g + "-mig-" + part)
                .consumesCounters(
                    DeviceCounterConsumption.of(
                        "gpu-" + g + "-counters",
                        Map.of("memory", Counter.of(Quantity.parse("20Gi")))))
                .build());
      }
    }
    publishAndWait(p, Pool.builder(NODE).devices(partitions).counterSets(sets).build());

    List<ResourceSlice> slices = published.pool(NODE);
    assertThat(slices).hasSize(2);
    assertThat(slices.get(0).spec().sharedCounters()).isEqualTo(sets);
    assertThat(slices.get(0).spec().devices()).isEmpty();
    assertThat(slices.get(1).spec().devices()).isEqualTo(partitions);
    assertAllValid();
  }

  @Test
  void deviceChangesCostOneWriteUnlessTheLayoutShifts() throws Exception {
    SlicePublisher p = start();
    List<Device> devices = new ArrayList<>(gpus(1000));
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(published.generation(NODE)).isEqualTo(1);

    // A changed device in the middle: one update, same generation.
    long before = writes();
    devices.set(500, gpu(500).toBuilder().attribute("model", "H200-NVL").build());
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(writes() - before).isEqualTo(1);
    assertThat(published.generation(NODE)).isEqualTo(1);

    // An added device at the end: the last slice grows, one update.
    before = writes();
    devices.add(gpu(1000));
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(writes() - before).isEqualTo(1);
    assertThat(published.generation(NODE)).isEqualTo(1);

    // The last device removed: one update.
    before = writes();
    devices.remove(1000);
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(writes() - before).isEqualTo(1);

    // A device removed from the middle shifts every later device: generation bump, all eight
    // slices rewritten (in place: no delete, no create).
    before = writes();
    Map<String, String> namesBefore = published.versions(NODE);
    devices.remove(10);
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(writes() - before).isEqualTo(8);
    assertThat(server.requests("delete", "resourceslices")).isZero();
    assertThat(published.versions(NODE).keySet()).isEqualTo(namesBefore.keySet());
    assertThat(published.generation(NODE)).isEqualTo(2);
    assertThat(published.devices(NODE)).isEqualTo(devices);
    assertAllValid();
  }

  @Test
  void unchangedRepublishMakesNoApiCallAtAll() throws Exception {
    SlicePublisher p = start();
    publishAndWait(p, Pool.of(NODE, gpus(1000)));
    Map<String, Long> requests = server.requestCounts();
    PublisherStats before = p.stats();

    for (int i = 0; i < 3; i++) {
      publishAndWait(p, Pool.of(NODE, gpus(1000))); // equal, not the same objects
    }
    Map<String, Long> after = server.requestCounts();
    after.remove("watch resourceslices"); // the informer may resume its watch
    requests.remove("watch resourceslices");
    assertThat(after).isEqualTo(requests);
    assertThat(p.stats().writes()).isEqualTo(before.writes());
    assertThat(p.stats().syncs()).isGreaterThan(before.syncs());
    assertAllValid();
  }

  @Test
  void generationIsBumpedOnlyWhenMoreThanOneSliceChanges() throws Exception {
    SlicePublisher p = start();
    List<Device> devices = new ArrayList<>(gpus(300)); // 3 slices
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(published.generation(NODE)).isEqualTo(1);

    devices.set(0, gpu(0).toBuilder().attribute("model", "x").build());
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(published.generation(NODE)).isEqualTo(1);

    long before = writes();
    devices.set(1, gpu(1).toBuilder().attribute("model", "x").build());
    devices.set(299, gpu(299).toBuilder().attribute("model", "x").build());
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(published.generation(NODE)).isEqualTo(2);
    assertThat(writes() - before).as("every slice rewritten at the new generation").isEqualTo(3);

    // A new slice always bumps.
    devices.addAll(IntStream.range(300, 400).mapToObj(SlicePublisherTest::gpu).toList());
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(published.pool(NODE)).hasSize(4);
    assertThat(published.generation(NODE)).isEqualTo(3);
    assertAllValid();
  }

  /**
   * The order of the writes as the server saw them (its watch): a shrinking pool loses its extra
   * slice before the others say the pool has fewer, and a growing pool's existing slices say so
   * before the new one appears, so a consumer never sees more slices than the count claims.
   */
  @Test
  void writesReachTheServerDeletesFirstThenUpdatesThenCreates() throws Exception {
    SlicePublisher p = start();
    publishAndWait(p, Pool.of(NODE, gpus(300)));
    List<String> names = new ArrayList<>(published.versions(NODE).keySet());
    assertThat(names).hasSize(3);

    List<String> seen = new CopyOnWriteArrayList<>();
    String from = client.list(ResourceSlice.TYPE, "", ListOptions.ALL).resourceVersion();
    try (Watch w =
        client.watch(
            ResourceSlice.TYPE,
            "",
            ListOptions.ALL.withResourceVersion(from),
            new WatchHandler<ResourceSlice>() {
              @Override
              public void onEvent(WatchEvent<ResourceSlice> e) {
                if (e.type() != WatchEvent.Type.BOOKMARK) {
                  seen.add(e.type() + " " + e.object().metadata().name());
                }
              }

              @Override
              public void onClose(Optional<KubeException> error) {}
            })) {
      publishAndWait(p, Pool.of(NODE, gpus(200)));
      Await.until("3 watch events", WAIT, () -> seen.size() == 3);
      assertThat(seen.get(0)).isEqualTo("DELETED " + names.get(2));
      assertThat(seen.subList(1, 3))
          .containsExactlyInAnyOrder("MODIFIED " + names.get(0), "MODIFIED " + names.get(1));
      assertAllValid();

      seen.clear();
      publishAndWait(p, Pool.of(NODE, gpus(257)));
      Await.until("3 more watch events", WAIT, () -> seen.size() == 3);
      assertThat(seen.subList(0, 2))
          .containsExactlyInAnyOrder("MODIFIED " + names.get(0), "MODIFIED " + names.get(1));
      assertThat(seen.get(2)).startsWith("ADDED ");
      assertAllValid();
    }
  }

  @Test
  void aRemovedPoolLosesItsSlices() throws Exception {
    SlicePublisher p = start();
    Pool shared = Pool.builder("shared-" + NODE).devices(gpus(200)).build();
    publishAndWait(p, Pool.of(NODE, gpus(3)), shared);
    assertThat(published.pool(shared.name())).hasSize(2);
    assertAllValid();

    long before = writes();
    publishAndWait(p, Pool.of(NODE, gpus(3)));
    assertThat(published.pool(shared.name())).isEmpty();
    assertThat(published.pool(NODE)).hasSize(1);
    assertThat(writes() - before).isEqualTo(2);
    assertThat(p.stats().deletes()).isEqualTo(2);
    assertAllValid();

    // Nothing published: every slice goes.
    publishAndWait(p);
    assertThat(published.byPool()).isEmpty();
  }

  @Test
  void slicesWipedByTheKubeletAreRecreatedInOneCoalescedSync() throws Exception {
    SlicePublisher p = start(builder(client).resyncDelay(Duration.ofMillis(300)));
    publishAndWait(p, Pool.of(NODE, gpus(1000)));
    long syncs = p.stats().syncs();
    long generation = published.generation(NODE);

    // What the kubelet does at its start: DeleteCollection of every slice of the node.
    client.deleteCollection(ResourceSlice.TYPE, "", ListOptions.fields("spec.nodeName=" + NODE));
    assertThat(published.pool(NODE)).isEmpty();

    Await.until("the slices are back", WAIT, () -> published.pool(NODE).size() == 8);
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(published.devices(NODE)).isEqualTo(gpus(1000));
    assertThat(p.stats().creates()).isEqualTo(16);
    assertThat(p.stats().syncs() - syncs).as("eight delete events, one sync").isEqualTo(1);
    assertThat(published.generation(NODE)).as("never backwards").isGreaterThan(generation);
    assertAllValid();
  }

  @Test
  void aConflictMidSyncRereadsTheSliceAndConverges() throws Exception {
    SlicePublisher p = start();
    List<Device> devices = new ArrayList<>(gpus(1000));
    publishAndWait(p, Pool.of(NODE, devices));

    // Two slices change: a bump rewrites all 8; the first update fails with 409.
    long gets = server.requests("get", "resourceslices");
    server.faults().failNext("update", "resourceslices", 1, 409);
    devices.set(0, gpu(0).toBuilder().attribute("model", "x").build());
    devices.set(999, gpu(999).toBuilder().attribute("model", "x").build());
    publishAndWait(p, Pool.of(NODE, devices));

    assertThat(p.stats().conflicts()).isEqualTo(1);
    assertThat(server.requests("get", "resourceslices") - gets).as("fresh read").isEqualTo(1);
    assertThat(events.errors).singleElement().asString().contains("409");
    assertThat(published.devices(NODE)).isEqualTo(devices);
    assertAllValid();
  }

  @Test
  void aStaleCacheMeetsARealConflict() throws Exception {
    SlicePublisher p = start();
    List<Device> devices = new ArrayList<>(gpus(10));
    publishAndWait(p, Pool.of(NODE, devices));

    // Someone else edits the slice while the publisher's informer is cut off, so its
    // resourceVersion is stale when it writes: the API server answers 409.
    server.faults().failNext("watch", "resourceslices", 1000, 500);
    server.faults().failNext("list", "resourceslices", 1000, 500);
    server.faults().dropWatches();
    ResourceSlice s = published.pool(NODE).get(0);
    try (HttpKubeClient admin = newClient(0)) {
      admin.update(ResourceSlice.TYPE, s.withSpec(s.spec().withDevices(List.of(gpu(99)))));
    }
    devices.set(3, gpu(3).toBuilder().attribute("model", "x").build());
    p.publish(List.of(Pool.of(NODE, devices)));
    Await.until("a conflict", WAIT, () -> p.stats().conflicts() >= 1);
    server.faults().clear();
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(published.devices(NODE)).isEqualTo(devices);
    assertAllValid();
  }

  @Test
  void theApiServerGoingAwayIsRetriedWithBackoffUntilItIsBack() throws Exception {
    client.close();
    client = newClient(0);
    SlicePublisher p = start();
    List<Device> devices = new ArrayList<>(gpus(300));
    publishAndWait(p, Pool.of(NODE, devices));

    server.stop();
    devices.set(5, gpu(5).toBuilder().attribute("model", "x").build());
    p.publish(List.of(Pool.of(NODE, devices)));
    assertThat(p.awaitIdle(Duration.ofSeconds(1))).isFalse();
    long failures = p.stats().failures();
    assertThat(failures).isPositive();
    // Backoff from 20 ms to 200 ms: a handful of attempts in a second, not a hot loop.
    assertThat(failures).isLessThan(50);

    server.restart();
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(published.devices(NODE)).isEqualTo(devices);
    assertThat(published.generation(NODE)).isEqualTo(1);
    assertAllValid();
  }

  @Test
  void anInvalidPoolIsReportedOnceAndLeftAsItIsWhileOthersArePublished() throws Exception {
    SlicePublisher p = start();
    Pool good = Pool.builder("good").devices(gpus(2)).scope(PoolScope.allNodes()).build();
    Pool other = Pool.of(NODE, gpus(3));
    publishAndWait(p, other, good);
    Map<String, String> otherBefore = published.versions(NODE);

    Device bad = gpu(1).toBuilder().attribute("model", "x".repeat(70)).build();
    Pool broken = Pool.of(NODE, List.of(gpu(0), bad, gpu(2)));
    Pool good2 = Pool.builder("good").devices(gpus(4)).scope(PoolScope.allNodes()).build();
    publishAndWait(p, broken, good2);
    publishAndWait(p, broken, good2); // the same broken state again: no second report

    assertThat(events.invalid).hasSize(1);
    assertThat(p.stats().validationFailures()).isEqualTo(1);
    PoolValidation v = events.invalid.get(0);
    assertThat(v.poolName()).isEqualTo(NODE);
    assertThat(v.errorReport())
        .contains("pool \"node-1\"")
        .contains("device \"gpu-1\"")
        .contains("attributes[\"model\"]")
        .contains("70 bytes")
        .contains("64");
    assertThat(p.lastValidation()).extracting(PoolValidation::isValid).containsExactly(false, true);
    // The broken pool keeps its last valid slices; the good one is published.
    assertThat(published.versions(NODE)).isEqualTo(otherBefore);
    assertThat(published.devices("good")).isEqualTo(gpus(4));

    // Fixed: published.
    publishAndWait(p, Pool.of(NODE, gpus(5)), good2);
    assertThat(published.devices(NODE)).isEqualTo(gpus(5));
    assertAllValid();
  }

  /**
   * A cluster-wide publisher (no node) with what only such pools carry: per-device node selection
   * with a counter set, a node-selector pool, and a device with consumable capacity, multiple
   * allocations and binding conditions. What reaches the server passes the schema and the rules,
   * and reads back equal.
   */
  @Test
  void clusterWideScopesAndAdvancedDevicesArePublishedAsTheyAre() throws Exception {
    SlicePublisher p =
        start(
            SlicePublisher.builder(client, DRIVER)
                .listener(events)
                .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200)));
    Device nic =
        Device.builder("nic-0")
            .allowMultipleAllocations(true)
            .capacity(
                "bandwidth",
                DeviceCapacity.of(Quantity.parse("100G"))
                    .withRequestPolicy(
                        CapacityRequestPolicy.range(
                            Quantity.parse("1G"),
                            Quantity.parse("1G"),
                            Quantity.parse("100G"),
                            Quantity.parse("1G"))))
            .bindsToNode(true)
            .bindingConditions(List.of(DRIVER + "/attached"), List.of(DRIVER + "/attach-failed"))
            .build();
    NodeSelector rack =
        NodeSelector.of(
            List.of(
                NodeSelector.Term.of(
                    List.of(
                        NodeSelector.Requirement.of(
                            "topology.example.com/rack", "In", List.of("r1", "r2"))),
                    List.of())));
    Pool racks =
        Pool.builder("rack-r1").devices(List.of(nic)).scope(PoolScope.nodeSelector(rack)).build();
    Pool fabric =
        Pool.builder("fabric")
            .devices(
                List.of(
                    Device.builder("a").nodeName("node-1").build(),
                    Device.builder("b").allNodes(true).build(),
                    Device.builder("c").nodeSelector(NodeSelector.forNodeName("node-2")).build()))
            .counterSets(
                List.of(CounterSet.of("shared", Map.of("lanes", Counter.of(Quantity.of(8))))))
            .scope(PoolScope.perDevice())
            .build();
    publishAndWait(p, racks, fabric);

    assertThat(events.invalid).isEmpty();
    published.assertValid(Optional.empty(), "");
    assertThat(published.devices("rack-r1")).containsExactly(nic);
    assertThat(published.devices("fabric")).extracting(Device::name).containsExactly("a", "b", "c");
    assertThat(published.pool("fabric"))
        .anySatisfy(s -> assertThat(s.spec().sharedCounters()).hasSize(1));
    assertThat(published.pool("rack-r1").get(0).spec().nodeSelector()).contains(rack);
  }

  @Test
  void aNodeLocalPoolNeedsANodeName() throws Exception {
    SlicePublisher p =
        start(
            SlicePublisher.builder(client, DRIVER)
                .listener(events)
                .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200)));
    publishAndWait(
        p,
        Pool.of(NODE, gpus(1)),
        Pool.builder("net").devices(gpus(2)).scope(PoolScope.allNodes()).build());
    assertThat(events.invalid)
        .singleElement()
        .satisfies(
            v ->
                assertThat(v.errorReport())
                    .contains("pool \"node-1\"")
                    .contains("scope")
                    .contains("node-local"));
    assertThat(published.byPool().keySet()).containsExactly("net");
    published.assertValid(Optional.empty(), "");
  }

  @Test
  void poolsForAllNodesAreWatchedAndKeptToo() throws Exception {
    SlicePublisher p = start();
    Pool net = Pool.builder("fabric-a/rack-3").devices(gpus(2)).scope(PoolScope.allNodes()).build();
    publishAndWait(p, Pool.of(NODE, gpus(1)), net);
    ResourceSlice s = published.pool(net.name()).get(0);
    assertThat(s.metadata().name()).startsWith("00000-gpu.example.com-fabric-a-rack-3-");
    assertThat(s.spec().allNodes()).isTrue();
    assertThat(s.metadata().ownerReferences()).isEmpty();
    assertAllValid();

    long before = writes();
    publishAndWait(p, Pool.of(NODE, gpus(1)), net);
    assertThat(writes()).isEqualTo(before);

    // Deleted behind our back: recreated like a node-local slice.
    client.delete(ResourceSlice.TYPE, "", s.metadata().name(), io.dra4j.kube.Preconditions.NONE);
    Await.until("the all-nodes slice is back", WAIT, () -> published.pool(net.name()).size() == 1);

    publishAndWait(p, Pool.of(NODE, gpus(1)));
    assertThat(published.pool(net.name())).isEmpty();
    assertAllValid();
  }

  @Test
  void aRestartedPublisherTakesOverWithoutRewriting() throws Exception {
    SlicePublisher first = start();
    publishAndWait(first, Pool.of(NODE, gpus(1000)));
    first.close();

    long before = writes();
    SlicePublisher second = start();
    publishAndWait(second, Pool.of(NODE, gpus(1000)));
    assertThat(writes()).isEqualTo(before);

    List<Device> changed = new ArrayList<>(gpus(1000));
    changed.set(7, gpu(7).toBuilder().attribute("model", "x").build());
    publishAndWait(second, Pool.of(NODE, changed));
    assertThat(writes() - before).isEqualTo(1);
    assertAllValid();
  }

  @Test
  void aRestartedPublisherDeletesPoolsThatWentAwayMeanwhile() throws Exception {
    SlicePublisher first = start();
    publishAndWait(first, Pool.of(NODE, gpus(3)), Pool.builder("extra").devices(gpus(3)).build());
    first.close();

    SlicePublisher second = start();
    publishAndWait(second, Pool.of(NODE, gpus(3)));
    assertThat(published.byPool().keySet()).containsExactly(NODE);
    assertAllValid();
  }

  @Test
  void ownWritesAreNotRepeatedWhileTheInformerLags() throws Exception {
    SlicePublisher p = start();
    publishAndWait(p, Pool.of(NODE, gpus(10)));

    // Cut the informer off: it sees none of the writes below until the faults are cleared.
    server.faults().failNext("watch", "resourceslices", 1000, 500);
    server.faults().failNext("list", "resourceslices", 1000, 500);
    server.faults().dropWatches();

    long before = writes();
    publishAndWait(p, Pool.of(NODE, gpus(200))); // 10 -> 200 devices: 1 update + 1 create
    assertThat(writes() - before).isEqualTo(2);
    publishAndWait(p, Pool.of(NODE, gpus(200))); // unchanged: nothing, though the cache is stale
    assertThat(writes() - before).isEqualTo(2);
    List<Device> changed = new ArrayList<>(gpus(200));
    changed.set(150, gpu(150).toBuilder().attribute("model", "x").build());
    publishAndWait(p, Pool.of(NODE, changed)); // an update of the slice created above
    assertThat(writes() - before).isEqualTo(3);
    assertThat(p.stats().conflicts()).isZero();

    server.faults().clear();
    Await.until("the informer is back", WAIT, () -> server.openWatches() > 0);
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(published.pool(NODE)).hasSize(2);
    assertThat(published.devices(NODE)).isEqualTo(changed);
    assertThat(writes() - before).isEqualTo(3);
    assertAllValid();
  }

  @Test
  void droppedFieldsAreReportedOnceAndNotRewritten() throws Exception {
    // An API server with DRADeviceTaints off: it stores slices without the taints.
    KubeClient gateOff = GateOffClient.deviceTaints(client);
    SlicePublisher p = start(builder(gateOff).dynamicTaints(true));
    List<Device> devices = new ArrayList<>(gpus(128));
    devices.set(3, gpu(3).toBuilder().taint(unhealthy()).build());
    publishAndWait(p, Pool.of(NODE, devices));

    assertThat(events.dropped).containsExactly("node-1#0 [DRADeviceTaints]");
    assertThat(p.stats().droppedFieldReports()).isEqualTo(1);
    assertThat(published.devices(NODE)).isEqualTo(gpus(128));

    long before = writes();
    publishAndWait(p, Pool.of(NODE, devices));
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(writes()).as("no update loop").isEqualTo(before);
    assertThat(events.dropped).hasSize(1);

    // A real change elsewhere still gets through.
    devices.set(100, gpu(100).toBuilder().attribute("model", "x").build());
    publishAndWait(p, Pool.of(NODE, devices));
    assertThat(writes() - before).isEqualTo(1);
    assertThat(published.devices(NODE).get(100).attributes().get("model").javaValue())
        .isEqualTo("x");
    assertAllValid();
  }

  @Test
  void droppedAlphaFieldsReachTheErrorHandlerAsATypedErrorNamingTheirGates() throws Exception {
    List<DriverError> heard = new CopyOnWriteArrayList<>();
    SlicePublisher p =
        start(
            builder(GateOffClient.partitionTypeAndOptionalNodeOperations(client))
                .errorHandler(heard::add));
    Device slot =
        gpu(0).toBuilder()
            .attribute("profile", "1g.10gb")
            .consumesCounters(
                DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(Quantity.of(1)))))
            .build();
    Pool pool =
        Pool.builder(NODE)
            .devices(List.of(slot))
            .counterSets(
                List.of(CounterSet.of("gpu-0", Map.of("memory", Counter.of(Quantity.of(8))))))
            .partitionTypeAttribute(DRIVER + "/profile")
            .skipNodeOperations(SkipNodeOperation.ALL)
            .build();
    publishAndWait(p, pool);

    // Slice #0 holds the counter set (it gets skipNodeOperations only), #1 the device.
    assertThat(events.dropped)
        .containsExactlyInAnyOrder(
            "node-1#0 [DRAOptionalNodeOperations]",
            "node-1#1 [DRAPartitionableDevicesType, DRAOptionalNodeOperations]");
    DroppedFieldsException e =
        heard.stream()
            .map(DriverError::cause)
            .flatMap(Optional::stream)
            .filter(DroppedFieldsException.class::isInstance)
            .map(DroppedFieldsException.class::cast)
            .filter(x -> x.sliceIndex() == 1)
            .findFirst()
            .orElseThrow();
    assertThat(e.pool()).isEqualTo(NODE);
    assertThat(e.disabledFeatures())
        .containsExactly("DRAPartitionableDevicesType", "DRAOptionalNodeOperations");

    long before = writes();
    publishAndWait(p, pool);
    assertThat(writes()).as("the stored form is adopted: no update loop").isEqualTo(before);
  }
}
