package io.dra4j.runtime.internal.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.api.provider.Pool;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import io.dra4j.runtime.internal.kubelet.HealthSource;
import io.dra4j.runtime.report.HealthView;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hub's shell without timers firing (a fixed clock and long intervals); timing behaviour is
 * tested in dra-testkit with a manual scheduler and over real sockets.
 */
class HealthHubTest {

  static final String DRIVER = "gpu.example.com";
  static final Instant NOW = Instant.parse("2026-03-01T10:00:00.750Z");

  final List<HealthHub> hubs = new ArrayList<>();

  HealthHub hub(HealthHub.Builder b) {
    HealthHub h = b.clock(Clock.fixed(NOW, ZoneOffset.UTC)).build();
    hubs.add(h);
    return h;
  }

  @AfterEach
  void close() {
    hubs.forEach(HealthHub::close);
  }

  static Pool pool(int devices) {
    return Pool.of(
        "node-1",
        IntStream.range(0, devices).mapToObj(i -> Device.builder("gpu-" + i).build()).toList());
  }

  @Test
  void defaultsAndKeyFromTheDriverName() {
    HealthHub h = hub(HealthHub.builder(DRIVER));
    assertThat(h.taintKey()).isEqualTo("gpu.example.com/unhealthy");
    assertThat(h.taintEffect()).isEqualTo(TaintEffect.NO_SCHEDULE);
    HealthView v = h.view();
    assertThat(v.recoveryDelay()).isEqualTo(Duration.ofSeconds(60));
    // Label prefixes are lower case; the API server accepts mixed-case driver names.
    assertThat(hub(HealthHub.builder("GPU.Example.com")).taintKey())
        .isEqualTo("gpu.example.com/unhealthy");
  }

