package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.CheckpointStore;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import io.dra4j.runtime.internal.claims.RecoveryReport;
import io.dra4j.testkit.kubelet.ClaimResult;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Startup recovery, reboots, lazy rollback and records written by an older dra4j. */
class RecoveryTest {

  @TempDir Path tmp;
  ClaimsHarness h;
  final TestProvider provider = new TestProvider();

  @BeforeEach
  void setUp() throws Exception {
    h = new ClaimsHarness(tmp);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  private Path cdiSpec(String uid) {
    return h.cdiDir.resolve("k8s." + DRIVER + "-claim_" + uid + ".json");
  }

  private void startedRecord(ClaimRef claim, String device) throws Exception {
    CheckpointStore store = CheckpointStore.open(h.pluginDir, h.bootIdFile);
    store.write(
        ClaimCheckpoint.started(
            claim,
            DRIVER,
            List.of(
                new CheckpointDevice(
                    "gpu",
                    "node-a",
                    device,
                    Optional.empty(),
                    false,
                    List.of(),
                    Map.of(),
                    Optional.empty())),
            "boot-1",
            Instant.now()));
  }

  @Test
  void recoverRollsBackInterruptedPreparesAndRemovesOrphanSpecs() throws Exception {
    ClaimRef interrupted = h.seed("interrupted", List.of(result("gpu", "node-a", "gpu-0")));
    startedRecord(interrupted, "gpu-0");
    Files.writeString(
        cdiSpec(interrupted.uid()),
        "{\"cdiVersion\":\"0.3.0\",\"kind\":\"k8s." + DRIVER + "/claim\",\"devices\":[]}");
    String orphanUid = "99999999-9999-4999-8999-999999999999";
    Files.writeString(
        cdiSpec(orphanUid),
        "{\"cdiVersion\":\"0.3.0\",\"kind\":\"k8s." + DRIVER + "/claim\",\"devices\":[]}");
    Path foreign = h.cdiDir.resolve("other-vendor.json");
    Files.writeString(
        foreign,
        "{\"cdiVersion\":\"0.5.0\",\"kind\":\"other.example.com/nic\",\"devices\":"
            + "[{\"name\":\"nic0\",\"containerEdits\":{\"env\":[\"NIC=0\"]}}]}");

    h.start(provider);

    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).claim()).isEqualTo(interrupted);
    assertThat(provider.unprepareCalls.get(0).completed()).isFalse();
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(h.cdiFiles()).containsExactly("other-vendor.json");
    assertThat(h.preparer.stats().rolledBack()).isEqualTo(1);

