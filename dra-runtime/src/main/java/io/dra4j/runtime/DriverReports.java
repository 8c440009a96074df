package io.dra4j.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.api.provider.Pool;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.health.HealthView;
import io.dra4j.runtime.kube.KubeJson;
import io.dra4j.runtime.kubelet.RegistrationStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What the status endpoint shows: {@code /status} as JSON, {@code /metrics} as Prometheus text. */
final class DriverReports {
  private DriverReports() {}

  static String statusJson(DraDriver driver) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("driver", driver.driverName());
    status.put("node", driver.nodeName());
    status.put("alive", driver.isAlive());
    status.put("ready", driver.isReady());
    driver.fatalReason().ifPresent(r -> status.put("stoppedBecause", r));
    status.put(
        "registration",
        driver
            .registrationStatus()
            .map(
                r ->
                    Map.of(
                        "registered", r.registered(),
                        "error", r.error(),
                        "receivedAt", r.receivedAt().toString()))
            .orElse(Map.of()));
    List<Map<String, Object>> pools = new ArrayList<>();
    for (Pool p : driver.publishedInventory()) {
      pools.add(
          Map.of(
              "name", p.name(),
              "devices", p.devices().size(),
              "taintedDevices", p.devices().stream().filter(d -> !d.taints().isEmpty()).count()));
    }
    status.put("publishedPools", pools);
    driver.publisherStats().ifPresent(s -> status.put("slices", s));
    driver.claimStats().ifPresent(c -> status.put("claims", c));
    driver.healthView().ifPresent(h -> status.put("health", health(h)));
    driver.guardReport().ifPresent(g -> status.put("extendedResources", guard(g)));
    try {
      return KubeJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(status) + "\n";
    } catch (JsonProcessingException e) {
      return "{\"error\": \"" + e.getOriginalMessage().replace('"', '\'') + "\"}\n";
    }
  }

  private static Map<String, Object> health(HealthView view) {
    List<Map<String, Object>> devices = new ArrayList<>();
    for (HealthView.DeviceState d : view.devices()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("pool", d.pool());
      m.put("device", d.device());
      m.put("status", d.status().name());
      m.put("reason", d.reason());
      m.put("message", d.message());
      m.put("tainted", d.tainted());
      d.liftAt().ifPresent(t -> m.put("taintLiftAt", t.toString()));
      devices.add(m);
    }
    return Map.of(
        "taint",
        view.taintKey() + ":" + view.taintEffect().apiName(),
        "recoveryDelaySeconds",
        view.recoveryDelay().toSeconds(),
        "devices",
        devices);
  }

  private static Map<String, Object> guard(GuardReport r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("policy", r.policy().name().toLowerCase(java.util.Locale.ROOT));
    m.put("synced", r.synced());
    m.put("blocking", r.blocking());
    m.put("conflicts", r.conflicts().stream().map(GuardReport.Conflict::describe).toList());
    m.put(
        "duplicates",
        r.duplicates().stream()
            .map(d -> d.resourceName() + ": " + d.winner() + " wins over " + d.ignored())
            .toList());
    m.put("problems", r.problems());
    r.waitingSince().ifPresent(t -> m.put("waitingSince", t.toString()));
    return m;
  }

  static String metricsText(DraDriver driver) {
    Metrics m = new Metrics("driver=\"" + driver.driverName() + "\"");
    m.gauge("dra4j_up", "1 while the driver serves the kubelet sockets.", driver.isAlive() ? 1 : 0);
    m.gauge(
        "dra4j_ready",
        "1 once registered with the kubelet and the inventory is published.",
        driver.isReady() ? 1 : 0);
    m.gauge(
        "dra4j_registered",
        "1 when the kubelet accepted the registration.",
        driver.registrationStatus().map(RegistrationStatus::registered).orElse(false) ? 1 : 0);
    m.gauge(
        "dra4j_published_devices",
        "Devices handed to the slice publisher.",
        driver.publishedInventory().stream().mapToLong(p -> p.devices().size()).sum());
    driver
        .publisherStats()
        .ifPresent(
            s -> {
              m.counter("dra4j_slice_creates_total", "ResourceSlices created.", s.creates());
              m.counter("dra4j_slice_updates_total", "ResourceSlices updated.", s.updates());
              m.counter("dra4j_slice_deletes_total", "ResourceSlices deleted.", s.deletes());
              m.counter("dra4j_slice_failures_total", "Failed slice API calls.", s.failures());
              m.counter(
                  "dra4j_slice_validation_failures_total",
                  "Pools not published because they broke an API rule.",
                  s.validationFailures());
            });
    driver
        .claimStats()
        .ifPresent(
            c -> {
              m.counter(
                  "dra4j_claims_prepared_total", "Claims prepared (first time).", c.prepared());
              m.counter(
                  "dra4j_claims_prepare_repeats_total",
                  "Repeated prepares answered from the checkpoint.",
                  c.repeated());
              m.counter(
                  "dra4j_claim_prepare_failures_total",
                  "Failed claim prepares.",
                  c.prepareFailures());
              m.counter("dra4j_claims_unprepared_total", "Claims unprepared.", c.unprepared());
              m.counter(
                  "dra4j_claim_unprepare_failures_total",
                  "Failed claim unprepares.",
                  c.unprepareFailures());
              m.gauge(
                  "dra4j_claims_prepared", "Claims prepared on this node now.", c.preparedNow());
            });
    Optional<HealthView> h = driver.healthView();
    if (h.isPresent()) {
      m.gauge(
          "dra4j_devices_unhealthy",
          "Devices reported unhealthy.",
          h.get().devices().stream().filter(d -> d.status() == HealthStatus.UNHEALTHY).count());
      m.gauge(
          "dra4j_devices_tainted",
          "Devices tainted for health.",
          h.get().devices().stream().filter(HealthView.DeviceState::tainted).count());
    }
    driver
        .guardReport()
        .ifPresent(
            g ->
                m.gauge(
                    "dra4j_extended_resource_conflicts",
                    "Extended resources a device plugin still serves on this node.",
                    g.conflicts().size()));
    return m.toString();
  }

  /** Prometheus text exposition (format 0.0.4), one sample per metric. */
  private static final class Metrics {
    private final StringBuilder out = new StringBuilder();
    private final String labels;

    Metrics(String labels) {
      this.labels = labels;
    }

    void gauge(String name, String help, long value) {
      sample(name, "gauge", help, value);
    }

    void counter(String name, String help, long value) {
      sample(name, "counter", help, value);
    }

    private void sample(String name, String type, String help, long value) {
      out.append("# HELP ").append(name).append(' ').append(help).append('\n');
      out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
      out.append(name).append('{').append(labels).append("} ").append(value).append('\n');
    }

    @Override
    public String toString() {
      return out.toString();
    }
  }
}
