package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.doctor.Doctor;
import io.dra4j.kube.KubeJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One run of the migration doctor against the cluster, as {@code doctor --kubeconfig <admin>
 * --output json FLAGS} would run: its exit status and its JSON report.
 */
record DoctorRun(int exit, JsonNode report) {

  static DoctorRun of(Cluster cluster, String... flags) {
    List<String> args =
        new ArrayList<>(
            List.of("--kubeconfig", cluster.adminKubeconfig().toString(), "--output", "json"));
    args.addAll(List.of(flags));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        Doctor.run(
            args,
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String body = out.toString(StandardCharsets.UTF_8);
    assertThat(body).as(err.toString(StandardCharsets.UTF_8)).isNotEmpty();
    try {
      return new DoctorRun(exit, KubeJson.mapper().readTree(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The supply row of one node and name. */
  JsonNode supply(String node, String resource) {
    for (JsonNode s : report.path("supply")) {
      if (s.path("node").asText().equals(node) && s.path("resource").asText().equals(resource)) {
        return s;
      }
    }
    throw new AssertionError(
        "no supply row for " + node + " " + resource + ": " + report.toPrettyString());
  }

  /** {@code check node} of every finding of this severity. */
  List<String> checks(String severity) {
    List<String> out = new ArrayList<>();
    report
        .path("findings")
        .forEach(
            f -> {
              if (f.path("severity").asText().equals(severity)) {
                out.add(f.path("check").asText() + " " + f.path("node").asText());
              }
            });
    return out;
  }

  /** The findings of one check about one resource. */
  List<JsonNode> findings(String check, String resource) {
    List<JsonNode> out = new ArrayList<>();
    report
        .path("findings")
        .forEach(
            f -> {
              if (f.path("check").asText().equals(check)
                  && f.path("resource").asText().equals(resource)) {
                out.add(f);
              }
            });
    return out;
  }
}
