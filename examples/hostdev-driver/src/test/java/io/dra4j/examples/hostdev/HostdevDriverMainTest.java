package io.dra4j.examples.hostdev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code hostdev-dra-driver.jar --help}, {@code run} and {@code deviceclass} with device flags. */
class HostdevDriverMainTest {
  static final String FUSE =
      "{\"name\": \"fuse\", \"groups\": [{\"count\": 10, \"paths\": [{\"path\": \"/dev/fuse\"}]}]}";

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    return HostdevDriverMain.run(
        List.of(args),
        env,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void helpListsEveryCommandAndRunHelpTheDeviceFlags() {
    assertThat(run(Map.of(), "--help")).isZero();
    for (String command : List.of("run", "deviceclass", "doctor")) {
      assertThat(out()).containsPattern("(?m)^  " + command + " +\\S");
    }
    out.reset();
    assertThat(run(Map.of(), "run", "--help")).isZero();
    assertThat(out())
        .contains("default: " + HostdevDriverMain.DEFAULT_DRIVER_NAME)
        .contains("--device SPEC", "--device-config FILE", "--domain D");
  }

  @Test
  void deviceclassPrintsOneClassPerDeviceWithThePluginsResourceName() throws Exception {
    assertThat(
            run(
                Map.of("DRIVER_NAME", "hostdev.acme.example"),
                "deviceclass",
                "--device",
                FUSE,
                "--device={name: tun, groups: [{paths: [{path: /dev/net/tun}]}]}",
                "--domain",
                "squat.ai"))
        .as(err())
        .isZero();
    List<JsonNode> docs;
    try (MappingIterator<JsonNode> it =
        new ObjectMapper(new YAMLFactory()).readerFor(JsonNode.class).readValues(out())) {
      docs = it.readAll();
    }
    assertThat(docs)
        .extracting(d -> d.path("metadata").path("name").asText())
        .containsExactly("fuse.hostdev.acme.example", "tun.hostdev.acme.example");
    assertThat(docs)
        .extracting(d -> d.path("spec").path("extendedResourceName").asText())
        .containsExactly("squat.ai/fuse", "squat.ai/tun");
    assertThat(docs.get(0).path("spec").path("selectors").toString())
        .contains(
            "device.driver == 'hostdev.acme.example'",
            "device.attributes['hostdev.acme.example'].resourceName == 'squat.ai/fuse'");
  }

  @Test
  void aBadDeviceIsAUsageErrorBeforeAnythingStarts() {
    assertThat(run(Map.of(), "run", "--device", "{\"name\": \"fuse\", \"groups\": 3}"))
        .isEqualTo(2);
    assertThat(err()).contains("error: --device #1 (device \"fuse\"): groups must be a list");
    err.reset();
    assertThat(run(Map.of(), "run", "--kubeconfig", "/nonexistent")).isEqualTo(2);
    assertThat(err()).contains("error: no device: give at least one --device SPEC");
    err.reset();
    assertThat(run(Map.of(), "deviceclass", "--device", FUSE, "--match", "x=y")).isEqualTo(2);
    assertThat(err()).contains("unknown flag --match");
    err.reset();
    assertThat(run(Map.of(), "run", "--device", FUSE, "--rescan-interval", "often")).isEqualTo(2);
    assertThat(err())
        .contains("error: setting rescan-interval=\"often\" must be a duration such as 5s");
    err.reset();
    assertThat(run(Map.of(), "run", "--device", FUSE, "--rescan-interval=0s")).isEqualTo(2);
    assertThat(err()).contains("error: setting rescan-interval=\"0s\" must be positive");
  }
}
