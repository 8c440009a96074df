package io.dra4j.benchmarks.checkpoint;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.CheckpointStore;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-claim checkpoint cost with few versus many claims already checkpointed on the node. One file
 * per claim means a prepare (started record, completed record) and an unprepare (delete) should
 * cost the same whether the directory holds 10 or 10,000 records.
 *
 * <p>Run: {@code java -cp <benchmarks classpath> org.openjdk.jmh.Main CheckpointWriteBenchmark}.
 * The figures are dominated by fsync, so they depend on the disk; compare the two {@code existing}
 * values on one machine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CheckpointWriteBenchmark {
  @Param({"10", "10000"})
  public int existing;

  private Path root;
  private CheckpointStore store;
  private ClaimCheckpoint started;
  private ClaimCheckpoint completed;
  private String uid;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    root = Files.createTempDirectory("dra4j-checkpoint-bench");
    Path bootId = Files.writeString(root.resolve("boot_id"), UUID.randomUUID() + "\n");
    store = CheckpointStore.open(root.resolve("plugin"), bootId);
    // Fill the directory: one real record, copied under other UIDs (without fsync, for speed).
    String template = "00000000-0000-4000-8000-000000000000";
    store.write(record(template, store.bootId()).completed(devices(), store.bootId(), now()));
    byte[] bytes = Files.readAllBytes(store.directory().resolve(template + ".json"));
    String text = new String(bytes, StandardCharsets.UTF_8);
    for (int i = 1; i < existing; i++) {
      String other = String.format("%08x-0000-4000-8000-%012d", i, i);
      Files.writeString(store.directory().resolve(other + ".json"), text.replace(template, other));
    }
    uid = "ffffffff-0000-4000-8000-000000000000";
    started = record(uid, store.bootId());
    completed = started.completed(devices(), store.bootId(), now());
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    AtomicFiles.deleteTree(root);
  }

  /** A whole claim life cycle: started record, completed record, delete on unprepare. */
  @Benchmark
  public boolean prepareAndUnprepare() throws IOException {
    store.write(started);
    store.write(completed);
    return store.delete(uid);
  }

  /** One durable record write (replacing the previous one). */
  @Benchmark
  public void writeRecord() throws IOException {
    store.write(completed);
  }

  /** The read a repeated prepare does. */
  @Benchmark
  public Optional<ClaimCheckpoint> readRecord() throws IOException {
    return store.read("00000000-0000-4000-8000-000000000000");
  }

  private static ClaimCheckpoint record(String uid, String bootId) {
    return ClaimCheckpoint.started(
        ClaimRef.of("bench", "claim", uid),
        "gpu.example.com",
        List.of(CheckpointDevice.allocated(AllocatedDevice.of("gpu", "node-1", "gpu-0"))),
        bootId,
        now());
  }

  private static List<CheckpointDevice> devices() {
    return List.of(
        new CheckpointDevice(
            "gpu",
            "node-1",
            "gpu-0",
            Optional.empty(),
            false,
            List.of("k8s.gpu.example.com/claim=x-gpu-0"),
            Map.of("partition", "p-1"),
            Optional.empty()));
  }

  private static Instant now() {
    return Instant.parse("2026-03-01T10:00:00Z");
  }
}
