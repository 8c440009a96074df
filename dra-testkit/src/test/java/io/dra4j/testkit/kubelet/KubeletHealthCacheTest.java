package io.dra4j.testkit.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.health.HealthStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The kubelet's health cache rules (k8s.io/kubernetes v1.37.2 pkg/kubelet/cm/dra/healthinfo.go).
 */
class KubeletHealthCacheTest {

  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  final KubeletHealthCache cache = new KubeletHealthCache();

  static DeviceHealthReport report(String device, HealthStatus h, long lastUpdated, long timeout) {
    return new DeviceHealthReport("node-1", device, h, lastUpdated, timeout, h.name());
  }

  static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  HealthStatus health(String device, long at) {
    return cache.health("node-1", device, at(at)).health();
  }

  @Test
  void staleAfterTheTimeoutCountedFromReceiptNotFromThePluginsTime() {
    // A far-future last_updated_time buys nothing: the kubelet keeps its own receipt time.
    cache.apply(List.of(report("gpu-0", HealthStatus.HEALTHY, at(1000).getEpochSecond(), 5)), T0);
    assertThat(health("gpu-0", 5)).isEqualTo(HealthStatus.HEALTHY);
    assertThat(health("gpu-0", 6)).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(cache.health("node-1", "gpu-0", at(6)).message()).isEmpty();
    // No timeout (0): the kubelet's 30 s.
    cache.apply(List.of(report("gpu-1", HealthStatus.UNHEALTHY, 0, 0)), T0);
    assertThat(health("gpu-1", 30)).isEqualTo(HealthStatus.UNHEALTHY);
    assertThat(health("gpu-1", 31)).isEqualTo(HealthStatus.UNKNOWN);
    assertThat(health("never-reported", 0)).isEqualTo(HealthStatus.UNKNOWN);
  }

  @Test
  void aSubsetKeepsTheOthersUntilStaleThenRemovesThemAsAChange() {
    cache.apply(
        List.of(
            report("gpu-0", HealthStatus.HEALTHY, 0, 5),
            report("gpu-1", HealthStatus.HEALTHY, 0, 5)),
        T0);
    assertThat(cache.apply(List.of(report("gpu-0", HealthStatus.HEALTHY, 0, 5)), at(3))).isEmpty();
    assertThat(health("gpu-1", 4)).isEqualTo(HealthStatus.HEALTHY);
    // gpu-1 stale at the next message: a change (Healthy -> Unknown) the kubelet tells pods about.
    assertThat(cache.apply(List.of(report("gpu-0", HealthStatus.HEALTHY, 0, 5)), at(6)))
        .containsExactly("node-1/gpu-1");
    // Back: new again, a change; a different timeout is a change too.
    assertThat(cache.apply(List.of(report("gpu-1", HealthStatus.HEALTHY, 0, 5)), at(7)))
        .containsExactly("node-1/gpu-1");
    assertThat(cache.apply(List.of(report("gpu-1", HealthStatus.HEALTHY, 0, 9)), at(8)))
        .containsExactly("node-1/gpu-1");
  }

  @Test
  void aStaleEntryWithTheSameHealthIsNoChangeWhenReportsResume() {
    cache.apply(List.of(report("gpu-0", HealthStatus.HEALTHY, 0, 5)), T0);
    assertThat(health("gpu-0", 10)).isEqualTo(HealthStatus.UNKNOWN);
    // Still cached (no other message removed it): same health, so no pod update, yet it reads
    // healthy again.
    assertThat(cache.apply(List.of(report("gpu-0", HealthStatus.HEALTHY, 0, 5)), at(10))).isEmpty();
    assertThat(health("gpu-0", 10)).isEqualTo(HealthStatus.HEALTHY);
  }

  @Test
  void theStreamsEndClearsTheDriver() {
    cache.apply(List.of(report("gpu-0", HealthStatus.HEALTHY, 0, 60)), T0);
    cache.clear();
    assertThat(health("gpu-0", 1)).isEqualTo(HealthStatus.UNKNOWN);
  }
}
