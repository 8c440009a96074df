package io.dra4j.runtime.internal.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.runtime.internal.kubelet.DeviceHealthState;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import io.dra4j.runtime.report.HealthView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The health state machine with explicit times. */
class HealthLedgerTest {

  static final Duration DELAY = Duration.ofSeconds(60);
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final HealthLedger.Key GPU0 = new HealthLedger.Key("node-1", "gpu-0");
  static final HealthLedger.Key GPU1 = new HealthLedger.Key("node-1", "gpu-1");

  final HealthLedger ledger = new HealthLedger(DELAY);

  static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  HealthLedger.Change unhealthy(String device, String reason, long at) {
    return ledger.report(List.of(DeviceHealth.unhealthy("node-1", device, reason, "msg")), at(at));
  }

  HealthLedger.Change healthy(String device, long at) {
    return ledger.report(List.of(DeviceHealth.healthy("node-1", device)), at(at));
  }

  HealthLedger.Change unknown(String device, long at) {
    return ledger.report(List.of(DeviceHealth.unknown("node-1", device, "lost")), at(at));
  }

  @Test
  void unhealthyTaintsAtOnceAndRecoveryLiftsExactlyAfterTheDelay() {
    ledger.setDevices(List.of(GPU0, GPU1));
    assertThat(unhealthy("gpu-0", "XID79", 0).overlay()).isTrue();
    assertThat(ledger.taints()).containsOnlyKeys(GPU0);
    assertThat(ledger.taints().get(GPU0)).isEqualTo(new HealthLedger.Taint("XID79", at(0)));

    assertThat(healthy("gpu-0", 10).overlay()).isFalse();
    assertThat(ledger.nextLift()).contains(at(70));
    // Further healthy reports do not postpone the lift.
    healthy("gpu-0", 30);
    assertThat(ledger.nextLift()).contains(at(70));

    assertThat(ledger.liftDue(at(69).plusMillis(999)).overlay()).isFalse();
    assertThat(ledger.taints()).containsOnlyKeys(GPU0);
    assertThat(ledger.liftDue(at(70)).overlay()).isTrue();
    assertThat(ledger.taints()).isEmpty();
    assertThat(ledger.nextLift()).isEmpty();
  }

  @Test
  void flappingWithinTheDelayKeepsTheTaintAndRestartsRecovery() {
    ledger.setDevices(List.of(GPU0));
    unhealthy("gpu-0", "XID79", 0);
    healthy("gpu-0", 10);
    assertThat(unhealthy("gpu-0", "XID79", 40).overlay()).isFalse(); // same taint, still there
    assertThat(ledger.nextLift()).isEmpty();
    assertThat(ledger.liftDue(at(70)).overlay()).isFalse();
    assertThat(ledger.taints().get(GPU0).since()).isEqualTo(at(0)); // timeAdded stays
    healthy("gpu-0", 50);
    assertThat(ledger.nextLift()).contains(at(110));
    assertThat(ledger.liftDue(at(109)).overlay()).isFalse();
    assertThat(ledger.liftDue(at(110)).overlay()).isTrue();
  }

  @Test
  void aNewReasonChangesTheTaintValue() {
    ledger.setDevices(List.of(GPU0));
    unhealthy("gpu-0", "XID79", 0);
    assertThat(unhealthy("gpu-0", "XID79", 1).overlay()).isFalse();
    assertThat(unhealthy("gpu-0", "ECC double bit!", 2).overlay()).isTrue();
    assertThat(ledger.taints().get(GPU0).value()).isEqualTo("ECC-double-bit");
  }

  @Test
  void unknownNeverTaintsButPausesRecovery() {
    ledger.setDevices(List.of(GPU0, GPU1));
    assertThat(unknown("gpu-1", 0).overlay()).isFalse();
    assertThat(ledger.taints()).isEmpty();

    unhealthy("gpu-0", "XID79", 0);
    healthy("gpu-0", 10);
    unknown("gpu-0", 20);
    assertThat(ledger.nextLift()).isEmpty();
    assertThat(ledger.liftDue(at(1000)).overlay()).isFalse();
    assertThat(ledger.taints()).containsOnlyKeys(GPU0);
    healthy("gpu-0", 1000);
    assertThat(ledger.liftDue(at(1060)).overlay()).isTrue();
  }

  @Test
  void zeroDelayLiftsAtTheFirstHealthyReport() {
    HealthLedger quick = new HealthLedger(Duration.ZERO);
    quick.report(List.of(DeviceHealth.unhealthy("p", "d", "r", "")), at(0));
    HealthLedger.Change c = quick.report(List.of(DeviceHealth.healthy("p", "d")), at(1));
    assertThat(c.overlay()).isTrue();
    assertThat(quick.taints()).isEmpty();
  }

