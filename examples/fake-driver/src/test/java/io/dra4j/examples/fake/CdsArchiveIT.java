package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The class-data-sharing archive the build makes is valid and actually used. */
class CdsArchiveIT {
  private static final String JAR = System.getProperty("dra4j.jar");
  private static final String ARCHIVE = System.getProperty("dra4j.cds");

  @Test
  void theDriverLoadsItsClassesFromTheArchive() throws Exception {
    assertThat(Path.of(ARCHIVE)).exists();
    // -Xshare:on fails instead of silently falling back when the archive cannot be mapped.
    String out =
        java(
            "-Xshare:on",
            "-XX:SharedArchiveFile=" + ARCHIVE,
            "-Xlog:class+load=info",
            "-jar",
            JAR,
            "--help");
    assertThat(out)
        .contains("io.dra4j.examples.fake.FakeDriverMain source: shared objects file (top)");
    assertThat(Files.size(Path.of(ARCHIVE))).isGreaterThan(1 << 20);
  }

  /**
   * The build trains the archive with {@code train}: the driver's {@code run} in a process of its
   * own, called as a node calls it. So the archive holds the node's path, the kubelet's calls and
   * the API client included, and none of the test kit that played the cluster.
   */
  @Test
  void theArchiveHoldsTheRunPathAndNoneOfTheTestKit() throws Exception {
    String listing =
        java("-XX:SharedArchiveFile=" + ARCHIVE, "-XX:+PrintSharedArchiveAndExit", "-jar", JAR);
    assertThat(listing)
        .contains(
            "io.dra4j.launcher.DriverMain ",
            "io.dra4j.runtime.internal.claims.ClaimPreparer ",
            "io.dra4j.kube.HttpKubeClient ",
            "io.dra4j.proto.dra.v1.NodePrepareResourcesRequest ")
        // The launcher names its dev and train commands, so those classes load; the parts that
        // played the cluster do not.
        .doesNotContain(
            "io.dra4j.testkit.apiserver.",
            "io.dra4j.testkit.kubelet.",
            "io.dra4j.testkit.allocator.ClusterAllocator ");
  }

  /** Runs this JVM's {@code java} with {@code args}; its output, once it exited with 0. */
  private static String java(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
