package io.dra4j.testkit.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.runtime.testsupport.PeerTools;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded {@code dra-testkit-kubelet-simulator.jar} as the README runs it ({@code java -jar}):
 * gRPC and its Unix-socket transport are in the jar, and it registers a real driver's plugin.
 */
class SimulatorJarIT {
  @TempDir Path dir;

  private PeerTools.Output java(String... args) throws Exception {
    Path jar = Path.of(System.getProperty("dra4j.kubeletSimulatorJar"));
    assertThat(jar).isRegularFile();
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString()));
    command.addAll(List.of(args));
    return PeerTools.exec(command, Duration.ofSeconds(60));
  }

  @Test
  void theShadedJarRunsOnItsOwn() throws Exception {
    PeerTools.Output help = java("--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.stdout()).contains("watch", "list", "prepare", "unprepare", "health");

    PeerTools.Output prepareHelp = java("prepare", "--help");
    assertThat(prepareHelp.stdout())
        .contains("--registry=DIR", "/var/lib/kubelet/plugins_registry", "--driver=NAME");

    try (Harness h = new Harness(dir)) {
      h.register(h.server(new ScriptedNodeService()));
      PeerTools.Output list = java("list", "--registry", h.registry.toString(), "--wait", "5");
      assertThat(list.exitCode()).as(list.stderr()).isZero();
      assertThat(list.stdout()).contains("REGISTERED gpu.example.com");
      PeerTools.Output prepare =
          java(
              "prepare",
              "--registry",
              h.registry.toString(),
              "--driver",
              "gpu.example.com",
              "ns/gpu-a/uid-a");
      assertThat(prepare.exitCode()).as(prepare.stderr()).isZero();
      assertThat(prepare.stdout()).contains("claim uid-a: ok");
    }
  }
}
