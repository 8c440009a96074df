package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.testsupport.PeerTools;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's disk in trouble: the plugin data and CDI directories on a small tmpfs that fills up in
 * the middle of a prepare, or that turns read-only. The prepare fails with an error naming the
 * path, nothing partial is left (no record, no spec, no temporary file), and once space is back the
 * kubelet's retry succeeds. Needs root (mount); without it the test is skipped with a warning, or
 * fails under {@code DRA4J_REQUIRE_PEERS=1} as in CI.
 */
class DiskFaultTest {
  /** Small enough to fill quickly, big enough for the harness and a few records. */
  static final String SIZE = "1m";

  @TempDir Path tmp;
  Path disk;
  ClaimsHarness h;
  TestProvider provider;
  PluginInstance plugin;

  @BeforeEach
  void setUp() throws Exception {
    disk = Files.createDirectories(tmp.resolve("disk"));
    PeerTools.Output mounted =
        PeerTools.exec(
            List.of(
                "mount",
                "-t",
                "tmpfs",
                "-o",
                "size=" + SIZE + ",mode=0755",
                "tmpfs",
                disk.toString()),
            Duration.ofSeconds(30));
    if (mounted.exitCode() != 0) {
      PeerTools.unavailable(
          "cannot mount a tmpfs for the disk tests (needs root, or CAP_SYS_ADMIN): "
              + mounted.stderr().trim());
    }
    h = new ClaimsHarness(disk);
    provider = new TestProvider();
    plugin = h.start(provider);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (h != null) {
      remount("rw");
      h.close();
    }
    PeerTools.exec(List.of("umount", "-l", disk.toString()), Duration.ofSeconds(30));
  }

  @Test
  void aDiskThatFillsUpDuringThePrepareFailsItCleanlyAndTheRetrySucceedsOnceSpaceIsBack()
      throws Exception {
    ClaimRef claim = h.seed("victim", List.of(result("gpu", "node-a", "gpu-0")));
    // Room for the PrepareStarted record, not for a 64 KiB CDI spec.
    provider.padding = 64 * 1024;
    Path filler = fill(16 * 1024);

    ClaimResult failed = plugin.prepare(List.of(claim)).get(claim.uid());
    String error = failed.error().orElseThrow();
    System.out.println("disk full, CDI spec: " + error);
    assertThat(error).contains(h.cdiDir.toString()).containsIgnoringCase("no space left");
    assertThat(provider.prepareCalls).hasSize(1);
    assertThat(provider.unprepareCalls).hasSize(1); // the rollback
    assertNothingLeft();

    Files.delete(filler);
    ClaimResult ok = plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(ok.error()).isEmpty();
    assertThat(h.checkpointFiles()).containsExactly(claim.uid() + ".json");
    assertThat(plugin.unprepare(List.of(claim))).containsEntry(claim.uid(), Optional.empty());
    assertNothingLeft();
  }

  @Test
  void aFullDiskFailsThePrepareBeforeTheProviderIsCalled() throws Exception {
    ClaimRef claim = h.seed("victim", List.of(result("gpu", "node-a", "gpu-0")));
    Path filler = fill(0);

    String error = plugin.prepare(List.of(claim)).get(claim.uid()).error().orElseThrow();
    System.out.println("disk full, checkpoint: " + error);
    assertThat(error).contains(h.pluginDir.toString()).containsIgnoringCase("no space left");
    assertThat(provider.prepareCalls).isEmpty();
    assertNothingLeft();

    Files.delete(filler);
    assertThat(plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();
  }

  @Test
  void aReadOnlyDiskFailsPrepareAndUnprepareNamingThePathAndKeepsWhatWasPrepared()
      throws Exception {
    ClaimRef first = h.seed("first", List.of(result("gpu", "node-a", "gpu-0")));
    ClaimRef second = h.seed("second", List.of(result("gpu", "node-a", "gpu-1")));
    assertThat(plugin.prepare(List.of(first)).get(first.uid()).error()).isEmpty();
    List<String> records = h.checkpointFiles();
    List<String> specs = h.cdiFiles();

    remount("ro");
    String error = plugin.prepare(List.of(second)).get(second.uid()).error().orElseThrow();
    System.out.println("read-only, prepare: " + error);
    assertThat(error).contains(h.pluginDir.toString()).containsIgnoringCase("read-only");
    assertThat(provider.prepareCalls).hasSize(1);
    Optional<String> unprepareError = plugin.unprepare(List.of(first)).get(first.uid());
    System.out.println("read-only, unprepare: " + unprepareError.orElse(""));
    assertThat(unprepareError).isPresent();
    assertThat(unprepareError.get()).containsIgnoringCase("read-only").contains(disk.toString());
    // Nothing lost: the first claim is still prepared as far as the node knows.
    assertThat(h.checkpointFiles()).isEqualTo(records);
    assertThat(h.cdiFiles()).isEqualTo(specs);

    remount("rw");
    assertThat(plugin.unprepare(List.of(first))).containsEntry(first.uid(), Optional.empty());
    assertThat(plugin.prepare(List.of(second)).get(second.uid()).error()).isEmpty();
    assertThat(h.checkpointFiles()).containsExactly(second.uid() + ".json");
  }

  /** Fills the tmpfs until {@code leave} bytes are free; returns the filler file. */
  private Path fill(long leave) throws IOException {
    Path filler = disk.resolve("filler");
    long free = Files.getFileStore(disk).getUsableSpace();
    byte[] chunk = new byte[4096];
    long written = 0;
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (written + chunk.length <= free - leave) {
        out.write(chunk);
        written += chunk.length;
      }
    } catch (IOException e) {
      // full already: fine
    }
    return filler;
  }

  private void remount(String mode) throws Exception {
    PeerTools.Output r =
        PeerTools.exec(
            List.of("mount", "-o", "remount," + mode, disk.toString()), Duration.ofSeconds(30));
    assertThat(r.exitCode()).as("remount %s: %s", mode, r.stderr()).isZero();
  }

  private void assertNothingLeft() throws IOException {
    assertThat(h.checkpointFiles()).isEmpty();
    assertThat(h.cdiFiles()).isEmpty();
  }
}
