package io.dra4j.testkit.apiserver;

import static io.dra4j.testkit.apiserver.KubeClientContractTest.DRIVER;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClients;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ResourceSlice;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone server in a child JVM: it writes a kubeconfig, prints its URL, and a client built
 * from that kubeconfig (plain http, token) talks to it.
 */
class StandaloneServerTest {

  @Test
  void helpListsEveryFlagWithItsDefault() {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    assertThat(
            Main.run(
                new String[] {"--help"},
                new java.io.PrintWriter(out),
                new java.io.PrintWriter(err)))
        .isZero();
    assertThat(out.toString())
        .contains("--port=PORT", "Default: 0")
        .contains("--host=ADDRESS", "Default: 127.0.0.1")
        .contains("--node=NAME", "--kubeconfig-out=FILE", "--token=TOKEN")
        .contains("--history=N", "Default: 1000")
        .contains("--bookmark-interval-ms=MS");
    assertThat(
            Main.run(
                new String[] {"--port", "x"},
                new java.io.PrintWriter(out),
                new java.io.PrintWriter(err)))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--port");
  }

  @Test
  void runsStandaloneAndWritesAWorkingKubeconfig(@TempDir Path dir) throws Exception {
    check(dir, List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
  }

  /** Starts {@code java <launch> --port 0 --kubeconfig-out FILE} and uses the server. */
  static void check(Path dir, List<String> launch) throws Exception {
    Path kubeconfig = dir.resolve("sub/kubeconfig.yaml");
    List<String> command =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(launch);
    command.addAll(
        List.of(
            "--port",
            "0",
            "--kubeconfig-out",
            kubeconfig.toString(),
            "--node",
            "node-1",
            "--node",
            "node-2"));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String url = out.readLine();
      assertThat(url).startsWith("http://127.0.0.1:");
      assertThat(Files.readString(kubeconfig)).contains("server: " + url);
      try (HttpKubeClient c = KubeClients.fromKubeconfig(kubeconfig)) {
        assertThat(c.config().server().toString()).isEqualTo(url);
        assertThat(c.list(Node.TYPE, "", ListOptions.ALL).items())
            .extracting(n -> n.metadata().name())
            .containsExactlyInAnyOrder("node-1", "node-2");
        c.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
        assertThat(c.list(ResourceSlice.TYPE, "", ListOptions.ALL).items()).hasSize(1);
      }
    } finally {
      p.destroy();
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
