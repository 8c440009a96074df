package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dra4j.launcher.DriverSettings;
import io.dra4j.runtime.testsupport.Helm;
import io.dra4j.runtime.testsupport.PeerTools;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The examples' Helm charts, through the real helm (built from its Go module by {@code
 * .ci/install-helm.sh}): lint, the values schema, {@code deploy/} as the default rendering, and
 * every rendered object against the official OpenAPI documents of Kubernetes v1.37.2 (from the
 * k8s.io/kubernetes module, {@code .ci/kube-openapi.sh}). The ServiceMonitor is a CRD those
 * documents lack; it is checked against the Service it scrapes.
 */
class HelmChartsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String NAMESPACE = "dra4j-system";
  private static final Map<String, OpenApiSchemas> DOCUMENTS = new HashMap<>();

  private static Path chart(String example) {
    return Path.of("..", example, "chart");
  }

  private static String chartName(String example) throws IOException {
    return YAML.readTree(chart(example).resolve("Chart.yaml").toFile()).path("name").asText();
  }

  private static Path fullValues(String example) {
    return chart(example).resolve("ci/full-values.yaml");
  }

  @ParameterizedTest
  @ValueSource(strings = {"fake-driver", "nvidia-driver", "hostdev-driver"})
  void lintsCleanWithDefaultAndFullValues(String example) throws Exception {
    PeerTools.Output plain = helm("lint", "--strict", chart(example).toString());
    assertThat(plain.exitCode()).as(plain.stdout() + plain.stderr()).isZero();
    PeerTools.Output full =
        helm("lint", "--strict", chart(example).toString(), "-f", fullValues(example).toString());
    assertThat(full.exitCode()).as(full.stdout() + full.stderr()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"fake-driver", "nvidia-driver", "hostdev-driver"})
  void deployFolderIsTheChartsDefaultRendering(String example, @TempDir Path out) throws Exception {
    String name = chartName(example);
    PeerTools.Output run =
        helm(
            "template",
            name,
            chart(example).toString(),
            "--namespace",
            NAMESPACE,
            "--output-dir",
            out.toString());
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    Path rendered = out.resolve(name).resolve("templates");
    Path deploy = Path.of("..", example, "deploy");
    assertThat(fileNames(deploy)).isEqualTo(fileNames(rendered));
    for (String file : fileNames(rendered)) {
      List<String> lines = new ArrayList<>(Files.readAllLines(deploy.resolve(file)));
      while (!lines.isEmpty() && lines.get(0).startsWith("# ")) {
        lines.remove(0); // the generator's header
      }
      assertThat(lines)
          .as("%s/%s is stale: run examples/render-deploy.sh", deploy, file)
          .isEqualTo(Files.readAllLines(rendered.resolve(file)));
    }
  }

  private static List<String> fileNames(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @ParameterizedTest
  @CsvSource({
    "fake-driver,false",
    "fake-driver,true",
    "nvidia-driver,false",
    "nvidia-driver,true",
    "hostdev-driver,false",
    "hostdev-driver,true"
  })
  void everyRenderedObjectIsValidForKubernetes137(String example, boolean full) throws Exception {
    List<JsonNode> objects =
        objects(render(example, full ? Optional.of(fullValues(example)) : Optional.empty()));
    for (JsonNode object : objects) {
      String kind = object.path("kind").asText();
      if (kind.equals("ServiceMonitor")) {
        continue; // below, against its Service
      }
      List<String> violations = openApi(object.path("apiVersion").asText()).validateObject(object);
      assertThat(violations)
          .as(
              "%s %s (%s values)",
              kind, object.path("metadata").path("name"), full ? "full" : "default")
          .isEmpty();
    }
    JsonNode daemonSet = only(objects, "DaemonSet");
    JsonNode container = daemonSet.at("/spec/template/spec/containers/0");
    List<String> args = new ArrayList<>();
    container.path("args").forEach(a -> args.add(a.asText()));
    Map<String, String> env = new HashMap<>();
    container.path("env").forEach(e -> env.put(e.path("name").asText(), e.path("value").asText()));
    env.put("NODE_NAME", "node-1");
    env.put("POD_UID", "8a1e2f4c-9d3b-4f6a-b1c2-0d9e8f7a6b5c");
    // The driver accepts every flag the chart passes.
    DriverSettings options = DriverSettings.parse(args.subList(1, args.size()), Map.of(), env);
    assertThat(options.healthPort()).isEqualTo(container.at("/ports/0/containerPort").asInt());
    assertThat(daemonSet.at("/spec/updateStrategy/rollingUpdate/maxSurge").asInt()).isEqualTo(1);
    assertThat(daemonSet.at("/spec/updateStrategy/rollingUpdate/maxUnavailable").asInt()).isZero();

    List<JsonNode> monitors = all(objects, "ServiceMonitor");
    assertThat(monitors).hasSize(full ? 1 : 0);
    for (JsonNode monitor : monitors) {
      JsonNode service = only(objects, "Service");
      assertThat(monitor.at("/spec/endpoints/0/port").asText())
          .isEqualTo(service.at("/spec/ports/0/name").asText());
      monitor
          .at("/spec/selector/matchLabels")
          .properties()
          .forEach(
              l ->
                  assertThat(service.at("/metadata/labels").path(l.getKey()).asText())
                      .isEqualTo(l.getValue().asText()));
      assertThat(service.at("/spec/ports/0/targetPort").asText())
          .isEqualTo(container.at("/ports/0/name").asText());
    }
  }

  @Test
  void fullValuesReachEveryOptionalPart() throws Exception {
    List<JsonNode> objects =
        objects(render("nvidia-driver", Optional.of(fullValues("nvidia-driver"))));
    assertThat(all(objects, "DeviceClass"))
        .extracting(c -> c.path("metadata").path("name").asText())
        .containsExactly("gpu.acme.example", "mig.acme.example");
    assertThat(only(objects, "DeviceClass").at("/spec/extendedResourceName").asText())
        .isEqualTo("acme.example/gpu");
    JsonNode pod = only(objects, "DaemonSet").at("/spec/template/spec");
    assertThat(pod.at("/serviceAccountName").asText()).isEqualTo("acme-driver");
    assertThat(pod.at("/tolerations/0/key").asText()).isEqualTo("example.com/accelerator");
    assertThat(pod.at("/imagePullSecrets/0/name").asText()).isEqualTo("registry-credentials");
    assertThat(pod.toString())
        .contains("--host-driver-root=/run/nvidia/driver")
        .contains("--extended-resource-conflict=fail")
        .contains("--health-taint-effect=NoExecute")
        .contains("MaxRAMPercentage=60")
        .contains("-Xlog:gc:stderr");
    assertThat(only(objects, "ValidatingAdmissionPolicy").toString())
        .contains("system:serviceaccount:" + NAMESPACE + ":acme-driver");

    List<JsonNode> defaults = objects(render("fake-driver", Optional.empty()));
    assertThat(all(defaults, "Service")).isEmpty();
    assertThat(only(defaults, "DeviceClass").at("/spec/extendedResourceName").asText())
        .isEqualTo("example.com/gpu");
  }

  @Test
  void theHostDeviceChartMakesAClassPerDeviceAndOneConfigurationForTheDriverAndThePlugin()
      throws Exception {
    List<JsonNode> objects =
        objects(render("hostdev-driver", Optional.of(fullValues("hostdev-driver"))));
    assertThat(all(objects, "DeviceClass"))
        .extracting(
            c -> c.path("metadata").path("name").asText(),
            c -> c.at("/spec/extendedResourceName").asText())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("fuse.hostdev.acme.example", "acme.example/fuse"),
            org.assertj.core.groups.Tuple.tuple(
                "serial.hostdev.acme.example", "acme.example/serial"),
            org.assertj.core.groups.Tuple.tuple(
                "ch340.hostdev.acme.example", "acme.example/ch340"));
    // generic-device-plugin's config file format: its domain and devices list.
    JsonNode config = YAML.readTree(only(objects, "ConfigMap").at("/data/config.yaml").asText());
    assertThat(config.path("domain").asText()).isEqualTo("acme.example");
    assertThat(config.path("devices")).hasSize(3);
    assertThat(config.at("/devices/2/groups/0/usb/0/product").asText()).isEqualTo("7523");
    JsonNode pod = only(objects, "DaemonSet").at("/spec/template/spec");
    assertThat(pod.toString())
        .contains("--device-config=/etc/hostdev/config.yaml", "--dev-root=/host-dev");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "extendedResourceConflict=sometimes|extendedResourceConflict",
        "health.taintEffect=Evict|taintEffect",
        "driverName=Not_A_Name|driverName",
        "imageTag=1.0|imageTag",
        "metrics.port=70000|port",
        "health.recoveryDelay=1h30m|recoveryDelay",
        "deviceClass.extendedResourceName=gpu|extendedResourceName",
      })
  void valuesSchemaRejectsWhatTheDriverWouldNot(String setting, String named) throws Exception {
    for (String example : List.of("fake-driver", "nvidia-driver")) {
      PeerTools.Output out =
          helm(
              "template",
              chartName(example),
              chart(example).toString(),
              "--namespace",
              NAMESPACE,
              "--set",
              setting);
      assertThat(out.exitCode()).as(setting + " must be refused").isNotZero();
      assertThat(out.stderr()).contains("values don't meet the specifications").contains(named);
    }
  }

  // --- helpers ---

  /** {@code helm template} exactly as examples/render-deploy.sh runs it. */
  private static String render(String example, Optional<Path> values) throws Exception {
    return Helm.template(chartName(example), chart(example), NAMESPACE, values);
  }

  private static List<JsonNode> objects(String yaml) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (var parser = YAML.getFactory().createParser(yaml)) {
      for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
        if (doc != null && !doc.isNull() && !doc.isEmpty()) {
          out.add(doc);
        }
      }
    }
    return out;
  }

  private static List<JsonNode> all(List<JsonNode> objects, String kind) {
    return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
  }

  private static JsonNode only(List<JsonNode> objects, String kind) {
    List<JsonNode> found = all(objects, kind);
    assertThat(found).as("objects of kind " + kind).isNotEmpty();
    return found.get(0);
  }

  private static PeerTools.Output helm(String... args) throws Exception {
    return Helm.run(args);
  }

  /** The official OpenAPI v3 document of one group version, from DRA4J_KUBE_OPENAPI. */
  private static synchronized OpenApiSchemas openApi(String apiVersion) throws IOException {
    OpenApiSchemas cached = DOCUMENTS.get(apiVersion);
    if (cached != null) {
      return cached;
    }
    String dir = System.getenv("DRA4J_KUBE_OPENAPI");
    if (dir == null || dir.isEmpty() || !Files.isDirectory(Path.of(dir))) {
      PeerTools.unavailable(
          "the Kubernetes v1.37.2 OpenAPI documents are not found; set DRA4J_KUBE_OPENAPI to the"
              + " folder .ci/kube-openapi.sh prints");
    }
    String file =
        apiVersion.contains("/")
            ? "apis__" + apiVersion.replace("/", "__") + "_openapi.json"
            : "api__" + apiVersion + "_openapi.json";
    try (InputStream in = Files.newInputStream(Path.of(dir, file))) {
      OpenApiSchemas schemas = OpenApiSchemas.load(in);
      DOCUMENTS.put(apiVersion, schemas);
      return schemas;
    }
  }
}
