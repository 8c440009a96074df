package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Device;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.internal.CrashPoints;
import io.dra4j.runtime.internal.slices.SlicePublisher;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.runtime.testsupport.ChildProcess;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import io.dra4j.testkit.slices.PublishedSlices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kill -9 matrix: for every {@link CrashPoints} point, a real driver process (child JVM) is
 * killed with SIGKILL exactly there and a new driver (in this JVM) takes over. Then: recovery alone
 * cleans what the kubelet will never retry (an interrupted prepare), the kubelet's retry converges,
 * no device is held by two claims, and no CDI spec, metadata file or checkpoint record is left that
 * no prepared claim accounts for. A point without a scenario here fails the test.
 */
class CrashMatrixTest {
  private static final Duration KILL_WAIT = Duration.ofSeconds(60);
  private static final Set<String> COVERED = new ConcurrentSkipListSet<>();

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

  static Stream<String> points() {
    return CrashPoints.ALL.stream();
  }

  @AfterAll
  static void everyPointCovered() {
    System.out.println("crash matrix: " + COVERED.size() + " points covered: " + COVERED);
    assertThat(COVERED).containsExactlyInAnyOrderElementsOf(CrashPoints.ALL);
  }

  @ParameterizedTest(name = "killed at {0}")
  @MethodSource("points")
  void killedThenRestarted(String point) throws Exception {
    switch (point) {
      case CrashPoints.AFTER_STARTED,
          CrashPoints.AFTER_PROVIDER,
          CrashPoints.AFTER_CDI,
          CrashPoints.AFTER_COMPLETED,
          CrashPoints.AFTER_STATUS ->
          killedMidPrepare(point);
      case CrashPoints.AFTER_PROVIDER_UNPREPARE, CrashPoints.AFTER_FILES_UNPREPARE ->
          killedMidUnprepare(point);
      case CrashPoints.ROLLBACK_AFTER_PROVIDER,
          CrashPoints.ROLLBACK_AFTER_FILES,
          CrashPoints.RECOVERY_BEFORE_ORPHANS ->
          killedMidRecovery(point);
      case CrashPoints.PUBLISH_AFTER_FIRST_WRITE -> killedMidPublish(point);
      default -> throw new AssertionError("no crash scenario for point " + point);
    }
    COVERED.add(point);
    System.out.println("crash matrix: " + point + ": killed, restarted, converged");
  }

  private void killedMidPrepare(String point) throws Exception {
    ClaimRef claim = h.seed("victim", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef rival = h.seed("rival", List.of(result("gpu", "node-a", "gpu-0")));
    try (Child child = Child.start(h, tmp, point)) {
      CompletableFuture<?> call =
          CompletableFuture.runAsync(() -> child.plugin.prepare(List.of(claim)), threads);
      child.killAt(point);
      assertThat(call).failsWithin(Duration.ofSeconds(30));
    }

    // A new driver process: recovery runs before the kubelet retries anything.
    TestProvider provider = statusProvider();
    PluginInstance plugin = h.start(provider, b -> b.deviceMetadata(true));
    boolean completedBeforeCrash =
        point.equals(CrashPoints.AFTER_COMPLETED) || point.equals(CrashPoints.AFTER_STATUS);
    if (completedBeforeCrash) {
      // The claim is prepared: only the kubelet's unprepare may release it.
      assertThat(provider.unprepareCalls).isEmpty();
      assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
      assertThat(h.cdiFiles()).containsExactlyInAnyOrderElementsOf(specs(claim));
    } else {
      // Never completed: recovery rolled it back without waiting for the kubelet.
      assertThat(provider.unprepareCalls).hasSize(1);
      assertThat(provider.unprepareCalls.get(0).completed()).isFalse();
      assertNothingLeft();
    }

    plugin = reconnected(plugin);
    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.error()).isEmpty();
    assertThat(provider.prepareCalls).hasSize(completedBeforeCrash ? 0 : 1);
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    assertThat(h.cdiFiles()).containsExactlyInAnyOrderElementsOf(specs(claim));
    CdiValidators.assertValid(h.cdiDir, r.devices().get(0).cdiDeviceIds());
    // The claim status is there once (applied again where the crash came before or after it).
    assertThat(h.api.object(ResourceClaim.TYPE, "ns", "victim").get().status().devices())
        .hasSize(1);
    convergesWithoutDoubleHold(plugin, claim, rival);
  }

