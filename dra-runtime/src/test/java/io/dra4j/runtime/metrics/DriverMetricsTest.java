package io.dra4j.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.runtime.claims.ClaimListener;
import io.dra4j.runtime.claims.ClaimStats;
import io.dra4j.runtime.kubelet.CallObserver;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DriverMetricsTest {

  @Test
  void everySeriesIsThereBeforeAnythingHappened() {
    String text = DriverMetrics.create().text();
    assertThat(text)
        .contains(
            "dra4j_kubelet_call_duration_seconds_count{method=\"v1.NodePrepareResources\","
                + "result=\"success\"} 0")
        .contains(
            "dra4j_api_requests_total{code=\"5xx\",resource=\"resourceslices\",verb=\"create\"} 0")
        .contains("dra4j_claim_operations_total{operation=\"prepare\",result=\"repeat\"} 0")
        .contains("dra4j_extended_resource_guard_state{state=\"syncing\"} 1")
        .contains("dra4j_up 0")
        .contains("jvm_memory_used_bytes")
        // No driver bound yet: no names to show.
        .doesNotContain("dra4j_driver_info{");
  }

  @Test
  void observersFillTheirSeries() {
    DriverMetrics m = DriverMetrics.create();
    m.kubeletCalls()
        .answered("v1.NodePrepareResources", CallObserver.Result.CLAIM_ERROR, 2_000_000);
    m.claims().providerCalled(ClaimListener.ProviderCall.PREPARE, Duration.ofMillis(3), false);
    m.claims().checkpointWritten(Duration.ofNanos(150_000), false);
    m.apiRequests().attempted("get", "resourceclaims", 404, 1_000_000);
    m.apiRequests().attempted("get", "resourceclaims", 0, 1_000_000);
    m.apiRequests().rateLimited("get", 20_000_000);
    m.publisherSyncs().synced(5_000_000, true);
    m.warmedUp(Duration.ofMillis(1500));
    m.bind(
        new DriverMetrics.Source() {
          @Override
          public String driverName() {
            return "gpu.example.com";
          }

          @Override
          public Optional<ClaimStats> claimStats() {
            return Optional.of(new ClaimStats(4, 1, 0, 2, 0, 0, 2, 1));
          }
        });
    String text = m.text();
    assertThat(text)
        .contains(
            "dra4j_kubelet_call_duration_seconds_bucket{method=\"v1.NodePrepareResources\","
                + "result=\"claim_error\",le=\"0.0025\"} 1")
        .contains(
            "dra4j_kubelet_call_duration_seconds_bucket{method=\"v1.NodePrepareResources\","
                + "result=\"claim_error\",le=\"0.001\"} 0")
        .contains(
            "dra4j_provider_call_duration_seconds_count{operation=\"prepare\",result=\"success\"} 1")
        .contains(
            "dra4j_checkpoint_write_duration_seconds_bucket{result=\"success\",le=\"2.5E-4\"} 1")
        .contains(
            "dra4j_api_requests_total{code=\"4xx\",resource=\"resourceclaims\",verb=\"get\"} 1")
        .contains(
            "dra4j_api_requests_total{code=\"error\",resource=\"resourceclaims\",verb=\"get\"} 1")
        .contains("dra4j_api_request_duration_seconds_count{verb=\"get\"} 2")
        .contains("dra4j_api_rate_limit_wait_seconds_count 1")
        .contains("dra4j_publisher_sync_duration_seconds_count{result=\"error\"} 1")
        .contains("dra4j_warmup_duration_seconds 1.5")
        .contains("dra4j_claim_operations_total{operation=\"prepare\",result=\"success\"} 4")
        .contains("dra4j_claims_prepared 2")
        .contains("dra4j_claims_in_flight 1")
        .contains("dra4j_driver_info{driver=\"gpu.example.com\",node=\"\"} 1");
  }

  @Test
  void oneDriverPerMetrics() {
    DriverMetrics m = DriverMetrics.create();
    m.bind(new DriverMetrics.Source() {});
    assertThatThrownBy(() -> m.bind(new DriverMetrics.Source() {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bound to a driver already");
  }

  @Test
  void statusClasses() {
    assertThat(DriverMetrics.statusClass(201)).isEqualTo("2xx");
    assertThat(DriverMetrics.statusClass(409)).isEqualTo("4xx");
    assertThat(DriverMetrics.statusClass(503)).isEqualTo("5xx");
    assertThat(DriverMetrics.statusClass(0)).isEqualTo("error");
    assertThat(DriverMetrics.statusClass(302)).isEqualTo("error");
  }
}
