package io.dra4j.runtime.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointStoreTest {
  private static final String BOOT_1 = "11111111-1111-4111-8111-111111111111";
  private static final String BOOT_2 = "22222222-2222-4222-8222-222222222222";
  private static final String UID_A = "a0000000-0000-4000-8000-00000000000a";
  private static final String UID_B = "b0000000-0000-4000-8000-00000000000b";
  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  @TempDir Path tmp;
  private Path pluginDir;
  private Path bootFile;
  private CheckpointStore store;

  @BeforeEach
  void setUp() throws IOException {
    pluginDir = tmp.resolve("plugins/gpu.example.com");
    bootFile = Files.writeString(tmp.resolve("boot_id"), BOOT_1 + "\n");
    store = CheckpointStore.open(pluginDir, bootFile);
  }

  private static ClaimRef claim(String uid) {
    return ClaimRef.of("ns", "claim-" + uid.charAt(0), uid);
  }

  private static AllocatedDevice gpu(int i) {
    return AllocatedDevice.of("gpu", "node-1", "gpu-" + i);
  }

  private ClaimCheckpoint started(String uid) {
    return ClaimCheckpoint.started(
        claim(uid),
        "gpu.example.com",
        List.of(CheckpointDevice.allocated(gpu(0)), CheckpointDevice.allocated(gpu(1))),
        store.bootId(),
        T0);
  }

  private Path file(String uid) {
    return pluginDir.resolve("checkpoints").resolve(uid + ".json");
  }

  @Test
  void roundTripsStartedThenCompleted() throws Exception {
    ClaimCheckpoint s = started(UID_A);
    store.write(s);
    assertThat(store.read(UID_A)).contains(s);
    assertThat(file(UID_A)).exists();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file(UID_A))))
        .isEqualTo("rw-------");

    PreparedDevice p0 =
        PreparedDevice.builder(gpu(0)).edits(ContainerEdits.NONE).record("mig", "7").build();
    ClaimCheckpoint c =
        s.completed(
            List.of(
                CheckpointDevice.prepared(
                    p0,
                    List.of("k8s.gpu.example.com/claim=x-gpu-0"),
                    Optional.of("{\"conditions\":[]}")),
                CheckpointDevice.prepared(
                    PreparedDevice.of(gpu(1), ContainerEdits.NONE), List.of(), Optional.empty())),
            store.bootId(),
            T0.plusSeconds(2));
    store.write(c);

    ClaimCheckpoint back = store.read(UID_A).orElseThrow();
    assertThat(back).isEqualTo(c);
    assertThat(back.state()).isEqualTo(PrepareState.PREPARE_COMPLETED);
    assertThat(back.createdAt()).isEqualTo(T0);
    assertThat(back.updatedAt()).isEqualTo(T0.plusSeconds(2));
    assertThat(back.devices().get(0).recorded()).containsEntry("mig", "7");
    assertThat(back.toPreparedClaim().devices().get(0).recorded()).containsEntry("mig", "7");
    assertThat(store.list().records()).containsExactly(c);
  }

  @Test
  void startedRecordsAreDetectedAsHalfDone() throws Exception {
    store.write(started(UID_A));
    ClaimCheckpoint r = store.list().records().get(0);
    assertThat(r.isCompleted()).isFalse();
    assertThat(r.toPreparedClaim().completed()).isFalse();
    assertThat(r.toPreparedClaim().devices()).hasSize(2);
  }

  @Test
  void readOfAClaimWithoutRecordIsEmpty() throws Exception {
    assertThat(store.read(UID_A)).isEmpty();
  }

  @Test
  void deleteIsIdempotent() throws Exception {
    store.write(started(UID_A));
    assertThat(store.delete(UID_A)).isTrue();
    assertThat(store.read(UID_A)).isEmpty();
    assertThat(store.delete(UID_A)).isFalse();
    assertThat(store.delete(UID_B)).isFalse();
  }

  @Test
  void temporaryFilesFromACrashAreIgnoredByReadsAndCleanedByWritesAndRecovery() throws Exception {
    ClaimCheckpoint a = started(UID_A);
    store.write(a);
    Path dir = store.directory();
    // Crashes mid-write: a partial new version of A, and a first write of B that never finished.
    Path tempA =
        Files.writeString(dir.resolve("." + UID_A + ".json.tmp"), "{\"version\": 1, \"dri");
    Path tempB = Files.writeString(dir.resolve("." + UID_B + ".json.tmp"), "{");

    assertThat(store.read(UID_A)).contains(a);
    assertThat(store.read(UID_B)).isEmpty();
    CheckpointListing listing = store.list();
    assertThat(listing.records()).containsExactly(a);
    assertThat(listing.problems()).isEmpty();

    store.write(a);
    assertThat(tempA).doesNotExist();
    assertThat(tempB).exists();
    // Opening leaves it: in a rolling update it may be the other process's write in progress.
    CheckpointStore.open(pluginDir, bootFile);
    assertThat(tempB).exists();
    store.removeInterruptedWrites();
    assertThat(tempB).doesNotExist();
    assertThat(store.read(UID_A)).contains(a);
  }

  @Test
  void readersNeverSeeAPartialRecord() throws Exception {
    Map<String, String> big = new HashMap<>();
    for (int i = 0; i < 4000; i++) {
      big.put("key-" + i, "value-" + i);
    }
    ClaimCheckpoint r =
        started(UID_A)
            .completed(
                List.of(
                    CheckpointDevice.prepared(
                        PreparedDevice.builder(gpu(0)).record(big).build(),
                        List.of(),
                        Optional.empty())),
                BOOT_1,
                T0);
    store.write(r);
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger reads = new AtomicInteger();
    Thread reader =
        new Thread(
            () -> {
              try {
                while (!done.get()) {
                  assertThat(store.read(UID_A).orElseThrow().devices().get(0).recorded())
                      .hasSize(4000);
                  reads.incrementAndGet();
                }
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    reader.start();
    try {
      // Until the reader read often while the writes went on: else it proves nothing.
      for (int i = 0; (i < 30 || reads.get() < 30) && failure.get() == null; i++) {
        store.write(r);
      }
    } finally {
      done.set(true);
      reader.join();
    }
    assertThat(failure.get()).as("reader failure").isNull();
    assertThat(store.list().problems()).isEmpty();
  }

  @Test
  void corruptFilesAreReportedWithFileAndReasonAndMovedAside() throws Exception {
    store.write(started(UID_A));
    String good = Files.readString(file(UID_A));
    Map<String, String> corrupt = new java.util.LinkedHashMap<>();
    corrupt.put("c0000000-0000-4000-8000-000000000001", "\u0000\u0001garbage");
    corrupt.put("c0000000-0000-4000-8000-000000000002", good.substring(0, good.length() / 2));
    corrupt.put("c0000000-0000-4000-8000-000000000003", "");
    corrupt.put("c0000000-0000-4000-8000-000000000004", "[1, 2]");
    corrupt.put(
        "c0000000-0000-4000-8000-000000000005",
        good.replace(UID_A, "c0000000-0000-4000-8000-000000000005").replace("\"node-1\"", "42"));
    corrupt.put(
        "c0000000-0000-4000-8000-000000000006",
        good.replace(UID_A, "c0000000-0000-4000-8000-000000000006")
            .replace("2026-03-01T10:00:00Z", "yesterday"));
    corrupt.put("c0000000-0000-4000-8000-000000000007", good);
    corrupt.put(
        "c0000000-0000-4000-8000-000000000008",
        good.replace(UID_A, "c0000000-0000-4000-8000-000000000008") + "}");
    corrupt.put(
        "c0000000-0000-4000-8000-000000000009",
        good.replace(UID_A, "c0000000-0000-4000-8000-000000000009").replace("\"uid\"", "\"uuid\""));
    for (Map.Entry<String, String> e : corrupt.entrySet()) {
      Files.writeString(file(e.getKey()), e.getValue());
    }

    CheckpointListing listing = store.list();

    assertThat(listing.records()).extracting(r -> r.claim().uid()).containsExactly(UID_A);
    assertThat(listing.problems()).hasSize(corrupt.size());
    Map<String, String> messages = new HashMap<>();
    for (CheckpointProblem p : listing.problems()) {
      String uid = p.claimUid().orElseThrow();
      messages.put(uid.substring(uid.length() - 1), p.message());
      assertThat(p.file()).isEqualTo(file(uid));
      assertThat(p.message()).contains(p.file().toString()).contains("is corrupt");
      assertThat(p.movedTo()).contains(store.directory().resolve(uid + ".json.corrupt"));
      assertThat(p.file()).doesNotExist();
      assertThat(Files.readString(p.movedTo().orElseThrow())).isEqualTo(corrupt.get(uid));
    }
    assertThat(messages.get("1")).contains("not valid JSON");
    assertThat(messages.get("2")).contains("not valid JSON").contains("line");
    assertThat(messages.get("3")).contains("empty");
    assertThat(messages.get("4")).contains("expected a JSON object, found array");
    assertThat(messages.get("5")).contains("devices[0].pool: expected a string, found number");
    assertThat(messages.get("6")).contains("createdAt: \"yesterday\" is not an ISO-8601 instant");
    assertThat(messages.get("7")).contains("claim.uid \"" + UID_A + "\" does not match");
    assertThat(messages.get("8")).contains("not valid JSON");
    assertThat(messages.get("9")).contains("claim.uid: expected a string, found nothing");
    assertThat(listing.claimUids()).hasSize(corrupt.size() + 1);

    CheckpointListing again = store.list();
    assertThat(again.problems()).isEmpty();
    assertThat(again.records()).hasSize(1);
  }

  @Test
  void readOfACorruptRecordThrowsAndMovesItAsideWithoutOverwritingEarlierCopies() throws Exception {
    Files.writeString(file(UID_B), "{\"version\": 1,");
    assertThatThrownBy(() -> store.read(UID_B))
        .isInstanceOfSatisfying(
            CheckpointException.class,
            e -> {
              assertThat(e.file()).isEqualTo(file(UID_B));
              assertThat(e.movedTo()).contains(store.directory().resolve(UID_B + ".json.corrupt"));
            })
        .hasMessageContaining(file(UID_B).toString())
        .hasMessageContaining("is corrupt");
    assertThat(store.read(UID_B)).isEmpty();

    Files.writeString(file(UID_B), "second");
    assertThatThrownBy(() -> store.read(UID_B))
        .isInstanceOfSatisfying(
            CheckpointException.class,
            e ->
                assertThat(e.movedTo())
                    .contains(store.directory().resolve(UID_B + ".json.corrupt.1")));
    assertThat(Files.readString(store.directory().resolve(UID_B + ".json.corrupt")))
        .isEqualTo("{\"version\": 1,");
  }

  @Test
  void olderAndNewerFormatsAreReadFromTheDirectory() throws Exception {
    install("v1-completed.json", "6f1c2a9e-1111-4000-8000-000000000002");
    install("v1-started-minimal.json", UID_B);
    install("future-v3-extra-fields.json", "c0000000-0000-4000-8000-00000000000c");

    CheckpointListing listing = store.list();
    assertThat(listing.problems()).isEmpty();
    assertThat(listing.records())
        .extracting(r -> r.claim().uid())
        .containsExactly(
            "6f1c2a9e-1111-4000-8000-000000000002", UID_B, "c0000000-0000-4000-8000-00000000000c");
    assertThat(store.read("6f1c2a9e-1111-4000-8000-000000000002"))
        .contains(CheckpointFormatTest.v1Completed());
  }

  @Test
  void recordsANewerVersionCannotShareAreReportedAndLeftInPlace() throws Exception {
    String uid = "d0000000-0000-4000-8000-00000000000d";
    Path f = install("future-v3-needs-newer-reader.json", uid);
    String unknownState =
        new String(CheckpointFormatTest.fixture("v1-started-minimal.json"))
            .replace("PrepareStarted", "UnprepareStarted");
    Files.writeString(file(UID_B), unknownState);

    CheckpointListing listing = store.list();

    assertThat(listing.records()).isEmpty();
    assertThat(listing.problems())
        .extracting(CheckpointProblem::claimUid)
        .containsExactly(Optional.of(UID_B), Optional.of(uid));
    assertThat(listing.problems().get(0).message())
        .contains("state \"UnprepareStarted\" is unknown");
    assertThat(listing.problems().get(1).message())
        .contains("needs a reader of version 3 or newer");
    assertThat(listing.problems()).allSatisfy(p -> assertThat(p.movedTo()).isEmpty());
    assertThat(f).exists();
    assertThat(file(UID_B)).exists();
    assertThat(listing.claimUids()).containsExactly(UID_B, uid);
    assertThatThrownBy(() -> store.read(uid))
        .isInstanceOfSatisfying(CheckpointException.class, e -> assertThat(e.movedTo()).isEmpty())
        .hasMessageContaining("left alone");
  }

  @Test
  void detectsRecordsFromAnEarlierBoot() throws Exception {
    assertThat(store.bootId()).isEqualTo(BOOT_1);
    store.write(started(UID_A));
    assertThat(store.fromEarlierBoot(store.read(UID_A).orElseThrow())).isFalse();

    Files.writeString(bootFile, BOOT_2 + "\n");
    CheckpointStore afterReboot = CheckpointStore.open(pluginDir, bootFile);
    ClaimCheckpoint r = afterReboot.read(UID_A).orElseThrow();
    assertThat(r.bootId()).isEqualTo(BOOT_1);
    assertThat(afterReboot.fromEarlierBoot(r)).isTrue();
  }

  @Test
  void bootIdIsReadFromTheKernelByDefault() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isReadable(BootId.DEFAULT_FILE), "no " + BootId.DEFAULT_FILE + " on this OS");
    assertThat(BootId.read(BootId.DEFAULT_FILE)).matches("[0-9a-f-]{36}");
    assertThat(CheckpointStore.open(tmp.resolve("other")).bootId())
        .isEqualTo(BootId.read(BootId.DEFAULT_FILE));
    Path empty = Files.writeString(tmp.resolve("empty"), "\n");
    assertThatThrownBy(() -> BootId.read(empty)).hasMessageContaining("is empty");
  }

  @Test
  void listsManyRecordsInUidOrder() throws Exception {
    List<String> uids = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      String uid = String.format("%08x-0000-4000-8000-%012d", i * 2654435761L & 0xffffffffL, i);
      uids.add(uid);
      // The codec directly: this test is about listing, not about 1000 fsyncs.
      Files.write(file(uid), CheckpointCodec.encode(started(uid)));
    }
    store.write(started(UID_A));
    uids.add(UID_A);

    CheckpointListing listing = store.list();

    assertThat(listing.problems()).isEmpty();
    assertThat(listing.records())
        .extracting(r -> r.claim().uid())
        .containsExactlyElementsOf(uids.stream().sorted().toList());
    assertThat(listing.claimUids()).hasSize(1001);
  }

  @Test
  void unsafeClaimUidsAreRejectedAndForeignFilesLeftAlone() throws Exception {
    for (String uid : new String[] {"../x", "a/b", "", ".hidden", "a_b"}) {
      assertThatThrownBy(() -> store.read(uid))
          .as(uid)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot name a checkpoint file");
    }
    assertThatThrownBy(() -> store.write(started("a b"))).hasMessageContaining("\"a b\"");
    Path foreign = Files.writeString(store.directory().resolve("notes about_it.json"), "{}");
    Files.writeString(store.directory().resolve("README"), "x");
    CheckpointListing listing = store.list();
    assertThat(listing.problems()).hasSize(1);
    assertThat(listing.problems().get(0).claimUid()).isEmpty();
    assertThat(listing.problems().get(0).message()).contains("left alone");
    assertThat(foreign).exists();
  }

  @Test
  void anUnreadableEntryIsReportedWithoutStoppingTheListing() throws Exception {
    store.write(started(UID_A));
    Files.createDirectories(file(UID_B));

    CheckpointListing listing = store.list();

    assertThat(listing.records()).extracting(r -> r.claim().uid()).containsExactly(UID_A);
    assertThat(listing.problems()).hasSize(1);
    assertThat(listing.problems().get(0).message())
        .contains(file(UID_B).toString())
        .contains("cannot be read");
    assertThat(listing.claimUids()).containsExactly(UID_A, UID_B);
  }

  private Path install(String fixture, String uid) throws IOException {
    return Files.write(file(uid), CheckpointFormatTest.fixture(fixture));
  }
}
