package io.dra4j.testkit.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.internal.health.HealthHub;
import io.dra4j.runtime.internal.slices.LayoutOptions;
import io.dra4j.runtime.internal.slices.SliceLayout;
import io.dra4j.runtime.internal.slices.SliceNames;
import io.dra4j.runtime.report.HealthView;
import io.dra4j.testkit.schema.OpenApiSchemas;
import io.dra4j.validation.PoolValidator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Health to taints with the fake provider's scripted health and a manual clock: tainting at once,
 * lifting exactly after the recovery delay, flap suppression, the configured effects, and the
 * published form of tainted pools (slice layout limit, OpenAPI schema).
 */
class HealthTaintTest {

  static final String DRIVER = "fake.dra4j.io";
  static final String NODE = "node-1";
  static final String KEY = DRIVER + "/unhealthy";
  static final Duration DELAY = Duration.ofSeconds(60);
  static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

  final ManualScheduler time = new ManualScheduler(START);
  final FakeDeviceProvider provider = new FakeDeviceProvider();
  final AtomicInteger taintChanges = new AtomicInteger();
  HealthHub hub;
  List<Pool> pools;

  HealthHub start(int devices, TaintEffect effect) {
    pools =
        provider
            .discover(
                ProviderContext.builder(DRIVER, NODE)
                    .config(FakeDeviceProvider.CONFIG_DEVICES, String.valueOf(devices))
                    .build())
            .pools();
    hub =
        HealthHub.builder(DRIVER)
            .taintEffect(effect)
            .recoveryDelay(DELAY)
            .clock(time.clock())
            .executor(time)
            .build();
    hub.addTaintListener(taintChanges::incrementAndGet);
    hub.setDevices(pools);
    provider.startHealthMonitoring(hub);
    return hub;
  }

  @AfterEach
  void close() {
    if (hub != null) {
      hub.close();
    }
    provider.close();
  }

  Device device(List<Pool> out, String name) {
    return out.get(0).devices().stream()
        .filter(d -> d.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  List<DeviceTaint> taintsOf(String name) {
    return device(hub.applyTaints(pools), name).taints();
  }

  @Test
  void unhealthyIsTaintedAtOnceAndLiftedExactlyAfterTheRecoveryDelay() {
    start(8, TaintEffect.NO_SCHEDULE);
    assertThat(hub.applyTaints(pools)).isEqualTo(pools);
    assertThat(taintChanges).hasValue(0);

    time.advance(Duration.ofSeconds(5));
    provider.health().markUnhealthy("gpu-3", "XID79", "GPU has fallen off the bus");
    assertThat(taintChanges).hasValue(1);
    assertThat(taintsOf("gpu-3"))
        .containsExactly(
            DeviceTaint.of(KEY, "XID79", TaintEffect.NO_SCHEDULE)
                .withTimeAdded("2026-03-01T10:00:05Z"));
    assertThat(taintsOf("gpu-2")).isEmpty();

    time.advance(Duration.ofSeconds(10));
    provider.health().markHealthy("gpu-3");
    assertThat(taintChanges).hasValue(1);
    HealthView.DeviceState s = hub.view().device(NODE, "gpu-3").orElseThrow();
    assertThat(s.status()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(s.tainted()).isTrue();
    assertThat(s.liftAt()).contains(START.plusSeconds(75));

    time.advance(DELAY.minusMillis(1));
    assertThat(taintsOf("gpu-3")).hasSize(1);
    assertThat(taintChanges).hasValue(1);
    time.advance(Duration.ofMillis(1));
    assertThat(time.now()).isEqualTo(START.plusSeconds(75));
    assertThat(taintChanges).hasValue(2);
    assertThat(taintsOf("gpu-3")).isEmpty();
    assertThat(hub.applyTaints(pools)).isEqualTo(pools);
    assertThat(hub.view().device(NODE, "gpu-3").orElseThrow().liftAt()).isEmpty();
  }

  @Test
  void flappingWithinTheDelayKeepsTheTaint() {
    start(4, TaintEffect.NO_SCHEDULE);
    provider.health().markUnhealthy("gpu-0", "FakeFlap", "");
    for (int i = 0; i < 5; i++) {
      time.advance(Duration.ofSeconds(20));
      provider.health().markHealthy("gpu-0");
      time.advance(Duration.ofSeconds(20)); // healthy for 20 s only, less than the delay
      provider.health().markUnhealthy("gpu-0", "FakeFlap", "");
      assertThat(taintsOf("gpu-0")).hasSize(1);
    }
    assertThat(taintChanges).hasValue(1); // one taint, never lifted, never re-added
    // The taint keeps the time it was first added (NoExecute tolerations count from it).
    assertThat(taintsOf("gpu-0").get(0).timeAdded()).contains("2026-03-01T10:00:00Z");

    Instant healthyAt = time.now().plusSeconds(1);
    time.advance(Duration.ofSeconds(1));
    provider.health().markHealthy("gpu-0");
    time.advance(DELAY.minusSeconds(1));
    assertThat(taintsOf("gpu-0")).hasSize(1);
    time.advance(Duration.ofSeconds(1));
    assertThat(time.now()).isEqualTo(healthyAt.plus(DELAY));
    assertThat(taintsOf("gpu-0")).isEmpty();
    assertThat(taintChanges).hasValue(2);
  }

  @Test
  void noExecuteAndNoneAreCarriedAsConfigured() {
    start(2, TaintEffect.NO_EXECUTE);
    provider.health().markUnhealthy("gpu-1", "XID48", "double-bit ECC");
    assertThat(taintsOf("gpu-1"))
        .singleElement()
        .satisfies(t -> assertThat(t.effect()).isEqualTo(TaintEffect.NO_EXECUTE));
    hub.close();
    provider.close();

    time.advance(Duration.ofSeconds(1));
    HealthHub dryRun =
        HealthHub.builder(DRIVER)
            .taintEffect(TaintEffect.NONE)
            .taintKey("fake.dra4j.io/health-dry-run")
            .clock(time.clock())
            .executor(time)
            .build();
    hub = dryRun;
    dryRun.setDevices(pools);
    FakeDeviceProvider second = new FakeDeviceProvider();
    second.discover(
        ProviderContext.builder(DRIVER, NODE)
            .config(FakeDeviceProvider.CONFIG_DEVICES, "2")
            .build());
    second.startHealthMonitoring(dryRun);
    second.health().markUnhealthy("gpu-1", "XID48", "");
    assertThat(device(dryRun.applyTaints(pools), "gpu-1").taints())
        .containsExactly(
            DeviceTaint.of("fake.dra4j.io/health-dry-run", "XID48", TaintEffect.NONE)
                .withTimeAdded("2026-03-01T10:00:01Z"));
    second.close();
  }

  @Test
  void neverResendsAndTellsTheErrorHandlerOnceWhenReportsGoStale() {
    List<DriverError> errors = new CopyOnWriteArrayList<>();
    hub =
        HealthHub.builder(DRIVER)
            .clock(time.clock())
            .executor(time)
            .errorHandler(errors::add)
            .build();
    List<Instant> at = new CopyOnWriteArrayList<>();
    hub.subscribe(s -> at.add(time.now()));
    hub.report(
        List.of(
            DeviceHealth.healthy(NODE, "gpu-0").withHealthCheckTimeout(Duration.ofSeconds(6)),
            DeviceHealth.healthy(NODE, "gpu-1")));
    time.advance(Duration.ofSeconds(5));
    hub.report(DeviceHealth.healthy(NODE, "gpu-0").withHealthCheckTimeout(Duration.ofSeconds(6)));
    time.advance(Duration.ofSeconds(5));
    assertThat(errors).isEmpty();
    // 6 s after the last report (its smallest timeout) the handler is told, once; nothing is sent.
    time.advance(Duration.ofSeconds(60));
    assertThat(at).containsExactly(START, START.plusSeconds(5));
    assertThat(errors)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.source()).isEqualTo(DriverError.Source.HEALTH);
              assertThat(e.severity()).isEqualTo(DriverError.Severity.RECOVERABLE);
              assertThat(e.message()).contains("no device health report for 6 s");
            });
    // Reports resume: no new error until they stop again.
    hub.report(DeviceHealth.healthy(NODE, "gpu-0"));
    time.advance(Duration.ofSeconds(29));
    assertThat(errors).hasSize(1);
    time.advance(Duration.ofSeconds(2));
    assertThat(errors).hasSize(2);
  }

