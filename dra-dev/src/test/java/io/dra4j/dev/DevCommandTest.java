package io.dra4j.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dev loop with spi-fake's provider, as a vendor runs it with their own. */
class DevCommandTest {
  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    out.reset();
    err.reset();
    return DevCommand.run(
        List.of(args),
        Map.of("provider", "fake"),
        env,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void publishesAllocatesPreparesAndShowsTheCdiSpec() throws Exception {
    int status =
        run(
            Map.of("DRIVER_NAME", "gpu.example.com"),
            "--claim",
            "--once",
            "--dir",
            dir.toString(),
            "--devices",
            "2");
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(status).as(text + err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(text)
        .contains("kubectl --kubeconfig " + dir.resolve("kubeconfig"))
        .contains("extendedResourceName: gpu.example.com/device")
        .contains("provider \"fake\", settings {devices=2}")
        .contains("pool dev-node, 2 devices")
        .contains("gpu-0 ")
        .contains("allocated: device -> gpu.example.com/dev-node/gpu-")
        .contains("-> CDI [k8s.gpu.example.com/claim=")
        .contains("\"cdiVersion\"")
        .contains("unprepared default/dev-claim");
    assertThat(dir.resolve("kubeconfig")).exists();
    try (var specs = Files.list(dir.resolve("cdi"))) {
      assertThat(specs.filter(p -> p.toString().endsWith(".json"))).isEmpty();
    }
  }

  @Test
  void helpAndUsageErrors() {
    assertThat(run(Map.of(), "--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--driver-name=NAME", "environment variable DRIVER_NAME")
        .contains("--node-name=NAME", "default: dev-node; environment variable NODE_NAME")
        .contains("--claim", "--once", "--dir=DIR", "--config=KEY=VALUE")
        .contains("--log-level=error|warn|info|debug|trace")
        .contains("default: info; environment variable LOG_LEVEL")
        .doesNotContain("Default: dev-node");
    assertThat(run(Map.of(), "--once")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--driver-name (or DRIVER_NAME)");
    assertThat(run(Map.of("DRIVER_NAME", "gpu.example.com"), "--once", "stray")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unexpected argument \"stray\"");
    assertThat(run(Map.of("DRIVER_NAME", "gpu.example.com"), "--once", "--log-level", "loud"))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("log level \"loud\" must be one of error, warn, info, debug, trace");
  }
}
