package io.dra4j.runtime.extendedresource;

import static io.dra4j.runtime.extendedresource.Classes.DRIVER;
import static io.dra4j.runtime.extendedresource.Classes.NODE;
import static io.dra4j.runtime.extendedresource.Classes.T1;
import static io.dra4j.runtime.extendedresource.Classes.T2;
import static io.dra4j.runtime.extendedresource.Classes.cls;
import static io.dra4j.runtime.extendedresource.Classes.node;
import static io.dra4j.runtime.extendedresource.Classes.ours;
import static io.dra4j.runtime.extendedresource.Classes.pools;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.provider.Pool;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeList;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceType;
import io.dra4j.kube.Watch;
import io.dra4j.kube.WatchHandler;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard.Policy;
import io.dra4j.runtime.testsupport.Await;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The guard's state handling without an API server: the informers are not started and the cluster
 * state is handed in through {@code update}; time is a manual clock. The informer path is tested
 * against the fake API server in dra-testkit.
 */
class ExtendedResourceGuardTest {

  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  /** A clock the test moves. */
  static final class ManualClock extends Clock {
    volatile Instant now = T0;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }
  }

  /** The guard under test never talks to the API server here. */
  static final KubeClient NO_CLIENT =
      new KubeClient() {
        @Override
        public <T> T get(ResourceType<T> type, String namespace, String name) {
          throw new UnsupportedOperationException();
        }

        @Override
        public <T> KubeList<T> list(ResourceType<T> type, String namespace, ListOptions options) {
          throw new UnsupportedOperationException();
        }

        @Override
        public <T> Watch watch(
            ResourceType<T> type, String namespace, ListOptions options, WatchHandler<T> handler) {
          throw new UnsupportedOperationException();
        }

        @Override
        public <T> T create(ResourceType<T> type, T object) {
          throw new UnsupportedOperationException();
        }

        @Override
        public <T> T update(ResourceType<T> type, T object) {
          throw new UnsupportedOperationException();
        }

        @Override
        public <T> T updateStatus(ResourceType<T> type, T object) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void delete(
            ResourceType<?> type, String namespace, String name, Preconditions preconditions) {
          throw new UnsupportedOperationException();
        }

        @Override
        public <T> T apply(
            ResourceType<T> type,
            String namespace,
            String name,
            String subresource,
            Map<String, Object> patch,
            ApplyOptions options) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}
      };

  final ManualClock clock = new ManualClock();
  final List<String> logs = new CopyOnWriteArrayList<>();
  final List<String> fatal = new CopyOnWriteArrayList<>();
  final AtomicInteger changes = new AtomicInteger();
  ExtendedResourceGuard guard;

  ExtendedResourceGuard guard(Policy policy) {
    guard =
        ExtendedResourceGuard.builder(NO_CLIENT, DRIVER, NODE)
            .policy(policy)
            .clock(clock)
            .logInterval(Duration.ofSeconds(60))
            .errorHandler(
                e -> {
                  if (e.isFatal()) {
                    fatal.add(e.message());
                  }
                })
            .logTap((level, line) -> logs.add(level + " " + line))
            .build();
    guard.addChangeListener(changes::incrementAndGet);
    return guard;
  }

  @AfterEach
  void close() {
    if (guard != null) {
      guard.close();
    }
  }

  List<String> waitingLogs() {
    return logs.stream().filter(l -> l.contains("waiting")).toList();
  }

  @Test
  void waitHoldsDevicesBackUntilAllocatableIsZeroAndLogsAtMostEveryInterval() {
    ExtendedResourceGuard g = guard(Policy.WAIT);
    List<Pool> pools = pools(3);
    g.setDevices(pools);
    // Before the first sync nothing is known: nothing is published.
    assertThat(g.filter(pools)).singleElement().satisfies(p -> assertThat(p.devices()).isEmpty());
    assertThat(g.report().blocking()).isTrue();

    DeviceClass c = ours("gpu", "example.com/gpu");
    g.update(List.of(c), Optional.of(node("example.com/gpu", "4")));
    assertThat(changes).hasValue(1);
    assertThat(g.filter(pools)).singleElement().satisfies(p -> assertThat(p.devices()).isEmpty());
    GuardReport r = g.report();
    assertThat(r.blocking()).isTrue();
    assertThat(r.waitingSince()).contains(T0);
    assertThat(r.affectedDevices()).hasSize(3);
    assertThat(waitingLogs()).hasSize(1);
    assertThat(waitingLogs().get(0))
        .startsWith("WARN driver=gpu.example.com node=node-1: waiting since " + T0)
        .contains("example.com/gpu", "DeviceClass gpu", "capacity 4", "node-1/gpu-0");

    // Node updates that change nothing: no log, no change.
    g.update(List.of(c), Optional.of(node("example.com/gpu", "4")));
    clock.advance(Duration.ofSeconds(30));
    g.remind();
    assertThat(waitingLogs()).hasSize(1);
    clock.advance(Duration.ofSeconds(30));
    g.remind();
    assertThat(waitingLogs()).hasSize(2);
    clock.advance(Duration.ofSeconds(1));
    g.remind();
    assertThat(waitingLogs()).hasSize(2);
    assertThat(changes).hasValue(1);

    // The device plugin stopped: the kubelet reports allocatable 0 at once and keeps the
    // capacity for its endpointStopGracePeriod. The scheduler already sends the pods to DRA.
    g.update(
        List.of(c),
        Optional.of(node(Map.of("example.com/gpu", "4"), Map.of("example.com/gpu", "0"))));
    assertThat(changes).hasValue(2);
    assertThat(g.filter(pools)).isEqualTo(pools);
    assertThat(g.report().blocking()).isFalse();
    assertThat(g.report().waitingSince()).isEmpty();
    assertThat(g.report().names())
        .singleElement()
        .satisfies(n -> assertThat(n.phase()).isEqualTo(GuardReport.Phase.PLUGIN_STOPPED));
    assertThat(logs)
        .anyMatch(l -> l.startsWith("INFO") && l.contains("no extended resource conflict any more"))
        .anyMatch(l -> l.startsWith("INFO") && l.contains("phase plugin-stopped (capacity 4"));
    // 5 minutes later the kubelet forgets the plugin: capacity 0. Nothing to republish.
    g.update(List.of(c), Optional.of(node("example.com/gpu", "0")));
    assertThat(changes).hasValue(2);
    assertThat(g.report().names())
        .singleElement()
        .satisfies(n -> assertThat(n.phase()).isEqualTo(GuardReport.Phase.DRA));
    clock.advance(Duration.ofSeconds(120));
    g.remind();
    assertThat(waitingLogs()).hasSize(2);
  }

  @Test
  void aNameAllocatableAgainWhileDevicesAreOutWithdrawsThemAndSaysSoLoudly() {
    ExtendedResourceGuard g = guard(Policy.WAIT);
    List<Pool> pools = pools(2);
    g.setDevices(pools);
    DeviceClass c = ours("gpu", "example.com/gpu");
    g.update(List.of(c), Optional.of(node("example.com/gpu", "0")));
    assertThat(g.filter(pools)).isEqualTo(pools); // published
    assertThat(logs).noneMatch(l -> l.startsWith("ERROR"));

    // The device plugin registers again: capacity and allocatable 2 at the next status update.
    g.update(List.of(c), Optional.of(node("example.com/gpu", "2")));
    assertThat(g.filter(pools)).singleElement().satisfies(p -> assertThat(p.devices()).isEmpty());
    assertThat(logs)
        .filteredOn(l -> l.startsWith("ERROR"))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains(
                        "example.com/gpu is allocatable on node node-1 again",
                        "while 2 device(s) of DeviceClass gpu are published",
                        "withdrawing them from the ResourceSlices now",
                        "keep them"));
    // A conflict from the start (nothing was out) is a plain wait, no error.
    g.close();
    logs.clear();
    ExtendedResourceGuard fresh = guard(Policy.WAIT);
    fresh.setDevices(pools);
    fresh.update(List.of(c), Optional.of(node("example.com/gpu", "2")));
    assertThat(logs).noneMatch(l -> l.startsWith("ERROR")).anyMatch(l -> l.contains("waiting"));
  }

  @Test
  void waitFiltersExactlyTheSelectedDevicesOfThePoolsItIsGiven() {
    ExtendedResourceGuard g = guard(Policy.WAIT);
    DeviceClass big =
        cls(
            "big",
            T1,
            Optional.of("example.com/big"),
            "device.driver == '" + DRIVER + "'",
            "device.attributes['" + DRIVER + "'].model == 'big'");
    g.setDevices(pools(4));
    g.update(List.of(big), Optional.of(node("example.com/big", "2")));
    List<Pool> filtered = g.filter(pools(6));
    assertThat(filtered.get(0).devices())
        .extracting(d -> d.name())
        .containsExactly("gpu-0", "gpu-2", "gpu-4");
  }

  @Test
  void remindersRunOnTheExecutor() throws Exception {
    AtomicInteger reminders = new AtomicInteger();
    ScheduledExecutorService executor =
        new ScheduledThreadPoolExecutor(1) {
          @Override
          protected void afterExecute(Runnable r, Throwable t) {
            reminders.incrementAndGet();
          }
        };
    try {
      guard =
          ExtendedResourceGuard.builder(NO_CLIENT, DRIVER, NODE)
              .clock(clock)
              .logInterval(Duration.ofMillis(20))
              .executor(executor)
              .logTap((level, line) -> logs.add(level + " " + line))
              .build();
      guard.setDevices(pools(1));
      guard.update(
          List.of(ours("gpu", "example.com/gpu")), Optional.of(node("example.com/gpu", "1")));
      assertThat(waitingLogs()).hasSize(1);
      // The timer fires on real time, but the guard logs by its own clock: not yet.
      Await.until("two reminders", Duration.ofSeconds(60), () -> reminders.get() >= 2);
      assertThat(waitingLogs()).hasSize(1);
      clock.advance(Duration.ofMillis(20));
      Await.until("a second log", Duration.ofSeconds(60), () -> waitingLogs().size() >= 2);
      assertThat(waitingLogs()).hasSize(2);
    } finally {
      guard.close();
      executor.shutdownNow();
    }
  }

  @Test
  void warnPublishesAndLogs() {
    ExtendedResourceGuard g = guard(Policy.WARN);
    List<Pool> pools = pools(2);
    g.setDevices(pools);
    assertThat(g.filter(pools)).isEqualTo(pools); // WARN never filters, not even before sync
    g.update(List.of(ours("gpu", "example.com/gpu")), Optional.of(node("example.com/gpu", "4")));
    assertThat(g.filter(pools)).isEqualTo(pools);
    assertThat(g.report().conflicts()).hasSize(1);
    assertThat(g.report().blocking()).isFalse();
    assertThat(logs).anyMatch(l -> l.startsWith("WARN") && l.contains("anyway (policy warn)"));
    assertThat(fatal).isEmpty();
  }

  @Test
  void failCallsTheFatalHandlerOncePerNewConflict() {
    ExtendedResourceGuard g = guard(Policy.FAIL);
    List<Pool> pools = pools(2);
    g.setDevices(pools);
    DeviceClass c = ours("gpu", "example.com/gpu");
    g.update(List.of(c), Optional.of(node("example.com/gpu", "4")));
    assertThat(fatal)
        .singleElement()
        .asString()
        .contains(
            "DeviceClass gpu",
            "example.com/gpu",
            "node node-1",
            "capacity 4",
            "--extended-resource-conflict=fail");
    g.update(List.of(c), Optional.of(node("example.com/gpu", "4")));
    assertThat(fatal).hasSize(1);
    // Until the driver has exited, what it exits for is not published.
    assertThat(g.filter(pools)).isNotEmpty().allSatisfy(p -> assertThat(p.devices()).isEmpty());
    g.update(List.of(c), Optional.of(node("example.com/gpu", "0")));
    g.update(List.of(c), Optional.of(node("example.com/gpu", "1")));
    assertThat(fatal).hasSize(2);
  }

  @Test
  void duplicatesAreLoggedOncePerChange() {
    ExtendedResourceGuard g = guard(Policy.WAIT);
    g.setDevices(pools(1));
    DeviceClass a = ours("a", "example.com/gpu");
    DeviceClass b =
        cls("b", T2, Optional.of("example.com/gpu"), "device.driver == '" + DRIVER + "'");
    for (int i = 0; i < 3; i++) {
      g.update(List.of(a, b), Optional.of(node(Map.of(), Map.of())));
    }
    List<String> dup = logs.stream().filter(l -> l.contains("mapped by 2 DeviceClasses")).toList();
    assertThat(dup).singleElement().asString().contains("the scheduler uses b", "ignores a");
    DeviceClass c = cls("c", T2, Optional.of("example.com/gpu"));
    g.update(List.of(a, b, c), Optional.of(node(Map.of(), Map.of())));
    assertThat(logs.stream().filter(l -> l.contains("mapped by 3 DeviceClasses")))
        .singleElement()
        .asString()
        .contains("the scheduler uses b", "ignores c, a");
    assertThat(g.report().duplicates())
        .containsExactly(new GuardReport.Duplicate("example.com/gpu", "b", List.of("c", "a")));
  }

  @Test
  void policyFlagValues() {
    assertThat(Policy.parse("wait")).isEqualTo(Policy.WAIT);
    assertThat(Policy.parse("WARN")).isEqualTo(Policy.WARN);
    assertThat(Policy.parse(" fail ")).isEqualTo(Policy.FAIL);
    assertThatThrownBy(() -> Policy.parse("ignore"))
        .hasMessageContaining("--extended-resource-conflict")
        .hasMessageContaining("wait, warn or fail");
  }

  @Test
  void builderChecks() {
    assertThatThrownBy(() -> ExtendedResourceGuard.builder(NO_CLIENT, DRIVER, "").build())
        .hasMessageContaining("nodeName");
    assertThatThrownBy(
            () ->
                ExtendedResourceGuard.builder(NO_CLIENT, DRIVER, NODE)
                    .logInterval(Duration.ZERO)
                    .build())
        .hasMessageContaining("logInterval");
    ExtendedResourceGuard g = guard(Policy.WAIT);
    assertThatThrownBy(() -> g.awaitSynced(Duration.ofSeconds(1)))
        .hasMessageContaining("before start");
  }
}
