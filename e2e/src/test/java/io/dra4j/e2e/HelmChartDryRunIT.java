package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dra4j.runtime.testsupport.Helm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The examples' Helm charts, with the default and the full values, rendered by the real helm and
 * applied with a server-side dry run to the real v1.37.2 API server: strict field validation, the
 * admission policy's CEL compiled by the server, the DeviceClass's selectors and
 * extendedResourceName checked by the resource.k8s.io validation. Nothing is stored. The
 * ServiceMonitor is left out: the Prometheus Operator's CRD is not installed here.
 */
class HelmChartDryRunIT {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @ParameterizedTest
  @CsvSource({
    "fake-driver,false",
    "fake-driver,true",
    "nvidia-driver,false",
    "nvidia-driver,true",
    "hostdev-driver,false",
    "hostdev-driver,true"
  })
  void theRenderedChartPassesTheApiServersDryRun(String example, boolean full, @TempDir Path dir)
      throws Exception {
    Cluster cluster = Cluster.shared();
    cluster.apply(Resources.namespace(Deployment.NAMESPACE));
    Path chart = Path.of("..", "examples", example, "chart");
    String release = YAML.readTree(chart.resolve("Chart.yaml").toFile()).path("name").asText();
    Optional<Path> values =
        full ? Optional.of(chart.resolve("ci/full-values.yaml")) : Optional.empty();
    String rendered = Helm.template(release, chart, Deployment.NAMESPACE, values);

    ObjectNode list = YAML.createObjectNode().put("apiVersion", "v1").put("kind", "List");
    ArrayNode items = list.putArray("items");
    List<String> expected = new ArrayList<>();
    try (var parser = YAML.getFactory().createParser(rendered)) {
      for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
        if (doc == null || doc.isEmpty() || doc.path("kind").asText().equals("ServiceMonitor")) {
          continue;
        }
        items.add(doc);
        expected.add(doc.path("metadata").path("name").asText());
      }
    }
    Path file = dir.resolve("rendered.json");
    Files.writeString(file, list.toString());

    String out =
        cluster.kubectl("apply", "--dry-run=server", "--validate=strict", "-f", file.toString());
    List<String> accepted = out.lines().filter(l -> l.endsWith("(server dry run)")).toList();
    assertThat(accepted).as(out).hasSize(expected.size());
    for (String name : expected) {
      assertThat(accepted).as(out).anyMatch(l -> l.contains("/" + name + " "));
    }
  }
}