  private void killedMidUnprepare(String point) throws Exception {
    ClaimRef claim = h.seed("victim", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef rival = h.seed("rival", List.of(result("gpu", "node-a", "gpu-0")));
    try (Child child = Child.start(h, tmp, point)) {
      assertThat(child.plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();
      CompletableFuture<?> call =
          CompletableFuture.runAsync(() -> child.plugin.unprepare(List.of(claim)), threads);
      child.killAt(point);
      assertThat(call).failsWithin(Duration.ofSeconds(30));
    }
    // The provider released the device, but the record is still there (and the spec, before its
    // removal): the claim counts as prepared until the kubelet's unprepare gets through.
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    if (point.equals(CrashPoints.AFTER_PROVIDER_UNPREPARE)) {
      assertThat(h.cdiFiles()).containsExactlyInAnyOrderElementsOf(specs(claim));
    } else {
      assertThat(h.cdiFiles()).isEmpty();
    }

    TestProvider provider = new TestProvider();
    PluginInstance plugin = reconnected(h.start(provider, b -> b.deviceMetadata(true)));
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).error().get())
        .contains("is already prepared for claim " + claim);
    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).completed()).isTrue();
    assertNothingLeft();
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).isOk()).isTrue();
  }

  /**
   * A first child leaves an interrupted prepare; a second one is killed while its recovery rolls it
   * back; the third (in this JVM) finishes the rollback and removes an orphan spec.
   */
  private void killedMidRecovery(String point) throws Exception {
    ClaimRef claim = h.seed("victim", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef rival = h.seed("rival", List.of(result("gpu", "node-a", "gpu-0")));
    try (Child child = Child.start(h, tmp, CrashPoints.AFTER_CDI)) {
      CompletableFuture<?> call =
          CompletableFuture.runAsync(() -> child.plugin.prepare(List.of(claim)), threads);
      child.killAt(CrashPoints.AFTER_CDI);
      assertThat(call).failsWithin(Duration.ofSeconds(30));
    }
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    // A spec no record accounts for, as a crash of an older version might have left.
    String orphan = "k8s." + DRIVER + "-claim_00000000-0000-0000-0000-00000000dead.json";
    Files.writeString(
        h.cdiDir.resolve(orphan),
        "{\"cdiVersion\":\"0.5.0\",\"kind\":\"k8s." + DRIVER + "/claim\",\"devices\":[]}");

    try (ChildProcess recovering = Child.launch(h, tmp, point, "claims")) {
      recovering.awaitLine(CrashPoints.MARKER + point, KILL_WAIT);
      recovering.kill();
    }
    List<String> left = new ArrayList<>(h.checkpointFiles());
    if (!point.equals(CrashPoints.RECOVERY_BEFORE_ORPHANS)) {
      // The rollback is half done: the record still says what to undo.
      assertThat(left).containsExactly(claim.uid() + ".json");
    }

    TestProvider provider = statusProvider();
    PluginInstance plugin = reconnected(h.start(provider, b -> b.deviceMetadata(true)));
    // A rollback whose record remained is repeated, provider.unprepare included (idempotent).
    assertThat(provider.unprepareCalls).hasSize(left.isEmpty() ? 0 : 1);
    assertNothingLeft();
    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.error()).isEmpty();
    assertThat(h.cdiFiles()).containsExactlyInAnyOrderElementsOf(specs(claim));
    convergesWithoutDoubleHold(plugin, claim, rival);
  }

  /** Killed between the two creates of a two-slice pool; the next publisher completes the pool. */
  private void killedMidPublish(String point) throws Exception {
    String nodeUid = h.api.putNode(CrashChild.NODE).metadata().uid();
    try (ChildProcess child = Child.launch(h, tmp, point, "publish")) {
      child.awaitLine(CrashPoints.MARKER + point, KILL_WAIT);
      child.kill();
    }
    PublishedSlices published = new PublishedSlices(h.api, DRIVER);
    assertThat(published.pool(CrashChild.NODE)).hasSize(1);

    try (SlicePublisher publisher =
        SlicePublisher.builder(h.client, DRIVER).nodeName(CrashChild.NODE).build().start()) {
      publisher.publish(List.of(CrashChild.pool()));
      assertThat(publisher.awaitIdle(ClaimsHarness.WAIT)).isTrue();
    }
    assertThat(published.pool(CrashChild.NODE)).hasSize(2);
    assertThat(published.devices(CrashChild.NODE).stream().map(Device::name).toList())
        .containsExactlyInAnyOrderElementsOf(
            CrashChild.pool().devices().stream().map(Device::name).toList());
    published.assertValid(Optional.of(CrashChild.NODE), nodeUid);
  }

  private static TestProvider statusProvider() {
    TestProvider provider = new TestProvider();
    provider.status = d -> Optional.of(DeviceStatus.ready("Ok", "ready"));
    return provider;
  }

  private static List<String> specs(ClaimRef claim) {
    return List.of(
        "k8s." + DRIVER + "-claim_" + claim.uid() + ".json",
        DRIVER + "_metadata_" + claim.uid() + "_gpu.json");
  }

  private void assertNothingLeft() throws Exception {
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(h.cdiFiles()).isEmpty();
    assertThat(ClaimsHarness.files(h.pluginDir.resolve("dra-device-metadata"))).isEmpty();
  }

  /** The rival is refused while the claim holds the device, and prepared once it is released. */
  private void convergesWithoutDoubleHold(PluginInstance plugin, ClaimRef claim, ClaimRef rival)
      throws Exception {
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).error().get())
        .contains("is already prepared for claim " + claim);
    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertNothingLeft();
    assertThat(plugin.prepare(List.of(rival)).get(rival.uid()).isOk()).isTrue();
    Set<String> records = new TreeSet<>(h.checkpointFiles());
    assertThat(records).containsExactly(rival.uid() + ".json");
  }

  /**
   * The simulator may still hold the dead child's connection on the same socket path and swap it
   * for the new one: wait for a call to get through, retrying on UNAVAILABLE like the kubelet.
   */
  private PluginInstance reconnected(PluginInstance plugin) {
    AtomicReference<PluginInstance> current = new AtomicReference<>(plugin);
    return Await.until(
        "a call through to the new driver",
        ClaimsHarness.WAIT,
        () -> {
          try {
            current.get().unprepare(List.of());
            return Optional.of(current.get());
          } catch (io.grpc.StatusRuntimeException e) {
            if (e.getStatus().getCode() != io.grpc.Status.Code.UNAVAILABLE) {
              throw new AssertionError(e);
            }
            current.set(h.kubelet.awaitPluginAt(h.server.registrationSocket(), ClaimsHarness.WAIT));
            return Optional.empty();
          }
        });
  }

  /** A claims driver in a child JVM ({@link CrashChild}) that blocks at a crash point. */
  private static final class Child implements AutoCloseable {
    final ChildProcess process;
    final PluginInstance plugin;

    private Child(ChildProcess process, PluginInstance plugin) {
      this.process = process;
      this.plugin = plugin;
    }

    static ChildProcess launch(ClaimsHarness h, Path tmp, String point, String mode) {
      Path kubeconfig = h.api.writeKubeconfig(tmp.resolve("kubeconfig"));
      return ChildProcess.start(
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-D" + CrashPoints.PROPERTY + "=" + point,
              "-cp",
              System.getProperty("java.class.path"),
              CrashChild.class.getName(),
              mode,
              tmp.toString(),
              kubeconfig.toString()));
    }

    static Child start(ClaimsHarness h, Path tmp, String point) throws Exception {
      ChildProcess p = launch(h, tmp, point, "claims");
      try {
        String ready = p.awaitLine("READY ", KILL_WAIT);
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
      process.awaitLine(CrashPoints.MARKER + point, KILL_WAIT);
      process.kill();
    }

    @Override
    public void close() {
      process.close();
    }
  }
}
