package io.dra4j.examples.nvidia;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.launcher.DriverSettings;
import io.dra4j.nvidia.NvidiaDiscoverCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code nvidia-dra-driver.jar --help}, {@code run --help} and {@code discover --help}. */
class NvidiaDriverMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    return NvidiaDriverMain.run(
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
    for (String command : List.of("run", "deviceclass", "doctor", "discover")) {
      assertThat(out()).containsPattern("(?m)^  " + command + " +\\S");
    }
  }

  @Test
  void runHelpListsEveryFlagWithTheNvidiaDriversDefaults() {
    assertThat(run(Map.of(), "run", "--help")).isZero();
    assertThat(out().strip())
        .isEqualTo(
            DriverSettings.usage(
                    Map.of(
                        "provider",
                        "nvidia",
                        "driver-name",
                        NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME))
                .strip());
    assertThat(out())
        .contains(
            "default: "
                + NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME
                + "; environment variable"
                + " DRIVER_NAME")
        .contains("default: nvidia");
  }

  @Test
  void discoverHelpListsItsFlagsWithDefaultsAndVariables() {
    assertThat(run(Map.of("NODE_NAME", "gpu-node-7"), "discover", "--help")).isZero();
    // The help says the default, not what this environment happens to hold.
    assertThat(out())
        .contains("--driver-name=NAME")
        .contains(
            "default: "
                + NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME
                + "; environment variable"
                + " DRIVER_NAME")
        .contains("--node-name=NAME")
        .containsPattern("default: \\S+; environment variable NODE_NAME")
        .doesNotContain("gpu-node-7")
        .contains("--KEY VALUE is a provider setting");
  }

  @Test
  void discoverRefusesAWordThatIsNoFlag() {
    assertThat(run(Map.of(), "discover", "gpu0")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("unexpected argument \"gpu0\": flags have the form --NAME VALUE");
  }
}
