package io.dra4j.examples.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Node;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar dra4j-doctor.jar} as a real process: its exit status is the verdict. */
class DoctorJarIT {
  @TempDir Path dir;

  record Result(int exit, String out, String err) {}

  Result run(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                System.getProperty("dra4j.doctor.jar")));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out, err);
  }

  @Test
  void theStandaloneJarJudgesAClusterAndSaysSoInItsExitStatus() throws Exception {
    try (FakeApiServer api = FakeApiServer.start()) {
      Path kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
      api.putNode("node-1");
      Result ok = run("--kubeconfig", kubeconfig.toString());
      assertThat(ok.exit()).as(ok.out() + ok.err()).isZero();
      assertThat(ok.out()).contains("1. Versions", "3. Supply per node", "verdict: ok");
      assertThat(ok.err()).doesNotContain("SLF4J");

      // A node that still advertises the name through a device plugin while DRA maps it too.
      Node n = api.object(Node.TYPE, "", "node-1").orElseThrow();
      Map<String, Quantity> gpus = Map.of("example.com/gpu", Quantity.of(4));
      try (var client = api.newClient()) {
        client.updateStatus(Node.TYPE, n.withStatus(Node.Status.of(gpus, gpus)));
        client.create(
            io.dra4j.kube.DeviceClass.TYPE,
            KubeJson.yaml()
                .readValue(
                    "metadata: {name: gpu}\nspec: {extendedResourceName: example.com/gpu}\n",
                    io.dra4j.kube.DeviceClass.class));
        client.create(
            io.dra4j.kube.ResourceSlice.TYPE,
            KubeJson.yaml()
                .readValue(
                    "metadata: {name: s}\nspec: {driver: gpu.example.com, nodeName: node-1,"
                        + " pool: {name: node-1, generation: 1, resourceSliceCount: 1},"
                        + " devices: [{name: gpu-0}]}\n",
                    io.dra4j.kube.ResourceSlice.class));
      }
      Result bad = run("--kubeconfig", kubeconfig.toString(), "--output", "json");
      assertThat(bad.exit()).as(bad.out() + bad.err()).isEqualTo(2);
      JsonNode report = KubeJson.mapper().readTree(bad.out());
      assertThat(report.path("findings").get(0).path("check").asText())
          .isEqualTo("supply.conflict");
    }
    Result unreachable = run("--kubeconfig", dir.resolve("none").toString());
    assertThat(unreachable.exit()).isEqualTo(3);
    assertThat(run("--help").exit()).isZero();
  }
}
