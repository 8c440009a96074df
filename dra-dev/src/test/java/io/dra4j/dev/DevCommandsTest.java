package io.dra4j.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.launcher.Launcher;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With dra-dev on the class path, every launcher has {@code dev} and {@code train}. */
class DevCommandsTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private int run(String... args) {
    return Launcher.named("acme-driver-dev.jar")
        .run(
            List.of(args),
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }

  @Test
  void theLauncherListsAndRunsDevAndTrain() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .containsPattern("(?m)^  dev          the driver on this machine with the test kit's")
        .containsPattern("(?m)^  train        the JVM's training run for the image");
    out.reset();
    assertThat(run("dev", "--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: dev ");
    out.reset();
    assertThat(run("train", "--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: train ");
  }
}
