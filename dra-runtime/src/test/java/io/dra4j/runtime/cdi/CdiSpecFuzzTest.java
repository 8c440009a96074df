package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.kube.KubeJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/**
 * CDI specs written from whatever edits a provider returns: building the edits either succeeds or
 * throws IllegalArgumentException (a vendor bug, caught at the vendor's call); writing them either
 * fails the claim with a DeviceException or IOException, or leaves a spec that is JSON of this
 * driver's kind naming every returned device id. Nothing else, and no temporary file behind.
 */
class CdiSpecFuzzTest {
  static final ClaimRef CLAIM = ClaimRef.of("ns", "claim", "3f0b9a52-7a5e-4c59-a3b1-0d3c2e4f5a6b");
  private static Path dir;
  private static CdiSpecWriter writer;

  @AfterAll
  static void cleanUp() throws Exception {
    if (dir != null) {
      io.dra4j.runtime.files.AtomicFiles.deleteTree(dir);
    }
  }

  @FuzzTest
  void write(FuzzedDataProvider data) throws Exception {
    if (writer == null) {
      dir = Files.createTempDirectory("fuzz-cdi");
      Path dev = Files.createDirectories(dir.resolve("dev"));
      Files.createFile(dev.resolve("gpu0"));
      writer =
          new CdiSpecWriter(
              dir.resolve("cdi"), CdiKind.forDriver("gpu.example.com"), new DeviceNodeCheck(dev));
    }
    List<PreparedDevice> devices = new ArrayList<>();
    int count = data.consumeInt(1, 3);
    try {
      for (int i = 0; i < count; i++) {
        devices.add(
            PreparedDevice.of(AllocatedDevice.of("gpu", "node-1", "gpu-" + i), edits(data)));
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      return; // refused while the provider builds it
    }
    ClaimSpec spec;
    try {
      spec = writer.write(CLAIM, devices, ContainerEdits.NONE);
    } catch (DeviceException e) {
      assertThat(e.getMessage()).isNotBlank();
      assertNoTemporaryFile();
      return;
    }
    assertThat(spec.cdiDeviceIds()).hasSize(devices.size());
    Path file = writer.specFile(CLAIM.uid());
    if (spec.spec().isEmpty()) {
      // No device has edits: no spec, and no id to hand to the runtime.
      assertThat(file).doesNotExist();
      assertThat(spec.allCdiDeviceIds()).isEmpty();
    } else {
      JsonNode written = KubeJson.mapper().readTree(file.toFile());
      assertThat(written.path("kind").asText()).isEqualTo("k8s.gpu.example.com/claim");
      assertThat(spec.allCdiDeviceIds()).isNotEmpty();
    }
    assertNoTemporaryFile();
    writer.remove(CLAIM.uid());
  }

  private static void assertNoTemporaryFile() throws Exception {
    try (var s = Files.list(dir.resolve("cdi"))) {
      assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp"))).isEmpty();
    } catch (java.nio.file.NoSuchFileException e) {
      // nothing written yet
    }
  }

  private static ContainerEdits edits(FuzzedDataProvider data) {
    ContainerEdits.Builder b = ContainerEdits.builder();
    int n = data.consumeInt(0, 6);
    for (int i = 0; i < n; i++) {
      switch (data.consumeInt(0, 4)) {
        case 0 -> b.env(data.consumeString(40), data.consumeString(80));
        case 1 -> {
          DeviceNode.Builder node = DeviceNode.builder(data.consumeString(60));
          if (data.consumeBoolean()) {
            node.hostPath(data.consumeString(60));
          }
          if (data.consumeBoolean()) {
            node.character(data.consumeLong(), data.consumeLong());
          }
          if (data.consumeBoolean()) {
            node.permissions(data.consumeString(4));
          }
          if (data.consumeBoolean()) {
            node.fileMode(data.consumeInt());
          }
          node.required(data.consumeBoolean());
          b.deviceNode(node.build());
        }
        case 2 -> {
          Mount.Builder m = Mount.builder(data.consumeString(60), data.consumeString(60));
          if (data.consumeBoolean()) {
            m.type(data.consumeString(10));
          }
          b.mount(m.options(List.of(data.consumeString(10))).build());
        }
        case 3 -> {
          Hook.Builder h =
              Hook.builder(
                      data.pickValue(List.copyOf(new java.util.TreeSet<>(Hook.NAMES))),
                      data.consumeString(60))
                  .args(List.of(data.consumeString(20)))
                  .env(List.of(data.consumeString(20)));
          if (data.consumeBoolean()) {
            h.timeout(data.consumeInt());
          }
          b.hook(h.build());
        }
        default -> b.env("VAR_" + i, data.consumeString(200));
      }
    }
    return b.build();
  }
}
