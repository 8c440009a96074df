package io.dra4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.launcher.Launcher;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With dra-doctor on the class path, every launcher has {@code doctor}, found by ServiceLoader. */
class DoctorCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private int run(String... args) {
    return Launcher.named("acme-driver.jar")
        .run(
            List.of(args),
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }

  @Test
  void theLauncherListsAndRunsTheDoctor() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains(
            "\n  doctor       check a cluster's migration from device plugins to DRA, read-only\n");
    out.reset();
    assertThat(run("doctor", "--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith(Doctor.USAGE);
  }
}
