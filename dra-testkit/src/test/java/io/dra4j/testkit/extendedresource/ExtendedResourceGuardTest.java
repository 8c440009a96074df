package io.dra4j.testkit.extendedresource;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard.Policy;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.extendedresource.GuardReport.Conflict;
import io.dra4j.runtime.extendedresource.GuardReport.DeviceRef;
import io.dra4j.runtime.extendedresource.GuardReport.Phase;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.allocator.ExtendedResourceMapping;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.DeviceManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guard against the fake API server over real HTTP: DeviceClasses and the Node come through the
 * informers, node status changes are seen as the kubelet would write them, and CEL selectors are
 * evaluated on the fake provider's devices.
 */
class ExtendedResourceGuardTest {

  static final String DRIVER = "fake.dra4j.io";
  static final String NODE = "node-1";
  static final String GPU = "example.com/gpu";
  static final Duration WAIT = Duration.ofSeconds(20);
  static final String OURS = "device.driver == '" + DRIVER + "'";
  static final String FIRST_FOUR = "device.attributes['" + DRIVER + "'].index < 4";

  FakeApiServer server;
  HttpKubeClient client;
  List<Pool> pools;
  final List<ExtendedResourceGuard> guards = new ArrayList<>();

  /** What a driver republishing on every change listener call would publish, in order. */
  final List<List<String>> published = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    server = FakeApiServer.start();
    client = server.newClient();
    pools =
        new FakeDeviceProvider()
            .discover(
                ProviderContext.builder(DRIVER, NODE)
                    .config(FakeDeviceProvider.CONFIG_DEVICES, "8")
                    .build())
            .pools();
  }

  @AfterEach
  void tearDown() {
    guards.forEach(ExtendedResourceGuard::close);
    client.close();
    server.close();
  }

  ExtendedResourceGuard start(ExtendedResourceGuard.Builder builder) throws Exception {
    ExtendedResourceGuard guard = builder.build();
    guards.add(guard);
    guard.addChangeListener(() -> published.add(names(guard.filter(pools))));
    guard.setDevices(pools);
    guard.start();
    assertThat(guard.awaitSynced(WAIT)).isTrue();
    return guard;
  }

  ExtendedResourceGuard.Builder guard(Policy policy) {
    return ExtendedResourceGuard.builder(client, DRIVER, NODE).policy(policy);
  }

  Node node(String value) throws KubeException {
    Map<String, Quantity> m = Map.of(GPU, Quantity.parse(value), "cpu", Quantity.of(64));
    return server.put(Node.TYPE, Node.of(ObjectMeta.named("", NODE), Node.Status.of(m, m)));
  }

  /** Writes the node's status through the API, as the kubelet does when a device plugin goes. */
  void setNodeValue(String capacity, String allocatable) throws KubeException {
    Node current = client.get(Node.TYPE, "", NODE);
    client.updateStatus(
        Node.TYPE,
        current.withStatus(
            Node.Status.of(
                Map.of(GPU, Quantity.parse(capacity), "cpu", Quantity.of(64)),
                Map.of(GPU, Quantity.parse(allocatable), "cpu", Quantity.of(64)))));
  }

  DeviceClass createClass(String name, Optional<String> explicit, String... cel)
      throws KubeException {
    DeviceClass.Spec spec =
        DeviceClass.Spec.of(Arrays.stream(cel).map(DeviceSelector::cel).toList());
    return client.create(
        DeviceClass.TYPE,
        DeviceClass.of(
            ObjectMeta.named("", name), explicit.map(spec::withExtendedResourceName).orElse(spec)));
  }

  static List<String> names(List<Pool> pools) {
    return pools.stream().flatMap(p -> p.devices().stream()).map(Device::name).toList();
  }

  @Test
  void waitFollowsTheKubeletsDeviceManagerThroughEveryPhaseOfAMigrationAndBack() throws Exception {
    node("0");
    createClass("gpu-first-four", Optional.of(GPU), OURS, FIRST_FOUR);
    try (DeviceManager kubelet = DeviceManager.start(client, NODE, Duration.ofMillis(300))) {
      kubelet.register(GPU, 4);
      ExtendedResourceGuard g = start(guard(Policy.WAIT));
      Await.until("the plugin's 4 seen", WAIT, () -> !g.report().conflicts().isEmpty());

      // Phase device-plugin: the class's four devices are held back.
      assertThat(names(g.filter(pools))).containsExactly("gpu-4", "gpu-5", "gpu-6", "gpu-7");
      GuardReport r = g.report();
      assertThat(r.blocking()).isTrue();
      assertThat(r.waitingSince()).isPresent();
      assertThat(r.conflicts())
          .containsExactly(
              new Conflict(
                  GPU,
                  List.of("gpu-first-four"),
                  NODE,
                  Optional.of(Quantity.of(4)),
                  Optional.of(Quantity.of(4)),
                  List.of(
                      new DeviceRef(NODE, "gpu-0"),
                      new DeviceRef(NODE, "gpu-1"),
                      new DeviceRef(NODE, "gpu-2"),
                      new DeviceRef(NODE, "gpu-3"))));
      assertThat(phase(g)).isEqualTo(Phase.DEVICE_PLUGIN);

      // The plugin stops: allocatable 0 at once, capacity 4 for the grace period. The scheduler
      // hands the name to DRA now, so the guard publishes now.
      int mark = published.size();
      kubelet.stop(GPU);
      awaitPublished(mark, names(pools));
      assertThat(g.filter(pools)).isEqualTo(pools);
      assertThat(g.report().blocking()).isFalse();
      assertThat(g.report().waitingSince()).isEmpty();
      assertThat(phase(g)).isIn(Phase.PLUGIN_STOPPED, Phase.DRA);

      // The grace period ends: capacity 0, the name stays at 0. Migrated; nothing to republish.
      Await.until("capacity 0 after the grace period", WAIT, () -> phase(g) == Phase.DRA);
      assertThat(client.get(Node.TYPE, "", NODE).status().capacity())
          .containsEntry(GPU, Quantity.of(0));
      assertThat(g.filter(pools)).isEqualTo(pools);

      // The device plugin comes back while the devices are out: withdrawn.
      mark = published.size();
      kubelet.register(GPU, 2);
      awaitPublished(mark, List.of("gpu-4", "gpu-5", "gpu-6", "gpu-7"));
      assertThat(phase(g)).isEqualTo(Phase.DEVICE_PLUGIN);

      // A running plugin whose devices are all unhealthy shows allocatable 0 too: the scheduler
      // uses DRA, and so does the guard.
      mark = published.size();
      kubelet.health(GPU, 0);
      awaitPublished(mark, names(pools));
      assertThat(phase(g)).isEqualTo(Phase.PLUGIN_STOPPED);
    }
  }

  static Phase phase(ExtendedResourceGuard g) {
    return g.report().names().stream()
        .filter(n -> n.resourceName().equals(GPU))
        .findFirst()
        .orElseThrow()
        .phase();
  }

  @Test
  void aNameThatDisappearsFromTheNodeUnblocksToo() throws Exception {
    node("4");
    createClass("gpu", Optional.of(GPU), OURS);
    ExtendedResourceGuard g = start(guard(Policy.WAIT));
    assertThat(names(g.filter(pools))).isEmpty();
    assertThat(g.filter(pools)).hasSize(1); // the pool stays, empty
    Node current = client.get(Node.TYPE, "", NODE);
    client.updateStatus(
        Node.TYPE,
        current.withStatus(
            Node.Status.of(Map.of("cpu", Quantity.of(64)), Map.of("cpu", Quantity.of(64)))));
    Await.until("devices let through", WAIT, () -> g.filter(pools).equals(pools));
  }

  @Test
  void warnPublishesAndReports() throws Exception {
    node("4");
    createClass("gpu", Optional.of(GPU), OURS);
    ExtendedResourceGuard g = start(guard(Policy.WARN));
    assertThat(g.filter(pools)).isEqualTo(pools);
    assertThat(g.report().conflicts())
        .singleElement()
        .satisfies(c -> assertThat(c.affectedDevices()).hasSize(8));
    assertThat(g.report().blocking()).isFalse();
  }

  @Test
  void failCallsTheFatalHandlerWithClassNameNodeAndValue() throws Exception {
    node("4");
    CompletableFuture<String> fatal = new CompletableFuture<>();
    createClass("gpu", Optional.of(GPU), OURS);
    ExtendedResourceGuard g =
        start(guard(Policy.FAIL).errorHandler(e -> fatal.complete(e.message())));
    assertThat(fatal.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .contains("DeviceClass gpu", GPU, "node " + NODE, "capacity 4", "allocatable 4");
    // Until the driver has exited, what it exits for is not published.
    assertThat(g.filter(pools)).isNotEmpty().allSatisfy(p -> assertThat(p.devices()).isEmpty());
  }

  @Test
  void failAlsoFiresForAConflictThatAppearsLater() throws Exception {
    node("0");
    CompletableFuture<String> fatal = new CompletableFuture<>();
    ExtendedResourceGuard g =
        start(guard(Policy.FAIL).errorHandler(e -> fatal.complete(e.message())));
    assertThat(g.report().conflicts()).isEmpty();
    // An admin adds a class for a name the node's device plugin still serves.
    setNodeValue("8", "8");
    createClass("late", Optional.of(GPU), OURS);
    assertThat(fatal.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .contains("DeviceClass late", "capacity 8");
  }

  @Test
  void aClassForAnotherDriverNeverMatters() throws Exception {
    node("4");
    createClass("other-gpu", Optional.of(GPU), "device.driver == 'other.example.com'");
    ExtendedResourceGuard g = start(guard(Policy.WAIT));
    assertThat(g.filter(pools)).isEqualTo(pools);
    assertThat(g.report().conflicts()).isEmpty();
    assertThat(g.report().synced()).isTrue();
    assertThat(g.report().nodeFound()).isTrue();
  }

  @Test
  void aClassWithoutSelectorsSelectsOurDevicesToo() throws Exception {
    node("4");
    createClass("everything", Optional.of(GPU));
    ExtendedResourceGuard g = start(guard(Policy.WAIT));
    assertThat(names(g.filter(pools))).isEmpty();
  }

  @Test
  void duplicatesNameTheWinnerByCreationTimeThenByName() throws Exception {
    node("0");
    // Two classes created in the same second: the lexicographically first name wins.
    DeviceClass b;
    DeviceClass a;
    int attempts = 0;
    do {
      for (String n : List.of("b-tie", "a-tie")) {
        try {
          client.delete(DeviceClass.TYPE, "", n, io.dra4j.kube.Preconditions.NONE);
        } catch (KubeException e) {
          // not there yet
        }
      }
      Await.nextSecond();
      b = createClass("b-tie", Optional.of(GPU), OURS);
      a = createClass("a-tie", Optional.of(GPU), OURS);
    } while (!a.metadata().creationTimestamp().equals(b.metadata().creationTimestamp())
        && ++attempts < 3);
    assertThat(a.metadata().creationTimestamp()).isEqualTo(b.metadata().creationTimestamp());
    ExtendedResourceGuard g = start(guard(Policy.WAIT));
    assertThat(g.report().duplicates())
        .containsExactly(new GuardReport.Duplicate(GPU, "a-tie", List.of("b-tie")));
    assertThat(schedulerChoice()).isEqualTo("a-tie");

    // A class created later wins over both, whatever its name.
    Await.nextSecond();
    DeviceClass z = createClass("z-new", Optional.of(GPU), OURS);
    assertThat(z.metadata().creationTimestamp()).isNotEqualTo(a.metadata().creationTimestamp());
    Await.until(
        "the new duplicate",
        WAIT,
        () ->
            g.report()
                .duplicates()
                .equals(
                    List.of(new GuardReport.Duplicate(GPU, "z-new", List.of("a-tie", "b-tie")))));
    assertThat(schedulerChoice()).isEqualTo("z-new");
  }

  /** What the test kit's allocator (an independent reading of KEP-5004) maps the name to. */
  private String schedulerChoice() throws KubeException {
    return ExtendedResourceMapping.of(client.list(DeviceClass.TYPE, "", ListOptions.ALL).items())
        .deviceClass(GPU)
        .orElseThrow()
        .metadata()
        .name();
  }

  @Test
  void implicitNamesOfLongClassNamesAreReportedUnusable() throws Exception {
    node("0");
    String longName = "gpu-" + "x".repeat(50) + ".example.com"; // 66 characters
    createClass(longName, Optional.empty(), OURS);
    createClass("short", Optional.empty(), OURS);
    ExtendedResourceGuard g = start(guard(Policy.WAIT));
    assertThat(g.report().unusableImplicitNames())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.deviceClass()).isEqualTo(longName);
              assertThat(u.resourceName())
                  .isEqualTo(DeviceClass.IMPLICIT_EXTENDED_RESOURCE_PREFIX + longName);
              assertThat(u.reason()).contains("66 characters, the limit is 63");
            });
  }

  @Test
  void anImplicitNameAdvertisedByTheNodeIsAConflict() throws Exception {
    String implicit = DeviceClass.IMPLICIT_EXTENDED_RESOURCE_PREFIX + "gpu.fake.dra4j.io";
    Map<String, Quantity> m = Map.of(implicit, Quantity.of(1));
    server.put(Node.TYPE, Node.of(ObjectMeta.named("", NODE), Node.Status.of(m, m)));
    createClass("gpu.fake.dra4j.io", Optional.empty(), OURS);
    ExtendedResourceGuard g = start(guard(Policy.WAIT));
    assertThat(g.report().conflicts()).extracting(Conflict::resourceName).containsExactly(implicit);
    assertThat(names(g.filter(pools))).isEmpty();
  }

  @Test
  void aMissingNodeIsReportedAndBlocksNothing() throws Exception {
    createClass("gpu", Optional.of(GPU), OURS);
    ExtendedResourceGuard g = start(guard(Policy.WAIT));
    assertThat(g.report().nodeFound()).isFalse();
    assertThat(g.filter(pools)).isEqualTo(pools);
    // The node registers with a device plugin still running: blocked from then on.
    int mark = published.size();
    node("4");
    awaitPublished(mark, List.of());
    assertThat(names(g.filter(pools))).isEmpty();
  }

  /** Waits for a republish (a change listener call) after {@code mark} of exactly these. */
  private void awaitPublished(int mark, List<String> devices) throws InterruptedException {
    Await.until(
        "a republish with " + devices,
        WAIT,
        () -> published.subList(mark, published.size()).contains(devices));
  }
}
