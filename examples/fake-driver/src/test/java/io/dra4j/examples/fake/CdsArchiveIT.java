package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The class-data-sharing archive the build makes is valid and actually used. */
class CdsArchiveIT {

  @Test
  void theDriverLoadsItsClassesFromTheArchive() throws Exception {
    Path jar = Path.of(System.getProperty("dra4j.jar"));
    Path archive = Path.of(System.getProperty("dra4j.cds"));
    assertThat(archive).exists();
    // -Xshare:on fails instead of silently falling back when the archive cannot be mapped.
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xshare:on",
                    "-XX:SharedArchiveFile=" + archive,
                    "-Xlog:class+load=info",
                    "-jar",
                    jar.toString(),
                    "--help"))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("io.dra4j.examples.fake.FakeDriverMain source: shared objects file (top)");
    assertThat(Files.size(archive)).isGreaterThan(1 << 20);
  }

  /**
   * The build trains the archive with {@code train}: the driver's {@code run} in a process of its
   * own, called as a node calls it. So the archive holds the node's path, the kubelet's calls and
   * the API client included, and none of the test kit that played the cluster.
   */
  @Test
  void theArchiveHoldsTheRunPathAndNoneOfTheTestKit() throws Exception {
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:SharedArchiveFile=" + System.getProperty("dra4j.cds"),
                    "-XX:+PrintSharedArchiveAndExit",
                    "-jar",
                    System.getProperty("dra4j.jar")))
            .redirectErrorStream(true)
            .start();
    String listing = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(listing)
        .contains(
            "io.dra4j.runtime.DriverMain ",
            "io.dra4j.runtime.internal.claims.ClaimPreparer ",
            "io.dra4j.runtime.kube.HttpKubeClient ",
            "io.dra4j.proto.dra.v1.NodePrepareResourcesRequest ")
        // The launcher names its dev and train commands, so those classes load; the parts that
        // played the cluster do not.
        .doesNotContain(
            "io.dra4j.testkit.apiserver.",
            "io.dra4j.testkit.kubelet.",
            "io.dra4j.testkit.allocator.ClusterAllocator ");
  }
}
