package io.dra4j.testkit.apiserver;

import static io.dra4j.testkit.apiserver.KubeClientContractTest.DRIVER;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.claim;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.testsupport.PeerTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real kubectl (v1.37.2, built from its Go module for the e2e cluster) against the test kit's
 * server, through the kubeconfig the server writes: discovery, the table columns and JSON output.
 * Without the binary the test is skipped with a warning, or fails under {@code
 * DRA4J_REQUIRE_PEERS=1}.
 */
class KubectlTest {
  static final String VERSION = "v1.37.2";

  @TempDir Path dir;

  /** {@code DRA4J_KUBECTL}, else the e2e cluster's build in {@code ~/.cache/dra4j}. */
  static Optional<Path> kubectl() {
    String explicit = System.getenv("DRA4J_KUBECTL");
    Path p =
        explicit != null && !explicit.isBlank()
            ? Path.of(explicit)
            : Path.of(
                System.getProperty("user.home"),
                ".cache/dra4j/kubernetes-" + VERSION + "/bin/kubectl");
    return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
  }

  @Test
  void kubectlListsTheServersResourcesWithItsKubeconfig() throws Exception {
    Optional<Path> kubectl = kubectl();
    if (kubectl.isEmpty()) {
      PeerTools.unavailable(
          "kubectl " + VERSION + " is not built (e2e/cluster.sh build, or set DRA4J_KUBECTL)");
    }
    // As the standalone server and the dev command run it: kubectl sends no token over http.
    try (FakeApiServer server =
        FakeApiServer.builder().allowAnonymous(true).build().startServer()) {
      server.putNode("node-1");
      server.put(ResourceSlice.TYPE, slice("node-1-gpu", "node-1", DRIVER));
      server.put(
          DeviceClass.TYPE,
          KubeJson.yaml()
              .readValue(
                  "metadata: {name: gpu.example.com}\n"
                      + "spec: {selectors: [{cel: {expression: \"device.driver =="
                      + " 'gpu.example.com'\"}}]}\n",
                  DeviceClass.class));
      server.put(ResourceClaim.TYPE, claim("default", "train", Map.of()));
      Path kubeconfig = server.writeKubeconfig(dir.resolve("kubeconfig"));

      PeerTools.Output get =
          run(
              kubectl.get(),
              kubeconfig,
              "get",
              "resourceslices,resourceclaims,deviceclasses,nodes");
      assertThat(get.exitCode()).as(get.stderr()).isZero();
      assertThat(get.stderr()).isEmpty();
      assertThat(get.stdout())
          .containsPattern("NAME\\s+NODE\\s+DRIVER\\s+POOL\\s+AGE")
          .containsPattern("resourceslice.resource.k8s.io/node-1-gpu\\s+node-1\\s+" + DRIVER)
          .containsPattern("resourceclaim.resource.k8s.io/train\\s+pending")
          .contains("deviceclass.resource.k8s.io/gpu.example.com")
          .contains("node/node-1");

      PeerTools.Output json = run(kubectl.get(), kubeconfig, "get", "resourceslice", "-o", "json");
      assertThat(json.exitCode()).as(json.stderr()).isZero();
      ResourceSlice listed =
          KubeJson.mapper()
              .treeToValue(
                  KubeJson.mapper().readTree(json.stdout()).path("items").get(0),
                  ResourceSlice.class);
      assertThat(listed.spec().devices()).hasSize(1);

      PeerTools.Output resources = run(kubectl.get(), kubeconfig, "api-resources");
      assertThat(resources.exitCode()).as(resources.stderr()).isZero();
      assertThat(resources.stdout())
          .containsPattern("resourceslices\\s+resource.k8s.io/v1\\s+false\\s+ResourceSlice")
          .containsPattern("nodes\\s+no\\s+v1\\s+false\\s+Node");
    }
  }

  private PeerTools.Output run(Path kubectl, Path kubeconfig, String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                kubectl.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--cache-dir",
                dir.resolve("cache").toString()));
    command.addAll(List.of(args));
    return PeerTools.exec(command, Duration.ofSeconds(60));
  }
}
