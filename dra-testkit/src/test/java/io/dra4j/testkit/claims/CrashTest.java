package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.runtime.kube.ResourceClaim;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real driver process (child JVM) is killed with SIGKILL at each step of a prepare; a new driver
 * (in this JVM) recovers, and prepare and unprepare converge with no orphan files and no device
 * handed out twice.
 */
class CrashTest {

  @TempDir Path tmp;
  ClaimsHarness h;
  final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void setUp() throws Exception {
    h = new ClaimsHarness(tmp);
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
    h.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"after-started", "after-provider", "after-cdi", "after-completed"})
  void killedMidPrepareThenRecovered(String point) throws Exception {
    ClaimRef claim = h.seed("victim", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef rival = h.seed("rival", List.of(result("gpu", "node-a", "gpu-0")));
    Path kubeconfig = h.api.writeKubeconfig(tmp.resolve("kubeconfig"));
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Ddra4j.claims.crashPoint=" + point,
                "-cp",
                System.getProperty("java.class.path"),
                CrashChild.class.getName(),
                tmp.toString(),
                kubeconfig.toString())
            .redirectErrorStream(true)
            .start();
    LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    List<String> output = new ArrayList<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                  lines.add(l);
                }
              } catch (Exception ignored) {
                // The child died.
              }
            });
    reader.setDaemon(true);
    reader.start();
    try {
      String ready = await(lines, output, "READY ");
      PluginInstance childPlugin =
          h.kubelet.awaitPluginAt(Path.of(ready.substring("READY ".length())), ClaimsHarness.WAIT);
      CompletableFuture<?> call =
          CompletableFuture.runAsync(() -> childPlugin.prepare(List.of(claim)), threads);
      await(lines, output, "DRA4J-CRASH-POINT " + point);
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(call).failsWithin(java.time.Duration.ofSeconds(30));
    } finally {
      if (child.isAlive()) {
        child.destroyForcibly();
      }
    }

    // A new driver process: recovers, then the kubelet retries.
    TestProvider provider = new TestProvider();
    provider.status = d -> Optional.of(DeviceStatus.ready("Ok", "ready"));
    PluginInstance plugin = h.start(provider, b -> b.deviceMetadata(true));
    boolean completedBeforeCrash = point.equals("after-completed");
    if (completedBeforeCrash) {
      assertThat(provider.unprepareCalls).isEmpty();
      assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    } else {
      // Rolled back: the provider undid what it may have done, nothing of the claim is left.
      assertThat(provider.unprepareCalls).hasSize(1);
      assertThat(provider.unprepareCalls.get(0).completed()).isFalse();
      assertThat(h.checkpointFiles()).isEmpty();
      assertThat(h.cdiFiles()).isEmpty();
    }

    // The simulator may still hold the dead child's connection on the same socket path and swap
    // it for the new one: retry on UNAVAILABLE like the kubelet does.
    ClaimResult r = null;
    for (int attempt = 0; r == null; attempt++) {
      try {
        r = plugin.prepare(List.of(claim)).get(claim.uid());
      } catch (io.grpc.StatusRuntimeException e) {
        if (attempt >= 20 || e.getStatus().getCode() != io.grpc.Status.Code.UNAVAILABLE) {
          throw e;
        }
        Thread.sleep(100);
        plugin = h.kubelet.awaitPluginAt(h.server.registrationSocket(), ClaimsHarness.WAIT);
      }
    }
    assertThat(r.error()).isEmpty();
    assertThat(provider.prepareCalls).hasSize(completedBeforeCrash ? 0 : 1);
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    assertThat(h.cdiFiles())
        .containsExactlyInAnyOrder(
            "k8s." + DRIVER + "-claim_" + claim.uid() + ".json",
            DRIVER + "_metadata_" + claim.uid() + "_gpu.json");
    CdiValidators.assertValid(h.cdiDir, r.devices().get(0).cdiDeviceIds());
    // The claim status was applied (again, after the crash before it).
    assertThat(h.api.object(ResourceClaim.TYPE, "ns", "victim").get().status().devices())
        .hasSize(1);
    // No double allocation.
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).error().get())
        .contains("is already prepared for claim " + claim);

    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(h.cdiFiles()).isEmpty();
    assertThat(ClaimsHarness.files(h.pluginDir.resolve("dra-device-metadata"))).isEmpty();
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).isOk()).isTrue();
  }

  private static String await(LinkedBlockingQueue<String> lines, List<String> output, String prefix)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String l = lines.poll(100, TimeUnit.MILLISECONDS);
      if (l == null) {
        continue;
      }
      output.add(l);
      if (l.startsWith(prefix)) {
        return l;
      }
    }
    throw new AssertionError(
        "child never printed " + prefix + "; output:\n" + String.join("\n", output));
  }
}
