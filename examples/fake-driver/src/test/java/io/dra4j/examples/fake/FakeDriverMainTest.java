package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.launcher.DriverSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code fake-dra-driver.jar --help} and {@code run --help}: every command, every flag. */
class FakeDriverMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    return FakeDriverMain.run(
        List.of(args),
        env,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void helpListsEveryCommand() {
    assertThat(run(Map.of(), "--help")).isZero();
    assertThat(out()).contains("Usage: fake-dra-driver.jar [-h] COMMAND");
    for (String command : List.of("run", "doctor", "dev", "demo", "train", "deviceclass")) {
      assertThat(out()).containsPattern("(?m)^  " + command + " +\\S");
    }
  }

  @Test
  void runHelpListsEveryFlagWithTheFakeDriversDefaults() {
    assertThat(run(Map.of("DRIVER_NAME", "ignored.example.com"), "run", "--help")).isZero();
    // The help says what the launcher defaults to, not what this environment happens to hold.
    assertThat(out().strip())
        .isEqualTo(
            DriverSettings.usage(
                    Map.of("provider", "fake", "driver-name", FakeDriverMain.DEFAULT_DRIVER_NAME))
                .strip());
    assertThat(out())
        .contains("default: gpu.example.com; environment variable DRIVER_NAME")
        .contains("default: fake")
        .contains("default: none, required; environment variable NODE_NAME")
        .contains("environment variable POD_UID")
        .contains("environment variable KUBECONFIG")
        .contains("environment variable LOG_LEVEL");
  }

  @Test
  void noOrAnUnknownCommandIsAUsageError() {
    assertThat(run(Map.of())).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("deviceclass");
    assertThat(run(Map.of(), "rnu")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("rnu");
  }

  @Test
  void aRunUsageErrorNamesTheFlag() {
    assertThat(run(Map.of("NODE_NAME", "n"), "run", "--health-port", "x")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("error: flag --health-port \"x\" must be an integer");
  }
}
