package io.dra4j.testkit.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.health.HealthStatus;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.kubelet.DeviceHealthState;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import io.dra4j.runtime.internal.kubelet.InMemoryHealthSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulator's command line against a running server. */
class SimulatorCliTest {

  @TempDir Path tmp;
  Harness h;
  final ScriptedNodeService service = new ScriptedNodeService();
  final InMemoryHealthSource health = new InMemoryHealthSource();
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void setUp() throws Exception {
    h = new Harness(tmp);
    health.publish(
        new HealthSnapshot(
            List.of(
                new DeviceHealthState("node-1", "gpu-0", HealthStatus.UNHEALTHY, 42, "hot", 30))));
    h.register(h.server(service).healthSource(health));
  }

  @AfterEach
  void tearDown() throws Exception {
    h.close();
  }

  private int run(String... args) throws Exception {
    out.reset();
    err.reset();
    return SimulatorCli.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void listPrintsWhatEachPluginAdvertised() throws Exception {
    assertThat(run("list", "--registry", h.registry.toString(), "--wait", "0.5")).isZero();
    assertThat(out())
        .contains("REGISTERED gpu.example.com")
        .contains("endpoint            " + tmp.resolve("plugins/gpu.example.com/dra.sock"))
        .contains(
            "[v1.DRAPlugin, v1beta1.DRAPlugin, v1.DRAResourceHealth, v1alpha1.DRAResourceHealth]")
        .contains("kubelet would use   v1.DRAPlugin, v1.DRAResourceHealth");
  }

  @Test
  void prepareAndUnprepareClaims() throws Exception {
    String registry = h.registry.toString();
    assertThat(
            run("prepare", "--registry", registry, "--driver", "gpu.example.com", "ns/gpu-a/uid-a"))
        .isZero();
    assertThat(out())
        .contains("claim uid-a: ok")
        .contains(
            "device node-1/gpu-a requests=[gpu] cdi=[example.com/gpu=gpu-a] shareId=share-gpu-a");

    assertThat(
            run(
                "prepare",
                "--registry",
                registry,
                "--driver",
                "gpu.example.com",
                "--version",
                "v1beta1",
                "ns/gpu-a/uid-a"))
        .isZero();
    assertThat(out()).contains("cdi=[example.com/gpu=gpu-a]").doesNotContain("shareId");

    assertThat(
            run(
                "unprepare",
                "--registry",
                registry,
                "--driver",
                "gpu.example.com",
                "ns/gpu-a/uid-a"))
        .isZero();
    assertThat(out()).contains("claim uid-a: ok");
    assertThat(service.unprepareCalls).hasSize(1);
  }

  @Test
  void aFailedClaimExitsWithOne() throws Exception {
    service.prepare = (claims, call) -> Map.of("uid-a", ClaimPrepareResult.failed("no such GPU"));
    assertThat(
            run(
                "prepare",
                "--registry",
                h.registry.toString(),
                "--driver",
                "gpu.example.com",
                "ns/gpu-a/uid-a"))
        .isEqualTo(1);
    assertThat(out()).contains("claim uid-a: error: no such GPU");
  }

  @Test
  void healthPrintsReports() throws Exception {
    assertThat(
            run(
                "health",
                "--registry",
                h.registry.toString(),
                "--driver",
                "gpu.example.com",
                "--version",
                "v1alpha1"))
        .isZero();
    assertThat(out())
        .contains("v1alpha1.DRAResourceHealth: 1 devices")
        .contains("node-1/gpu-0 UNHEALTHY lastUpdated=42 timeout=30 message=hot");
  }

  @Test
  void badUsageExitsWithTwo() throws Exception {
    assertThat(run()).isEqualTo(2);
    assertThat(out()).contains("Usage: kubelet-simulator");
    assertThat(run("prepare", "--registry", h.registry.toString(), "--driver", "x", "no-slashes"))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("must be NAMESPACE/NAME/UID");
    assertThat(run("frobnicate")).isEqualTo(2);
    assertThat(run("list", "--bogus", "1")).isEqualTo(2);
  }

  @Test
  void unknownDriverTimesOutWithOne() throws Exception {
    assertThat(
            run(
                "prepare",
                "--registry",
                h.registry.toString(),
                "--driver",
                "nobody.example.com",
                "--wait",
                "0.3",
                "ns/a/u"))
        .isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("no plugin for driver nobody.example.com");
  }
}
