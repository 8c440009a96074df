package io.dra4j.launcher;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.api.provider.Pool;
import io.dra4j.kube.KubeJson;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.report.HealthView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the status endpoint shows at {@code /status}, as JSON (the metrics: {@code DriverMetrics}).
 */
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
      // The kubelet shows a stale device as unknown: its provider did not report it in time.
      m.put("stale", d.stale());
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
    m.put(
        "names",
        r.names().stream()
            .map(
                n -> {
                  Map<String, Object> e = new LinkedHashMap<>();
                  e.put("name", n.resourceName());
                  e.put("deviceClass", n.deviceClass());
                  n.capacity().ifPresent(q -> e.put("capacity", q.toString()));
                  n.allocatable().ifPresent(q -> e.put("allocatable", q.toString()));
                  e.put("phase", n.phase().json());
                  e.put("published", n.published());
                  return e;
                })
            .toList());
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
}
