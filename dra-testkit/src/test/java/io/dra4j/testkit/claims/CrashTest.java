package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.runtime.kube.ResourceClaim;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.runtime.testsupport.ChildProcess;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real driver process (child JVM) is killed with SIGKILL at each step of a prepare, and in the
 * middle of an unprepare; a new driver (in this JVM) recovers, and prepare and unprepare converge
 * with no orphan files and no device handed out twice.
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
    try (Child child = Child.start(h, tmp, point)) {
      CompletableFuture<?> call =
          CompletableFuture.runAsync(() -> child.plugin.prepare(List.of(claim)), threads);
      child.killAt(point);
      assertThat(call).failsWithin(Duration.ofSeconds(30));
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

    plugin = reconnected(plugin);
    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());
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

  @Test
  void killedMidUnprepareThenRecovered() throws Exception {
    ClaimRef claim = h.seed("victim", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef rival = h.seed("rival", List.of(result("gpu", "node-a", "gpu-0")));
    String point = "after-provider-unprepare";
    try (Child child = Child.start(h, tmp, point)) {
      assertThat(child.plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();
      CompletableFuture<?> call =
          CompletableFuture.runAsync(() -> child.plugin.unprepare(List.of(claim)), threads);
      child.killAt(point);
      assertThat(call).failsWithin(Duration.ofSeconds(30));
    }
    // The provider released the device but the record and the spec are still there.
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    assertThat(h.cdiFiles())
        .containsExactlyInAnyOrder(
            "k8s." + DRIVER + "-claim_" + claim.uid() + ".json",
            DRIVER + "_metadata_" + claim.uid() + "_gpu.json");

    // A new driver process: the claim is still prepared as far as it knows, until the kubelet
    // retries the unprepare (it does until it succeeds); the device is not handed out meanwhile.
    TestProvider provider = new TestProvider();
    PluginInstance plugin = reconnected(h.start(provider, b -> b.deviceMetadata(true)));
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).error().get())
        .contains("is already prepared for claim " + claim);
    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).completed()).isTrue();
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(h.cdiFiles()).isEmpty();
    assertThat(ClaimsHarness.files(h.pluginDir.resolve("dra-device-metadata"))).isEmpty();
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).isOk()).isTrue();
  }

  /**
   * The simulator may still hold the dead child's connection on the same socket path and swap it
   * for the new one: wait for a call to get through, retrying on UNAVAILABLE like the kubelet.
   */
  private PluginInstance reconnected(PluginInstance plugin) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        plugin.unprepare(List.of());
        return plugin;
      } catch (io.grpc.StatusRuntimeException e) {
        if (attempt >= 20 || e.getStatus().getCode() != io.grpc.Status.Code.UNAVAILABLE) {
          throw e;
        }
        Thread.sleep(100);
        plugin = h.kubelet.awaitPluginAt(h.server.registrationSocket(), ClaimsHarness.WAIT);
      }
    }
  }

  /** A driver in a child JVM ({@link CrashChild}) that blocks at a crash point until killed. */
  private static final class Child implements AutoCloseable {
    final ChildProcess process;
    final PluginInstance plugin;

    private Child(ChildProcess process, PluginInstance plugin) {
      this.process = process;
      this.plugin = plugin;
    }

    static Child start(ClaimsHarness h, Path tmp, String point) throws Exception {
      Path kubeconfig = h.api.writeKubeconfig(tmp.resolve("kubeconfig"));
      ChildProcess p =
          ChildProcess.start(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Ddra4j.claims.crashPoint=" + point,
                  "-cp",
                  System.getProperty("java.class.path"),
                  CrashChild.class.getName(),
                  tmp.toString(),
                  kubeconfig.toString()));
      try {
        String ready = p.awaitLine("READY ", Duration.ofSeconds(60));
        return new Child(
            p,
            h.kubelet.awaitPluginAt(
                Path.of(ready.substring("READY ".length())), ClaimsHarness.WAIT));
      } catch (Exception | Error e) {
        p.close();
        throw e;
      }
    }

    /** Waits until the child reports the crash point, then SIGKILLs it. */
    void killAt(String point) throws Exception {
      process.awaitLine("DRA4J-CRASH-POINT " + point, Duration.ofSeconds(60));
      process.kill();
    }

    @Override
    public void close() {
      process.close();
    }
  }
}
