package io.dra4j.examples.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.slices.ResourceSlicePublisher;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.slices.PublishedSlices;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabric-publisher.jar}'s commands: help, usage errors, the dry run, and {@code run --once},
 * {@code cleanup} and the owner against the test kit's API server over real HTTP.
 */
class FabricPublisherMainTest {
  static final String DRIVER = FabricPublisherMain.DEFAULT_DRIVER_NAME;

  @TempDir Path tmp;
  FakeApiServer server;
  Path kubeconfig;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void startServer() {
    server = FakeApiServer.start();
    kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig"));
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  private int run(String... args) {
    out.reset();
    err.reset();
    return FabricPublisherMain.run(
        List.of(args),
        Map.of("KUBECONFIG", kubeconfig.toString()),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private PublishedSlices published() {
    return new PublishedSlices(server, DRIVER);
  }

  @Test
  void helpListsTheCommandsAndEachItsFlags() {
    assertThat(run("--help")).isZero();
    for (String command : List.of("run", "cleanup", "deviceclass")) {
      assertThat(out()).containsPattern("(?m)^  " + command + " +\\S");
    }
    assertThat(run("run", "--help")).isZero();
    assertThat(out())
        .contains("--rack=NAME=PORTS", "--accelerators=N", "--attached=NODE=COUNT")
        .contains("--owner-device-class=NAME", "--kubeconfig=FILE", "--once", "--dry-run")
        .containsPattern(
            "default:\\s+"
                + FabricPublisherMain.DurationConverter.format(
                    ResourceSlicePublisher.DEFAULT_SYNC_DELAY));
    assertThat(run()).isEqualTo(FabricPublisherMain.EXIT_USAGE);
    assertThat(err()).contains("cleanup");
  }

  @Test
  void mistakesAreUsageErrorsBeforeAnythingStarts() {
    assertThat(run("run", "--once")).isEqualTo(FabricPublisherMain.EXIT_USAGE);
    assertThat(err()).contains("error: no device");
    assertThat(run("run", "--rack", "Rack_A=4")).isEqualTo(FabricPublisherMain.EXIT_USAGE);
    assertThat(err()).contains("--rack Rack_A: a rack name must be a DNS label");
    assertThat(run("run", "--attached", "node-1=0")).isEqualTo(FabricPublisherMain.EXIT_USAGE);
    assertThat(err()).contains("--attached node-1: the count must be at least 1");
    assertThat(run("run", "--accelerators", "1", "--sync-delay", "soon"))
        .isEqualTo(FabricPublisherMain.EXIT_USAGE);
    assertThat(err()).contains("'soon' is not a duration");
    assertThat(server.writes("resourceslices")).isZero();
  }

  @Test
  void dryRunPrintsThePoolsWithTheirScopes() throws Exception {
    assertThat(
            run(
                "run",
                "--dry-run",
                "--rack",
                "a=2",
                "--accelerators",
                "1",
                "--attached",
                "node-1=2",
                "--attached",
                "node-2=1"))
        .as(err())
        .isZero();
    JsonNode pools = KubeJson.mapper().readTree(out());
    assertThat(pools)
        .extracting(p -> p.path("name").asText())
        .containsExactly("rack-a", "shared", "attached");
    assertThat(pools.get(0).path("scope").path("kind").asText()).isEqualTo("NODE_SELECTOR");
    assertThat(pools.get(0).path("devices")).hasSize(2);
    assertThat(pools.get(1).path("scope").path("kind").asText()).isEqualTo("ALL_NODES");
    assertThat(pools.get(2).path("devices"))
        .extracting(d -> d.path("nodeName").asText())
        .containsExactly("node-1", "node-1", "node-2");
  }

  @Test
  void runOncePublishesEveryFormOfNodeSelectionAndCleanupDeletesThem() throws Exception {
    String[] fabric = {
      "run",
      "--once",
      "--rack",
      "a=200",
      "--accelerators",
      "2",
      "--attached",
      "node-1=1",
      "--attached",
      "node-2=1"
    };
    assertThat(run(fabric)).as(err()).isZero();
    assertThat(out()).contains("driver fabric.example.com: 3 pools, 204 devices: published");

    PublishedSlices published = published();
    published.assertValid(Optional.empty(), "");
    assertThat(published.pool("rack-a")).as("split as the node driver splits").hasSize(2);
    assertThat(published.pool("rack-a").get(0).spec().nodeSelector().orElseThrow().toString())
        .contains(Fabric.DEFAULT_RACK_LABEL, "In", "a");
    assertThat(published.pool("shared").get(0).spec().allNodes()).isTrue();
    ResourceSlice attached = published.pool("attached").get(0);
    assertThat(attached.spec().perDeviceNodeSelection()).isTrue();
    assertThat(attached.spec().devices())
        .extracting(d -> d.nodeName().orElseThrow())
        .containsExactly("node-1", "node-2");

    // Run again: the same pools, nothing written.
    long writes = server.writes("resourceslices");
    assertThat(run(fabric)).isZero();
    assertThat(server.writes("resourceslices")).isEqualTo(writes);

    assertThat(run("cleanup")).as(err()).isZero();
    assertThat(out())
        .contains("driver fabric.example.com: 4 ResourceSlices without a node name deleted");
    assertThat(published.byPool()).isEmpty();
  }

  @Test
  void aDeviceClassOwnsTheSlicesWhenAsked() throws Exception {
    assertThat(run("deviceclass")).isZero();
    List<JsonNode> classes = new ArrayList<>();
    try (MappingIterator<JsonNode> it =
        new ObjectMapper(new YAMLFactory()).readerFor(JsonNode.class).readValues(out())) {
      classes.addAll(it.readAll());
    }
    assertThat(classes)
        .extracting(c -> c.path("metadata").path("name").asText())
        .containsExactly(
            "switch-port.fabric.example.com",
            "accelerator.fabric.example.com",
            "nvme.fabric.example.com");
    assertThat(
            classes
                .get(0)
                .path("spec")
                .path("selectors")
                .get(0)
                .path("cel")
                .path("expression")
                .asText())
        .isEqualTo(
            "device.driver == 'fabric.example.com'"
                + " && device.attributes['fabric.example.com'].kind == 'switch-port'");

    DeviceClass owner =
        server.put(
            DeviceClass.TYPE, KubeJson.mapper().treeToValue(classes.get(0), DeviceClass.class));
    assertThat(
            run(
                "run",
                "--once",
                "--accelerators",
                "1",
                "--owner-device-class",
                "switch-port.fabric.example.com"))
        .as(err())
        .isZero();
    published()
        .assertValid(
            Optional.empty(),
            "",
            Optional.of(
                new OwnerReference(
                    "resource.k8s.io/v1",
                    "DeviceClass",
                    "switch-port.fabric.example.com",
                    owner.metadata().uid(),
                    true,
                    false)));

    assertThat(run("run", "--once", "--accelerators", "1", "--owner-device-class", "missing"))
        .isEqualTo(FabricPublisherMain.EXIT_FAILED);
    assertThat(err()).contains("error: ", "missing");
  }

  @Test
  void theDurationsOfKubernetesFlagsAreRead() {
    FabricPublisherMain.DurationConverter c = new FabricPublisherMain.DurationConverter();
    assertThat(c.convert("500ms")).hasMillis(500);
    assertThat(c.convert("2m")).hasSeconds(120);
    assertThat(FabricPublisherMain.DurationConverter.format(c.convert("30s"))).isEqualTo("30s");
    assertThat(FabricPublisherMain.DurationConverter.format(c.convert("1500ms")))
        .isEqualTo("1500ms");
  }
}
