package io.dra4j.testkit.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DroppedFieldsException;
import io.dra4j.runtime.slices.ResourceSlicePublisher;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ResourceSlicePublisher}, the exported publisher without a kubelet plugin, against the fake
 * API server over real HTTP: its owners, which slices it takes as its own, what it deletes and
 * when, and its reports. How a pool is validated, split and synchronized is the node driver's
 * publisher ({@link SlicePublisherTest}); here only that it is the same.
 */
class ResourceSlicePublisherTest {
  static final String DRIVER = "fabric.example.com";
  static final Duration WAIT = Duration.ofSeconds(20);
  static final NodeSelector RACK_A =
      NodeSelector.of(
          List.of(
              NodeSelector.Term.of(
                  List.of(
                      NodeSelector.Requirement.of(
                          "topology.example.com/rack", "In", List.of("rack-a"))),
                  List.of())));

  FakeApiServer server;
  HttpKubeClient client;
  PublishedSlices published;
  final List<ResourceSlicePublisher> publishers = new ArrayList<>();
  final List<DriverError> errors = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startServer() {
    server = FakeApiServer.start();
    client =
        server
            .clientBuilder()
            .retries(0, Duration.ofMillis(10), Duration.ofMillis(50))
            .callTimeout(Duration.ofSeconds(3))
            .build();
    published = new PublishedSlices(server, DRIVER);
  }

  @AfterEach
  void stop() {
    publishers.forEach(ResourceSlicePublisher::close);
    client.close();
    server.close();
  }

  ResourceSlicePublisher start(ResourceSlicePublisher.Builder b) {
    ResourceSlicePublisher p = b.errorHandler(errors::add).start();
    publishers.add(p);
    return p;
  }

  static void publishAndWait(ResourceSlicePublisher p, Pool... pools) throws InterruptedException {
    p.publish(List.of(pools));
    assertThat(p.awaitIdle(WAIT)).as("publisher idle").isTrue();
  }