  @Test
  void invalidSettingsAreRejectedNamingTheRule() {
    assertThatThrownBy(() -> HealthHub.builder("gpu_example").build())
        .hasMessageContaining("taintKey \"gpu_example/unhealthy\" (the default")
        .hasMessageContaining("DNS subdomain")
        .hasMessageContaining("set taintKey explicitly");
    assertThatThrownBy(
            () -> HealthHub.builder(DRIVER).taintKey("example.com/" + "x".repeat(64)).build())
        .hasMessageContaining("the name part is 64 characters, the limit is 63");
    assertThatThrownBy(
            () -> HealthHub.builder(DRIVER).taintKey("resource.kubernetes.io/bad").build())
        .hasMessageContaining("reserved");
    assertThatThrownBy(
            () -> HealthHub.builder(DRIVER).recoveryDelay(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("recoveryDelay");
    assertThatThrownBy(() -> HealthHub.builder("")).hasMessageContaining("driverName");
  }

  @Test
  void unhealthyDeviceIsTaintedAtOnceAndListenersAreToldBeforeReportReturns() {
    HealthHub h = hub(HealthHub.builder(DRIVER).taintEffect(TaintEffect.NO_EXECUTE));
    AtomicInteger fired = new AtomicInteger();
    h.addTaintListener(fired::incrementAndGet);
    List<Pool> pools = List.of(pool(3));
    h.setDevices(pools);
    assertThat(h.applyTaints(pools)).isEqualTo(pools);

    h.report(DeviceHealth.unhealthy("node-1", "gpu-1", "XID 79", "fell off the bus"));
    assertThat(fired).hasValue(1);
    List<Pool> out = h.applyTaints(pools);
    assertThat(out.get(0).devices().get(0)).isSameAs(pools.get(0).devices().get(0));
    assertThat(out.get(0).devices().get(1).taints())
        .containsExactly(
            DeviceTaint.of("gpu.example.com/unhealthy", "XID-79", TaintEffect.NO_EXECUTE)
                .withTimeAdded("2026-03-01T10:00:00Z"));
    // Healthy again: the taint stays until the recovery delay has passed (timer not run here).
    h.report(DeviceHealth.healthy("node-1", "gpu-1"));
    assertThat(fired).hasValue(1);
    assertThat(h.applyTaints(pools).get(0).devices().get(1).taints()).hasSize(1);
    assertThat(h.view().device("node-1", "gpu-1").orElseThrow().liftAt())
        .contains(NOW.plusSeconds(60));
  }

  @Test
  void providerTaintsAreKeptAndNeverDuplicatedAndTheLimitOf16Holds() {
    HealthHub h = hub(HealthHub.builder(DRIVER));
    DeviceTaint own =
        DeviceTaint.of("gpu.example.com/unhealthy", "driver-set", TaintEffect.NO_SCHEDULE);
    DeviceTaint other = DeviceTaint.of("gpu.example.com/degraded", "", TaintEffect.NONE);
    List<DeviceTaint> full =
        IntStream.range(0, 16)
            .mapToObj(i -> DeviceTaint.of("gpu.example.com/t" + i, "", TaintEffect.NONE))
            .toList();
    Pool pool =
        Pool.of(
            "node-1",
            List.of(
                Device.builder("gpu-0").taint(own).build(),
                Device.builder("gpu-1").taint(other).build(),
                Device.builder("gpu-2").taints(full).build()));
    h.setDevices(List.of(pool));
    h.report(
        List.of(
            DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", ""),
            DeviceHealth.unhealthy("node-1", "gpu-1", "XID79", ""),
            DeviceHealth.unhealthy("node-1", "gpu-2", "XID79", "")));
    List<Device> out = h.applyTaints(List.of(pool)).get(0).devices();
    assertThat(out.get(0).taints()).containsExactly(own);
    assertThat(out.get(1).taints()).hasSize(2).startsWith(other);
    assertThat(out.get(1).taints().get(1).key()).isEqualTo("gpu.example.com/unhealthy");
    assertThat(out.get(2).taints()).isEqualTo(full);
    // Same key, other effect: a different taint, so the hub adds its own.
    HealthHub exec = hub(HealthHub.builder(DRIVER).taintEffect(TaintEffect.NO_EXECUTE));
    exec.report(DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", ""));
    assertThat(exec.applyTaints(List.of(pool)).get(0).devices().get(0).taints()).hasSize(2);
  }

  @Test
  void eachReportGoesToTheStreamsAsItIsAndANewStreamStartsWithTheFreshDevices() {
    HealthHub h = hub(HealthHub.builder(DRIVER));
    List<HealthSnapshot> got = new CopyOnWriteArrayList<>();
    h.setDevices(List.of(pool(2)));
    // Nothing reported yet: a new stream gets nothing (the kubelet shows unknown by itself).
    HealthSource.Subscription first = h.subscribe(got::add);
    assertThat(got).isEmpty();
    h.report(
        DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", "bus")
            .withHealthCheckTimeout(Duration.ofSeconds(45)));
    assertThat(got).singleElement();
    assertThat(got.get(0).devices())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.status()).isEqualTo(HealthStatus.UNHEALTHY);
              assertThat(d.lastUpdatedSeconds()).isEqualTo(NOW.getEpochSecond());
              assertThat(d.healthCheckTimeoutSeconds()).isEqualTo(45);
            });
    first.close();
    h.report(DeviceHealth.healthy("node-1", "gpu-0"));
    assertThat(got).hasSize(1);
    // A new stream (the kubelet reconnected) starts with what is still vouched for.
    List<HealthSnapshot> second = new CopyOnWriteArrayList<>();
    h.subscribe(second::add);
    assertThat(second)
        .singleElement()
        .satisfies(
            m ->
                assertThat(m.devices())
                    .singleElement()
                    .satisfies(d -> assertThat(d.status()).isEqualTo(HealthStatus.HEALTHY)));
  }

  @Test
  void closedHubIgnoresReports() {
    HealthHub h = hub(HealthHub.builder(DRIVER));
    h.setDevices(List.of(pool(1)));
    h.close();
    h.report(DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", ""));
    assertThat(h.view().devices().get(0).tainted()).isFalse();
    h.close();
  }
}