    // The kubelet retries: prepared fresh.
    ClaimResult r = h.plugin.prepare(List.of(interrupted)).get(interrupted.uid());
    assertThat(r.isOk()).isTrue();
    assertThat(provider.prepareCalls).hasSize(1);
  }

  @Test
  void aStartedRecordMetDuringPrepareIsRolledBackLazily() throws Exception {
    h.start(provider);
    ClaimRef claim = h.seed("lazy", List.of(result("gpu", "node-a", "gpu-0")));
    startedRecord(claim, "gpu-0");

    ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());

    assertThat(r.isOk()).isTrue();
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).completed()).isFalse();
    assertThat(provider.prepareCalls).hasSize(1);
    assertThat(Files.readString(h.pluginDir.resolve("checkpoints/" + claim.uid() + ".json")))
        .contains("PrepareCompleted");
  }

  @Test
  void recordsOfAnEarlierBootAreRolledBackAndPreparedAgain() throws Exception {
    h.start(provider);
    ClaimRef claim = h.seed("rebooted", List.of(result("gpu", "node-a", "gpu-0")));
    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid()).isOk()).isTrue();
    h.stopDriver();

    Files.writeString(h.bootIdFile, "boot-2\n");
    provider.failUnprepare = true; // best effort: the reboot already reset the device
    TestProvider after = provider;
    h.start(after);
    assertThat(after.unprepareCalls).hasSize(1);
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(h.cdiFiles()).isEmpty();
    provider.failUnprepare = false;

    ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.isOk()).isTrue();
    assertThat(provider.prepareCalls).hasSize(2);
    assertThat(Files.readString(h.pluginDir.resolve("checkpoints/" + claim.uid() + ".json")))
        .contains("\"bootId\" : \"boot-2\"");
  }

  @Test
  void recordsOfAnOlderDra4jAreReadGuardDevicesAndUnprepareWithWhatWasRecorded() throws Exception {
    Path dir = h.pluginDir.resolve(CheckpointStore.DIRECTORY_NAME);
    Files.createDirectories(dir);
    String completedUid = "6f1c2a9e-1111-4000-8000-000000000002";
    String startedUid = "b0000000-0000-4000-8000-00000000000b";
    copyFixture("v1-completed-this-boot.json", dir.resolve(completedUid + ".json"));
    copyFixture("v1-started-minimal.json", dir.resolve(startedUid + ".json"));

    h.start(provider);
    RecoveryReport report = h.preparer.recover(); // a second run is a no-op
    assertThat(report.kept()).containsExactly(completedUid);
    assertThat(report.rolledBack()).isEmpty();
    assertThat(h.checkpointFiles()).containsExactly(completedUid + ".json");
    // The started one was rolled back by the first recover().
    assertThat(provider.unprepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls.get(0).claim().uid()).isEqualTo(startedUid);

    // The old record guards its device: a new claim for node-1/gpu-0 is refused...
    ClaimRef rival = h.seed("rival", List.of(result("gpu", "node-1", "gpu-0")));
    assertThat(h.plugin.prepare(List.of(rival)).get(rival.uid()).error().get())
        .contains("device node-1/gpu-0 is already prepared for claim team-a/train-job");
    // ...but not its admin-access device.
    ClaimRef monitor = h.seed("monitor", List.of(result("gpu", "node-1", "gpu-2")));
    assertThat(h.plugin.prepare(List.of(monitor)).get(monitor.uid()).isOk()).isTrue();

    // Unprepare hands the provider what the old version recorded.
    ClaimRef old = ClaimRef.of("team-a", "train-job", completedUid);
    assertThat(h.plugin.unprepare(List.of(old))).containsEntry(completedUid, Optional.empty());
    assertThat(provider.unprepareCalls.get(1).devices().get(0).recorded())
        .containsEntry("migUuid", "MIG-4f2e9d7c");
    assertThat(provider.unprepareCalls.get(1).devices().get(1).shareId())
        .contains("0a1b2c3d-aaaa-4000-8000-000000000000");
    assertThat(h.plugin.prepare(List.of(rival)).get(rival.uid()).isOk()).isTrue();
  }

  @Test
  void theClaimStatusInAFormatOneRecordIsAppliedAgainOnARepeatedPrepare() throws Exception {
    ClaimRef claim =
        h.seed(
            "team-a", "train-job", List.of(result("gpu", "node-1", "gpu-0")), List.of(), Map.of());
    Path dir = Files.createDirectories(h.pluginDir.resolve(CheckpointStore.DIRECTORY_NAME));
    String record;
    try (InputStream in = RecoveryTest.class.getResourceAsStream("v1-completed-with-status.json")) {
      record = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@UID@", claim.uid());
    }
    Files.writeString(dir.resolve(claim.uid() + ".json"), record);
    // The fixture is the record alone, without its CDI spec: nothing for a runtime to inject.
    h.kubelet.containerRuntime((driver, prepared) -> {});
    h.start(provider);

    ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.error()).isEmpty();
    assertThat(r.devices().get(0).cdiDeviceIds())
        .containsExactly("k8s.gpu.example.com/claim=" + claim.uid() + "-gpu-0");
    assertThat(provider.prepareCalls).as("answered from the record").isEmpty();
    assertThat(h.api.object(ResourceClaim.TYPE, "team-a", "train-job").get().status().devices())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.device()).isEqualTo("gpu-0");
              assertThat(d.conditions())
                  .singleElement()
                  .satisfies(c -> assertThat(c.type()).isEqualTo("Ready"));
            });
    // The provider sees what it recorded, and nothing of the runtime's.
    assertThat(h.plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertThat(provider.unprepareCalls.get(0).devices().get(0).recorded())
        .containsExactly(Map.entry("migUuid", "MIG-4f2e9d7c"));
  }

  private static void copyFixture(String name, Path to) throws Exception {
    try (InputStream in = RecoveryTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      Files.copy(in, to);
    }
  }
}