  @Test
  void aMessageNamesExactlyTheReportedDevicesWithTheProvidersTimeAndTimeout() {
    ledger.setDevices(List.of(GPU1, GPU0));
    HealthSnapshot s =
        HealthLedger.message(
            List.of(
                DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", "msg")
                    .withLastUpdated(at(2))
                    .withHealthCheckTimeout(Duration.ofMillis(5900)),
                DeviceHealth.healthy("node-1", "gpu-9")),
            at(5));
    // A fraction of a second is cut off as the Go helper does (kubeletplugin/health.go:214); no
    // timeout is 0, the kubelet's default; no time is the time of receipt.
    assertThat(s.devices())
        .containsExactly(
            new DeviceHealthState(
                "node-1", "gpu-0", HealthStatus.UNHEALTHY, at(2).getEpochSecond(), "msg", 5),
            new DeviceHealthState(
                "node-1", "gpu-9", HealthStatus.HEALTHY, at(5).getEpochSecond(), "", 0));
  }

  @Test
  void messageFallsBackToTheReasonAndIsCutTo1024Characters() {
    List<DeviceHealthState> d =
        HealthLedger.message(
                List.of(
                    DeviceHealth.unhealthy("node-1", "gpu-0", "XID79", ""),
                    DeviceHealth.unhealthy("node-1", "gpu-1", "XID48", "é".repeat(3000))),
                at(0))
            .devices();
    assertThat(d.get(0).message()).isEqualTo("XID79");
    // The kubelet's limit, in bytes of UTF-8 (HealthProtoTest has the rule's cases).
    assertThat(d.get(1).message()).isEqualTo("é".repeat(510) + "...");
  }

  @Test
  void aReplayVouchesOnlyForTheRestOfEachTimeoutAndDropsStaleDevices() {
    ledger.setDevices(List.of(GPU0, GPU1));
    ledger.report(
        List.of(
            DeviceHealth.healthy("node-1", "gpu-0").withHealthCheckTimeout(Duration.ofSeconds(10))),
        at(0));
    unhealthy("gpu-1", "XID79", 0);
    // gpu-0: 10 s timeout, 3.5 s gone: 6 whole seconds left. gpu-1: the default 30 s, 26 s left.
    assertThat(ledger.replay(at(3).plusMillis(500)).devices())
        .extracting(DeviceHealthState::device, DeviceHealthState::healthCheckTimeoutSeconds)
        .containsExactly(tuple("gpu-0", 6L), tuple("gpu-1", 26L));
    // Less than a second left: not sent; the kubelet already shows it (almost) unknown.
    assertThat(ledger.replay(at(9).plusMillis(1)).devices())
        .extracting(DeviceHealthState::device)
        .containsExactly("gpu-1");
    assertThat(ledger.replay(at(31)).devices()).isEmpty();
    // Never reported: nothing to vouch for.
    assertThat(new HealthLedger(DELAY).replay(at(0)).devices()).isEmpty();
  }

  @Test
  void removedDevicesVanishAndComeBackUnknownAndUntainted() {
    ledger.setDevices(List.of(GPU0, GPU1));
    unhealthy("gpu-0", "XID79", 0);
    ledger.setDevices(List.of(GPU1));
    assertThat(ledger.taints()).isEmpty();
    assertThat(ledger.replay(at(1)).devices()).isEmpty();
    ledger.setDevices(List.of(GPU0, GPU1));
    assertThat(ledger.view(at(1)).get(0).status()).isEqualTo(HealthStatus.UNKNOWN);
  }

  @Test
  void reportsAheadOfTheInventoryAreKeptUntilTheNextDeviceList() {
    unhealthy("gpu-0", "XID79", 0);
    assertThat(ledger.taints()).containsOnlyKeys(GPU0);
    assertThat(ledger.view(at(10)))
        .singleElement()
        .satisfies(v -> assertThat(v.listed()).isFalse());
    ledger.setDevices(List.of(GPU0));
    assertThat(ledger.taints()).containsOnlyKeys(GPU0);
    assertThat(ledger.view(at(10))).singleElement().satisfies(v -> assertThat(v.listed()).isTrue());
  }

  @Test
  void viewShowsSinceTaintedAndLiftAt() {
    ledger.setDevices(List.of(GPU0, GPU1));
    unhealthy("gpu-0", "XID79", 0);
    healthy("gpu-0", 10);
    HealthView.DeviceState s = ledger.view(at(10)).get(0);
    assertThat(s.status()).isEqualTo(HealthStatus.HEALTHY);
    assertThat(s.since()).contains(at(10));
    assertThat(s.tainted()).isTrue();
    assertThat(s.taintValue()).isEqualTo("XID79");
    assertThat(s.taintedAt()).contains(at(0));
    assertThat(s.liftAt()).contains(at(70));
    HealthView.DeviceState silent = ledger.view(at(10)).get(1);
    assertThat(silent.status()).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(silent.since()).isEmpty();
    assertThat(silent.tainted()).isFalse();
    assertThat(silent.stale()).isTrue();
    assertThat(s.stale()).isFalse();
    assertThat(s.healthCheckTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(ledger.view(at(41)).get(0).stale()).isTrue();
  }
}
