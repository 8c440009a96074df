package io.dra4j.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The training run drives a real driver process (spi-fake's provider) from registration to exit.
 */
class TrainCommandTest {
  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    out.reset();
    err.reset();
    return TrainCommand.run(
        List.of(args),
        Map.of("driver-name", "gpu.example.com"),
        Map.of(),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private static List<String> driverCommand(String... jvmFlags) {
    List<String> line = new ArrayList<>();
    line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    line.addAll(List.of(jvmFlags));
    line.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            "io.dra4j.launcher.DriverMain",
            "run",
            "--provider",
            "fake",
            "--devices",
            "3"));
    return line;
  }

  @Test
  void preparesFromOneCallerThenFromEveryDeviceAndStopsTheDriverWithSigterm() throws Exception {
    List<String> args =
        new ArrayList<>(List.of("--dir", dir.resolve("work").toString(), "--pairs", "6", "--"));
    args.addAll(driverCommand());
    int status = run(args.toArray(String[]::new));
    String text = out.toString(StandardCharsets.UTF_8);
    String log = Files.readString(dir.resolve("work").resolve("driver.log"));
    assertThat(status).as(text + err.toString(StandardCharsets.UTF_8) + log).isZero();
    assertThat(text)
        .contains("--driver-name gpu.example.com --node-name training-node --kubeconfig ")
        .contains("--health-port 0")
        // 8 callers asked for, 3 devices: one caller per device.
        .contains("train: 12 prepares and unprepares answered (1 caller, then 3)")
        .contains("train: the driver stopped on SIGTERM with exit status 143");
    assertThat(log).contains("claim default/training-0-0-", "claim default/training-2-");
  }

  @Test
  void noPairsStopsTheDriverOnceItRegisteredAndPublished() {
    List<String> args = new ArrayList<>(List.of("--pairs", "0", "--"));
    args.addAll(driverCommand());
    int status = run(args.toArray(String[]::new));
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(status).as(text + err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(text)
        .doesNotContain("prepares and unprepares")
        .contains("train: the driver stopped on SIGTERM with exit status 143");
  }

  @Test
  void aDriverThatDiesIsReportedWithTheEndOfItsLog() {
    // The driver's flags come after the script: sh takes them as its $0, $1, ...
    int status = run("--", "sh", "-c", "echo cannot open /dev/example0; exit 3");
    assertThat(status).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains(
            "train failed: the driver exited with status 3 before it registered; the end of its"
                + " log:\ncannot open /dev/example0");
  }

  /**
   * What the training is for fails at the JVM's exit, after a clean run: a class-data-sharing
   * archive cannot hold classes from directories, and this test's class path is Maven's class
   * directories. That is a failed training, not a success.
   */
  @Test
  void aFailureAtTheDriversExitFailsTheTraining() {
    List<String> args = new ArrayList<>(List.of("--pairs", "1", "--"));
    args.addAll(driverCommand("-XX:ArchiveClassesAtExit=" + dir.resolve("driver.jsa")));
    int status = run(args.toArray(String[]::new));
    assertThat(status).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("train failed: the driver exited with status 1 after SIGTERM")
        .contains("[error][cds]");
  }

  @Test
  void helpAndUsageErrors() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--pairs=N", "Default: 200", "--callers=N", "Default: 8", "COMMAND...");
    assertThat(run("--pairs", "1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("COMMAND");
    assertThat(run("--dir", dir.getParent().toString(), "--", "java")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--dir " + dir.getParent() + " must be empty or not exist yet");
    assertThat(run("--pairs", "-1", "--", "java")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--pairs must be at least 0, --callers and --timeout at least 1");
  }
}
