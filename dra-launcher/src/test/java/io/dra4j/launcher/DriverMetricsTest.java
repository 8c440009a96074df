package io.dra4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.dra4j.runtime.internal.claims.ClaimListener;
import io.dra4j.runtime.internal.kubelet.CallObserver;
import io.dra4j.runtime.internal.observe.DriverObserver;
import io.dra4j.runtime.report.ClaimStats;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
        new DriverObserver.Source() {
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

  /**
   * The Accept headers a Prometheus 3 server sends (each scrape protocol first in turn): every one
   * gets its format. The protobuf one is what a server with native histograms asks for first.
   */
  @Test
  void everyScrapeProtocolIsAnswered() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/metrics", DriverMetrics.create().httpHandler());
    server.start();
    try {
      HttpClient http = HttpClient.newHttpClient();
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/metrics");
      String[][] cases = {
        {
          "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
              + "encoding=delimited;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
          "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
              + " encoding=delimited"
        },
        {
          "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3",
          "application/openmetrics-text; version=1.0.0; charset=utf-8"
        },
        {"text/plain;version=0.0.4;q=0.5,*/*;q=0.2", "text/plain; version=0.0.4; charset=utf-8"},
        {"*/*", "text/plain; version=0.0.4; charset=utf-8"},
      };
      for (String[] c : cases) {
        HttpResponse<byte[]> r =
            http.send(
                HttpRequest.newBuilder(uri).header("Accept", c[0]).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).as(c[0]).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).as(c[0]).contains(c[1]);
        assertThat(r.body().length).as(c[0]).isGreaterThan(1000);
      }
    } finally {
      server.stop(0);
    }
  }

  @Test
  void oneDriverPerMetrics() {
    DriverMetrics m = DriverMetrics.create();
    m.bind(new DriverObserver.Source() {});
    assertThatThrownBy(() -> m.bind(new DriverObserver.Source() {}))
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