  static List<Device> ports(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> Device.builder("port-" + i).attribute("speed", "100G").build())
        .toList();
  }

  static Pool rack(String name, int ports) {
    return Pool.builder(name).devices(ports(ports)).scope(PoolScope.nodeSelector(RACK_A)).build();
  }

  /** The slice of a one-device pool as another writer (an earlier run) left it. */
  ResourceSlice leftBy(ResourceSlicePublisher.Builder writer, Pool pool) throws Exception {
    try (ResourceSlicePublisher p = writer.start()) {
      publishAndWait(p, pool);
    }
    return server.objects(ResourceSlice.TYPE).stream()
        .filter(s -> s.spec().pool().name().equals(pool.name()))
        .findFirst()
        .orElseThrow();
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void withoutOwnerEveryScopeButTheNodesIsPublishedSplitAndUnowned() throws Exception {
    ResourceSlicePublisher p = start(ResourceSlicePublisher.builder(client, DRIVER));
    Pool perDevice =
        Pool.builder("attached")
            .devices(
                List.of(
                    Device.builder("accel-0").nodeName("node-1").build(),
                    Device.builder("accel-1")
                        .nodeSelector(NodeSelector.forNodeName("node-2"))
                        .build()))
            .scope(PoolScope.perDevice())
            .build();
    Pool shared = Pool.builder("shared").devices(ports(2)).scope(PoolScope.allNodes()).build();
    publishAndWait(p, rack("rack-a", 300), shared, perDevice, Pool.of("node-1", ports(1)));

    // The node driver's splitting: 300 devices need three slices.
    assertThat(published.pool("rack-a")).hasSize(3);
    assertThat(published.devices("rack-a")).isEqualTo(ports(300));
    assertThat(published.pool("rack-a").get(0).spec().nodeSelector()).contains(RACK_A);
    assertThat(published.pool("shared").get(0).spec().allNodes()).isTrue();
    assertThat(published.pool("attached").get(0).spec().perDeviceNodeSelection()).isTrue();
    // No owner: the pool name in the generated name, no owner reference.
    assertThat(published.pool("shared").get(0).metadata().name())
        .startsWith("00000-fabric.example.com-shared-");
    published.assertValid(Optional.empty(), "");

    // The node-local pool has no node here: reported, not published; the others went ahead.
    assertThat(published.byPool().keySet()).containsOnly("rack-a", "shared", "attached");
    assertThat(errors)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo(DriverError.Source.SLICES);
              assertThat(e.isFatal()).isFalse();
              assertThat(e.message()).contains("pool \"node-1\"", "node-local", "Node");
            });
    assertThat(p.stats().validationFailures()).isEqualTo(1);
  }

  @Test
  void anOwnerControlsEverySliceItCreatesAndNamesThem() throws Exception {
    ResourceSlicePublisher p =
        start(
            ResourceSlicePublisher.builder(client, DRIVER)
                .owner("resource.k8s.io/v1", "DeviceClass", "fabric", "uid-1"));
    publishAndWait(p, rack("rack-a", 200));

    OwnerReference owner =
        new OwnerReference("resource.k8s.io/v1", "DeviceClass", "fabric", "uid-1", true, false);
    published.assertValid(Optional.empty(), "", Optional.of(owner));
    assertThat(published.pool("rack-a"))
        .hasSize(2)
        .allSatisfy(
            s -> assertThat(s.metadata().name()).matches("0000[01]-fabric.example.com-fabric-.*"));
  }

  @Test
  void aNodeOwnerPublishesTheNodesPoolsAndOwnsItsOtherPoolsToo() throws Exception {
    String uid = server.putNode("node-1").metadata().uid();
    ResourceSlicePublisher p =
        start(ResourceSlicePublisher.builder(client, DRIVER).nodeOwner("node-1"));
    publishAndWait(p, Pool.of("node-1", ports(1)), rack("rack-a", 1));

    assertThat(errors).isEmpty();
    assertThat(published.pool("node-1").get(0).spec().nodeName()).contains("node-1");
    // The uid was looked up once and given to both.
    published.assertValid(
        Optional.of("node-1"), uid, Optional.of(OwnerReference.node("node-1", uid)));
  }

  @Test
  void itTakesEveryUnnodedSliceOfItsDriverAsItsOwnButOnlyOnceItHasADesiredState() throws Exception {
    server.putNode("node-9");
    ResourceSlice stale = leftBy(ResourceSlicePublisher.builder(client, DRIVER), rack("gone", 1));
    ResourceSlice onANode =
        leftBy(
            ResourceSlicePublisher.builder(client, DRIVER).nodeOwner("node-9"),
            Pool.of("node-9", ports(1)));
    ResourceSlice otherDriver =
        leftBy(ResourceSlicePublisher.builder(client, "other.example.com"), rack("other", 1));

    ResourceSlicePublisher p = start(ResourceSlicePublisher.builder(client, DRIVER));
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(p.stats().writes()).as("nothing deleted before a desired state").isZero();
    assertThat(slice(stale)).isPresent();

    publishAndWait(p, rack("rack-a", 1));
    assertThat(slice(stale)).as("a pool it does not publish").isEmpty();
    assertThat(slice(onANode)).as("a node's slice is not its own").isPresent();
    assertThat(slice(otherDriver)).as("another driver's slice").isPresent();

    // Uninstalling without an owner: an empty desired state deletes what it published.
    publishAndWait(p);
    assertThat(published.byPool().keySet()).containsOnly("node-9");
  }

  @Test
  void anEmptyFirstStateDeletesWhatTheFirstListHoldsBeforeItIsIdle() throws Exception {
    leftBy(ResourceSlicePublisher.builder(client, DRIVER), rack("gone", 300));
    ResourceSlicePublisher p =
        start(ResourceSlicePublisher.builder(client, DRIVER).pools(List.of()));
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(published.byPool()).isEmpty();
    assertThat(p.stats().deletes()).isEqualTo(3);
  }

  @Test
  void initialPoolsArePublishedAtStart() throws Exception {
    ResourceSlicePublisher p =
        start(ResourceSlicePublisher.builder(client, DRIVER).pools(List.of(rack("rack-a", 3))));
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(published.devices("rack-a")).isEqualTo(ports(3));
  }

  @Test
  void aSliceDeletedBehindItsBackIsBackAfterTheSyncDelay() throws Exception {
    ResourceSlicePublisher p =
        start(ResourceSlicePublisher.builder(client, DRIVER).syncDelay(Duration.ofMillis(200)));
    publishAndWait(p, rack("rack-a", 1));
    ResourceSlice s = published.pool("rack-a").get(0);
    client.delete(ResourceSlice.TYPE, "", s.metadata().name(), Preconditions.NONE);
    Await.until("the slice is recreated", WAIT, () -> published.pool("rack-a").size() == 1);
    assertThat(p.awaitIdle(WAIT)).isTrue();
    assertThat(p.stats().creates()).isEqualTo(2);
  }

  @Test
  void droppedFieldsReachTheErrorHandlerNamingTheGate() throws Exception {
    ResourceSlicePublisher p =
        start(ResourceSlicePublisher.builder(GateOffClient.deviceTaints(client), DRIVER));
    List<Device> devices = new ArrayList<>(ports(2));
    devices.set(
        1,
        devices.get(1).toBuilder()
            .taint(DeviceTaint.of(DRIVER + "/down", "link", TaintEffect.NO_SCHEDULE))
            .build());
    publishAndWait(p, Pool.builder("shared").devices(devices).scope(PoolScope.allNodes()).build());

    assertThat(p.stats().droppedFieldReports()).isEqualTo(1);
    assertThat(errors)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.message()).contains("pool \"shared\"", "DRADeviceTaints");
              assertThat(e.cause())
                  .get()
                  .isInstanceOfSatisfying(
                      DroppedFieldsException.class,
                      d -> {
                        assertThat(d.pool()).isEqualTo("shared");
                        assertThat(d.disabledFeatures()).containsExactly("DRADeviceTaints");
                      });
            });
  }

  @Test
  void anOwnerIsComplete() {
    ResourceSlicePublisher.Builder b = ResourceSlicePublisher.builder(client, DRIVER);
    assertThatThrownBy(() -> b.owner("resource.k8s.io/v1", "DeviceClass", "fabric", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs its uid");
    assertThatThrownBy(() -> b.owner("v1", "", "x", "uid"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("owner kind");
  }

  private Optional<ResourceSlice> slice(ResourceSlice s) {
    return server.object(ResourceSlice.TYPE, "", s.metadata().name());
  }
}
