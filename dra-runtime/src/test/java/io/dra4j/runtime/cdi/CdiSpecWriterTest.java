package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PreparedDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecWriterTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final CdiKind KIND = CdiKind.forDriver("gpu.example.com");
  private static final String UID_A = "a0000000-0000-4000-8000-00000000000a";
  private static final String UID_B = "b0000000-0000-4000-8000-00000000000b";
  private static final String UID_C = "c0000000-0000-4000-8000-00000000000c";

  @TempDir Path tmp;
  private Path cdiDir;
  private Path devRoot;
  private CdiSpecWriter writer;

  @BeforeEach
  void setUp() throws IOException {
    cdiDir = tmp.resolve("var/run/cdi");
    devRoot = Files.createDirectories(tmp.resolve("host-dev"));
    Files.createFile(devRoot.resolve("gpu0"));
    writer = new CdiSpecWriter(cdiDir, KIND, new DeviceNodeCheck(devRoot));
  }

  private static ClaimRef claim(String uid) {
    return ClaimRef.of("ns", "claim", uid);
  }

  private static List<PreparedDevice> oneDevice(ContainerEdits edits) {
    return List.of(PreparedDevice.of(AllocatedDevice.of("gpu", "node-1", "gpu-0"), edits));
  }

  private static ContainerEdits env(String k, String v) {
    return ContainerEdits.builder().env(k, v).build();
  }

  @Test
  void writesOneSpecPerClaimWithMode0644() throws Exception {
    ClaimSpec cs = writer.write(claim(UID_A), oneDevice(env("A", "1")), ContainerEdits.NONE);

    Path file = cdiDir.resolve("k8s.gpu.example.com-claim_" + UID_A + ".json");
    assertThat(writer.specFile(UID_A)).isEqualTo(file);
    assertThat(Files.readString(file)).isEqualTo(cs.spec().orElseThrow().toJson());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r--r--");
    assertThat(listNames()).containsExactly(file.getFileName().toString());
  }

  @Test
  void rewritingReplacesTheSpecAndReusesAStaleTemporaryFile() throws Exception {
    writer.write(claim(UID_A), oneDevice(env("GEN", "1")), ContainerEdits.NONE);
    // A crash in the middle of a write leaves a partial temporary file behind.
    Path temp = cdiDir.resolve(".k8s.gpu.example.com-claim_" + UID_A + ".tmp");
    Files.writeString(temp, "{\"cdiVersion\": \"0.3");

    writer.write(claim(UID_A), oneDevice(env("GEN", "2")), ContainerEdits.NONE);

    assertThat(temp).doesNotExist();
    JsonNode spec = MAPPER.readTree(writer.specFile(UID_A).toFile());
    assertThat(spec.at("/devices/0/containerEdits/env/0").asText()).isEqualTo("GEN=2");
    assertThat(listNames()).hasSize(1);
  }

  @Test
  void readersNeverSeeAPartialSpec() throws Exception {
    // Large specs so that a non-atomic write would be observed half done.
    List<ContainerEdits> generations = new ArrayList<>();
    for (int g = 0; g < 2; g++) {
      ContainerEdits.Builder b = ContainerEdits.builder();
      for (int i = 0; i < 3000; i++) {
        b.env("VAR_" + i, "generation-" + g + "-value-" + i);
      }
      generations.add(b.build());
    }
    writer.write(claim(UID_A), oneDevice(generations.get(0)), ContainerEdits.NONE);
    Path file = writer.specFile(UID_A);
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger reads = new AtomicInteger();
    Thread reader =
        new Thread(
            () -> {
              try {
                while (!done.get()) {
                  JsonNode env = MAPPER.readTree(file.toFile()).at("/devices/0/containerEdits/env");
                  assertThat(env.size()).isEqualTo(3000);
                  reads.incrementAndGet();
                }
              } catch (Throwable t) {
                failure.set(t);
              }
            });
    reader.start();
    try {
      // Until the reader read often while the writes went on: else it proves nothing.
      for (int i = 0; (i < 40 || reads.get() < 40) && failure.get() == null; i++) {
        writer.write(claim(UID_A), oneDevice(generations.get(i % 2)), ContainerEdits.NONE);
      }
    } finally {
      done.set(true);
      reader.join();
    }
    assertThat(failure.get()).as("reader failure").isNull();
  }

  @Test
  void aFailedWriteLeavesThePreviousSpecIntact() throws Exception {
    writer.write(claim(UID_A), oneDevice(env("GEN", "1")), ContainerEdits.NONE);
    String before = Files.readString(writer.specFile(UID_A));
    // Make the temporary file impossible to create: a non-empty directory in its place.
    Path temp = cdiDir.resolve(".k8s.gpu.example.com-claim_" + UID_A + ".tmp");
    Files.createDirectories(temp.resolve("blocker"));

    assertThatThrownBy(
            () -> writer.write(claim(UID_A), oneDevice(env("GEN", "2")), ContainerEdits.NONE))
        .isInstanceOf(IOException.class);
    assertThat(Files.readString(writer.specFile(UID_A))).isEqualTo(before);
  }

  @Test
  void removeIsIdempotent() throws Exception {
    writer.write(claim(UID_A), oneDevice(env("A", "1")), ContainerEdits.NONE);
    assertThat(writer.remove(UID_A)).isTrue();
    assertThat(writer.specFile(UID_A)).doesNotExist();
    assertThat(writer.remove(UID_A)).isFalse();
    assertThat(writer.remove(UID_B)).isFalse();
  }

  @Test
  void noSpecIsWrittenWhenNoDeviceHasEditsAndAnEarlierOneIsRemoved() throws Exception {
    writer.write(claim(UID_A), oneDevice(env("A", "1")), ContainerEdits.NONE);
    ClaimSpec cs = writer.write(claim(UID_A), oneDevice(ContainerEdits.NONE), env("COMMON", "1"));
    assertThat(cs.spec()).isEmpty();
    assertThat(cs.allCdiDeviceIds()).isEmpty();
    assertThat(writer.specFile(UID_A)).doesNotExist();
    assertThat(writer.write(claim(UID_B), List.of(), ContainerEdits.NONE).spec()).isEmpty();
  }

  @Test
  void devicesWhoseOnlyEditsWereMissingOptionalNodesGetNoId() throws Exception {
    ClaimSpec cs =
        writer.write(
            claim(UID_A),
            List.of(
                PreparedDevice.of(
                    AllocatedDevice.of("gpu", "node-1", "gpu-0"),
                    ContainerEdits.builder().deviceNode(DeviceNode.required("/dev/gpu0")).build()),
                PreparedDevice.of(
                    AllocatedDevice.of("gpu", "node-1", "gpu-1"),
                    ContainerEdits.builder().deviceNode(DeviceNode.optional("/dev/gpu1")).build())),
            ContainerEdits.NONE);
    assertThat(cs.cdiDeviceIds().get(0)).hasSize(1);
    assertThat(cs.cdiDeviceIds().get(1)).isEmpty();
    assertThat(Files.readString(writer.specFile(UID_A)))
        .contains("/dev/gpu0")
        .doesNotContain("/dev/gpu1");
  }

  @Test
  void aMissingRequiredNodeFailsAndWritesNothing() {
    assertThatThrownBy(
            () ->
                writer.write(
                    claim(UID_A),
                    oneDevice(
                        ContainerEdits.builder()
                            .deviceNode(DeviceNode.required("/dev/nvidia3"))
                            .build()),
                    ContainerEdits.NONE))
        .isInstanceOf(DeviceException.class)
        .hasMessage(
            "required device node /dev/nvidia3 for device gpu-0 of claim ns/claim ("
                + UID_A
                + ") does not exist on the host (checked "
                + devRoot.resolve("nvidia3")
                + ")");
    assertThat(cdiDir).doesNotExist();
  }

  @Test
  void invalidEditsBecomeADeviceException() {
    assertThatThrownBy(
            () ->
                writer.write(
                    claim(UID_A),
                    oneDevice(
                        ContainerEdits.builder()
                            .deviceNode(DeviceNode.builder("/dev/gpu0").permissions("q").build())
                            .build()),
                    ContainerEdits.NONE))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("device gpu-0 of claim ns/claim (" + UID_A + "): deviceNodes[0]");
  }

  @Test
  void orphanCleanupRemovesOnlyOurSpecsWithoutRecords() throws Exception {
    writer.write(claim(UID_A), oneDevice(env("A", "1")), ContainerEdits.NONE);
    writer.write(claim(UID_B), oneDevice(env("B", "1")), ContainerEdits.NONE);
    Path tempC = cdiDir.resolve(".k8s.gpu.example.com-claim_" + UID_C + ".tmp");
    Files.writeString(tempC, "partial");
    // Files that are not ours, or not provably ours, must survive.
    List<Path> foreign =
        List.of(
            write(
                "k8s.other.example.com-claim_" + UID_B + ".json",
                spec("k8s.other.example.com/claim")),
            write(
                "k8s.gpu.example.com-claim_" + UID_B + ".yaml", "kind: k8s.gpu.example.com/claim"),
            write(
                "k8s.gpu.example.com-claim_x_" + UID_B + ".json",
                spec("k8s.gpu.example.com/claim_x")),
            write("k8s.gpu.example.com-claim_" + UID_C + ".json", spec("vendor.com/other")),
            write("k8s.gpu.example.com-claim_d0000000.json", "{not json"),
            write("k8s.gpu.example.com-claim.json", spec("k8s.gpu.example.com/claim")),
            write("nvidia.yaml", "cdiVersion: 0.5.0"),
            write(".hidden.tmp", "x"));

    List<Path> removed = writer.removeOrphans(Set.of(UID_A));

    assertThat(removed).containsExactlyInAnyOrder(writer.specFile(UID_B), tempC);
    assertThat(writer.specFile(UID_A)).exists();
    assertThat(writer.specFile(UID_B)).doesNotExist();
    assertThat(tempC).doesNotExist();
    for (Path p : foreign) {
      assertThat(p).as("foreign file").exists();
    }
    assertThat(writer.removeOrphans(Set.of(UID_A))).isEmpty();
  }

  @Test
  void orphanCleanupOfAMissingDirectoryDoesNothing() throws Exception {
    assertThat(writer.removeOrphans(Set.of())).isEmpty();
    assertThat(cdiDir).doesNotExist();
  }

  private static String spec(String kind) {
    return "{\"cdiVersion\":\"0.3.0\",\"kind\":\"" + kind + "\",\"devices\":[]}";
  }

  private Path write(String name, String content) throws IOException {
    Files.createDirectories(cdiDir);
    return Files.writeString(cdiDir.resolve(name), content);
  }

  private List<String> listNames() throws IOException {
    try (Stream<Path> s = Files.list(cdiDir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (NoSuchFileException e) {
      return List.of();
    }
  }
}