  @Test
  void aTaintedPoolIsLaidOutInSlicesOfAtMost64AndMatchesTheSchema() throws Exception {
    start(200, TaintEffect.NO_EXECUTE);
    provider.health().markUnhealthy("gpu-70", "XID79", "fell off the bus");
    // A report without a reason gives a taint with an empty value, which is valid.
    hub.report(DeviceHealth.unhealthy(NODE, "gpu-199", "", "no reason given"));
    List<Pool> overlay = hub.applyTaints(pools);
    assertThat(PoolValidator.validate(DRIVER, overlay).pools())
        .allSatisfy(v -> assertThat(v.errors()).isEmpty());

    for (LayoutOptions options :
        List.of(LayoutOptions.node(NODE), LayoutOptions.node(NODE).withDynamicTaints(true))) {
      List<ResourceSliceSpec> specs = SliceLayout.layout(DRIVER, overlay.get(0), options);
      int tainted = 0;
      int devices = 0;
      for (ResourceSliceSpec spec : specs) {
        devices += spec.devices().size();
        if (spec.devices().stream().anyMatch(d -> !d.taints().isEmpty())) {
          tainted++;
          assertThat(spec.devices()).hasSizeLessThanOrEqualTo(64);
        }
      }
      assertThat(devices).isEqualTo(200);
      assertThat(tainted).isEqualTo(2);
      assertThat(
              specs.stream()
                  .flatMap(sp -> sp.devices().stream())
                  .filter(d -> d.name().equals("gpu-199")))
          .singleElement()
          .satisfies(d -> assertThat(d.taints().get(0).value()).isEmpty());
      assertSchemaValid(specs);
    }
    // Without taints the same pool packs to 128 per slice.
    assertThat(SliceLayout.layout(DRIVER, pools.get(0), LayoutOptions.node(NODE)).get(0).devices())
        .hasSize(128);
  }

  private void assertSchemaValid(List<ResourceSliceSpec> specs) throws Exception {
    ObjectMapper mapper = new ObjectMapper().registerModule(new Jdk8Module());
    List<ResourceSlice> slices = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      ResourceSliceSpec spec = specs.get(i);
      ObjectMeta meta =
          ObjectMeta.generated("", SliceNames.generateName(i, specs.size(), DRIVER, NODE))
              .withOwnerReferences(
                  List.of(OwnerReference.node(NODE, "4b6f2f0e-5c3a-4d2b-9a53-1f2d3c4b5a69")));
      slices.add(
          ResourceSlice.of(
              meta,
              spec.withPool(
                  new ResourceSliceSpec.ResourcePool(
                      spec.pool().name(), 1, spec.pool().resourceSliceCount()))));
    }
    for (ResourceSlice slice : slices) {
      OpenApiSchemas.resourceV1()
          .assertValid("io.k8s.api.resource.v1.ResourceSlice", mapper.valueToTree(slice));
    }
  }
}
