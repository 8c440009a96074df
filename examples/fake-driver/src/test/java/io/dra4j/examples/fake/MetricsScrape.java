package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeJson;
import io.dra4j.runtime.testsupport.PeerTools;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A driver's first scrape against the README's Metrics table: parsed by the Python Prometheus
 * client's parser (Debian's python3-prometheus-client), not by the Java client that wrote it.
 */
final class MetricsScrape {
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  /** A row of the README's table: {@code | `name` | type | `label`, `label` | what |}. */
  private static final Pattern ROW =
      Pattern.compile("^\\| `(dra4j_[a-z_]+)` \\| ([a-z]+) \\|([^|]*)\\|", Pattern.MULTILINE);

  private static final Pattern LABEL = Pattern.compile("`([a-z_]+)`");

  /** Series that count something the test's driver has not done before its first scrape. */
  private static final List<String> ZERO_AT_START =
      List.of(
          "dra4j_kubelet_call_duration_seconds_count",
          "dra4j_provider_call_duration_seconds_count",
          "dra4j_checkpoint_write_duration_seconds_count",
          "dra4j_claim_operations_total",
          "dra4j_claim_rollbacks_total",
          "dra4j_claims_prepared",
          "dra4j_claims_in_flight",
          "dra4j_slice_invalid_pools_total");

  private record Documented(String type, Set<String> labels) {}

  private MetricsScrape() {}

  /**
   * Checks a scrape taken before the driver answered any kubelet call: every series the README
   * lists is there with its type and labels, each labelled one for more than one value, the
   * counters of work not done yet at 0, and no {@code dra4j_} series the README does not list.
   */
  static void checkFirstScrape(String scrape, Path dir) throws IOException, InterruptedException {
    Map<String, Documented> documented = readmeTable();
    assertThat(documented).as("series in the README's Metrics table").hasSizeGreaterThan(20);
    Map<String, JsonNode> families = new LinkedHashMap<>();
    for (JsonNode family : parse(scrape, dir)) {
      families.put(family.path("name").asText(), family);
    }

    for (Map.Entry<String, Documented> row : documented.entrySet()) {
      String name = row.getKey();
      assertThat(families).as("the scrape has the README's " + name).containsKey(name);
      JsonNode family = families.get(name);
      assertThat(family.path("type").asText()).as(name + "'s type").isEqualTo(row.getValue().type);
      Set<String> labels = new TreeSet<>();
      int series = 0;
      for (JsonNode sample : family.path("samples")) {
        sample.path("labels").fieldNames().forEachRemaining(labels::add);
        series++;
      }
      labels.remove("le"); // a histogram's bucket bound, not a label of the series
      assertThat(labels).as(name + "'s labels").isEqualTo(row.getValue().labels);
      assertThat(series).as(name + " has its series before anything happened").isPositive();
      // driver_info has one series by design, device_health one set per device.
      if (!labels.isEmpty() && !name.equals("dra4j_driver_info")) {
        assertThat(series).as(name + " pre-initialised for each label value").isGreaterThan(1);
      }
    }
    for (String name : families.keySet()) {
      if (name.startsWith("dra4j_")) {
        assertThat(documented).as(name + " is in the README's Metrics table").containsKey(name);
      }
    }
    assertThat(families.keySet()).as("JVM metrics").anyMatch(n -> n.startsWith("jvm_"));
    assertThat(families.keySet()).as("process metrics").anyMatch(n -> n.startsWith("process_"));

    for (JsonNode family : families.values()) {
      for (JsonNode sample : family.path("samples")) {
        if (ZERO_AT_START.contains(sample.path("name").asText())) {
          assertThat(sample.path("value").asDouble()).as(sample.toString()).isZero();
        }
      }
    }
  }

  /** The README's Metrics table, by series name. */
  private static Map<String, Documented> readmeTable() throws IOException {
    Map<String, Documented> rows = new LinkedHashMap<>();
    Matcher row = ROW.matcher(Files.readString(ReadmeTest.readme()));
    while (row.find()) {
      Set<String> labels = new TreeSet<>();
      Matcher label = LABEL.matcher(row.group(3));
      while (label.find()) {
        labels.add(label.group(1));
      }
      rows.put(row.group(1), new Documented(row.group(2), labels));
    }
    return rows;
  }

  private static List<JsonNode> parse(String scrape, Path dir)
      throws IOException, InterruptedException {
    if (!Files.isExecutable(PYTHON)) {
      PeerTools.unavailable(PYTHON + " is missing (the Prometheus text parser's interpreter)");
    }
    Path script = dir.resolve("parse_metrics.py");
    try (InputStream in = MetricsScrape.class.getResourceAsStream("/parse_metrics.py")) {
      Files.copy(in, script);
    }
    Path input = Files.writeString(dir.resolve("scrape.txt"), scrape);
    PeerTools.Output out =
        PeerTools.exec(
            List.of(PYTHON.toString(), script.toString(), input.toString()),
            Duration.ofSeconds(60));
    if (out.exitCode() != 0 && out.stderr().contains("No module named 'prometheus_client'")) {
      PeerTools.unavailable(
          "Debian's python3-prometheus-client is not installed (the Prometheus text parser)");
    }
    assertThat(out.exitCode()).as("the Prometheus parser: " + out.stderr()).isZero();
    List<JsonNode> families = new ArrayList<>();
    KubeJson.mapper().readTree(out.stdout()).forEach(families::add);
    return families;
  }
}
