package io.dra4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LauncherTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final List<List<String>> calls = new ArrayList<>();

  private final Launcher launcher =
      Launcher.named("acme-driver.jar")
          .defaults(Map.of("driver-name", "accel.acme.example"))
          .command(
              "dev",
              "the driver on this machine with the test kit's API server and kubelet simulator,"
                  + " no cluster needed",
              (args, defaults, env, o, e) -> {
                calls.add(args);
                o.println("defaults " + defaults + " env " + env);
                return 7;
              });

  private int run(String... args) {
    return launcher.run(
        List.of(args),
        Map.of("X", "1"),
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
  void aCommandGetsWhatFollowsItsNameTheDefaultsAndTheEnvironment() {
    assertThat(run("dev", "--claim", "c1", "--help")).isEqualTo(7);
    assertThat(calls).containsExactly(List.of("--claim", "c1", "--help"));
    assertThat(out()).contains("defaults {driver-name=accel.acme.example} env {X=1}");
  }

  @Test
  void helpListsEveryCommandInTwoColumnsWithinEightyCharacters() {
    assertThat(run("--help")).isZero();
    assertThat(err()).isEmpty();
    String help = out();
    assertThat(help)
        .startsWith(
            "Usage: acme-driver.jar [-h] COMMAND\n  -h, --help   print this help\nCommands:\n")
        .contains("\n  run          the DRA driver, as its DaemonSet runs it\n")
        .contains("\n  deviceclass  print a DeviceClass for this driver's devices\n")
        .endsWith("\nEach command's flags: acme-driver.jar COMMAND --help\n");
    // A long description goes on under its own column, a little further in.
    assertThat(help)
        .containsPattern(
            "(?m)^  dev          the driver on this machine with the test kit's API server and\n"
                + " {17}kubelet simulator, no cluster needed$");
    assertThat(help.lines()).allMatch(line -> line.length() <= 80);
    assertThat(run("-h")).isZero();
  }

  @Test
  void theClassPathContributesCommandsButNeverReplacesABuiltInOne() {
    assertThat(run("greet", "a")).isEqualTo(3);
    assertThat(out()).contains("greet [a] {driver-name=accel.acme.example}");
    out.reset();
    assertThat(run("--help")).isZero();
    assertThat(out())
        .contains("\n  greet        a command an artifact on the class path contributes\n")
        .doesNotContain("not the driver");
    // The built-in run parses its own flags: its help, not the contributed command.
    out.reset();
    assertThat(run("run", "--help")).isZero();
    assertThat(out()).contains("--driver-name");
  }

  @Test
  void nettysFlightRecorderEventsAreOffUnlessAsked() {
    String key = "io.grpc.netty.shaded.io.netty.jfr.enabled";
    String before = System.getProperty(key);
    try {
      System.clearProperty(key);
      run("--help");
      assertThat(System.getProperty(key)).isEqualTo("false");
      System.setProperty(key, "true");
      run("--help");
      assertThat(System.getProperty(key)).isEqualTo("true");
    } finally {
      if (before == null) {
        System.clearProperty(key);
      } else {
        System.setProperty(key, before);
      }
    }
  }

  @Test
  void noCommandIsAUsageErrorWithTheHelp() {
    assertThat(run()).isEqualTo(Launcher.EXIT_USAGE);
    assertThat(err()).startsWith("Usage: acme-driver.jar [-h] COMMAND").contains("deviceclass");
    assertThat(out()).isEmpty();
  }

  @Test
  void anUnknownCommandOrFlagIsNamedWithTheCommandsThereAre() {
    assertThat(run("rnu", "--node-name", "n")).isEqualTo(Launcher.EXIT_USAGE);
    assertThat(err())
        .startsWith(
            "error: unknown command \"rnu\": the first word names a command (run, deviceclass,"
                + " greet, dev)\nUsage: acme-driver.jar");
    err.reset();
    assertThat(run("--node-name", "n", "run")).isEqualTo(Launcher.EXIT_USAGE);
    assertThat(err()).startsWith("error: unknown flag \"--node-name\"");
    assertThat(calls).isEmpty();
  }
}
