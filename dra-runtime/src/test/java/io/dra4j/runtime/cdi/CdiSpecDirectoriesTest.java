package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.DeviceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check of CDI device ids a provider manages itself against the spec directories. */
class CdiSpecDirectoriesTest {

  @TempDir Path tmp;

  static final String NVIDIA_YAML =
      """
      cdiVersion: 0.5.0
      kind: nvidia.com/gpu
      devices:
      - name: "0"
        containerEdits:
          deviceNodes:
          - path: /dev/nvidia0
      - name: GPU-4d0b5c3e-1a2b-4c3d-8e9f-0a1b2c3d4e5f
        containerEdits:
          deviceNodes:
          - path: /dev/nvidia0
      - name: MIG-7f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f
        containerEdits:
          deviceNodes:
          - path: /dev/nvidia0
      containerEdits:
        env:
        - NVIDIA_VISIBLE_DEVICES=void
      """;

  CdiSpecDirectories dirs(Path... directories) {
    return new CdiSpecDirectories(List.of(directories), Set.of("k8s.gpu.nvidia.com/claim"));
  }

  @Test
  void idsOfYamlAndJsonSpecsInEitherDirectoryAreFound() throws Exception {
    Path etc = Files.createDirectories(tmp.resolve("etc/cdi"));
    Path run = Files.createDirectories(tmp.resolve("run/cdi"));
    Files.writeString(etc.resolve("nvidia.yaml"), NVIDIA_YAML);
    Files.writeString(
        run.resolve("example.json"),
        "{\"cdiVersion\":\"0.3.0\",\"kind\":\"example.com/nic\",\"devices\":[{\"name\":\"eth1\","
            + "\"containerEdits\":{\"env\":[\"A=1\"]}}]}");
    assertThatCode(
            () ->
                dirs(etc, run)
                    .requireDevices(
                        "device p/gpu-0",
                        List.of(
                            "nvidia.com/gpu=GPU-4d0b5c3e-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
                            "nvidia.com/gpu=MIG-7f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f",
                            "nvidia.com/gpu=0",
                            "example.com/nic=eth1")))
        .doesNotThrowAnyException();
  }

  @Test
  void anIdNamingNoDeviceIsRefusedNamingTheIdAndTheDirectories() throws Exception {
    Path etc = Files.createDirectories(tmp.resolve("etc/cdi"));
    Files.writeString(etc.resolve("nvidia.yaml"), NVIDIA_YAML);
    Path missingDir = tmp.resolve("run/cdi");
    assertThatThrownBy(
            () ->
                dirs(etc, missingDir).requireDevices("device p/gpu-1", List.of("nvidia.com/gpu=7")))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("device p/gpu-1: CDI device id \"nvidia.com/gpu=7\" names no device")
        .hasMessageContaining("kind nvidia.com/gpu")
        .hasMessageContaining(etc.toString())
        .hasMessageContaining(missingDir.toString());
    // Another kind with the same device name is not the device.
    assertThatThrownBy(() -> dirs(etc).requireDevices("d", List.of("amd.com/gpu=0")))
        .hasMessageContaining("names no device of a CDI spec of kind amd.com/gpu");
  }

  @Test
  void idsTheCdiLibraryCannotParseOrThatTheRuntimeOwnsAreRefused() throws Exception {
    CdiSpecDirectories d = dirs(tmp);
    for (String bad :
        List.of(
            "gpu0",
            "nvidia.com=gpu0",
            "nvidia.com/gpu=",
            "/dev/nvidia0",
            "nvidia.com/gpu=a b",
            "9vendor.com/gpu=0",
            "nvidia.com/gpu/x=0")) {
      assertThatThrownBy(() -> d.requireDevices("device p/gpu-0", List.of(bad)))
          .as(bad)
          .hasMessageContaining("CDI device id \"" + bad + "\" is not a qualified CDI device name");
    }
    assertThatThrownBy(
            () -> d.requireDevices("device p/gpu-0", List.of("k8s.gpu.nvidia.com/claim=uid-gpu-0")))
        .hasMessageContaining("is of kind k8s.gpu.nvidia.com/claim, whose specs dra4j writes");
  }

  @Test
  void theSameIdTwiceIsRefused() throws Exception {
    Files.writeString(tmp.resolve("nvidia.yaml"), NVIDIA_YAML);
    assertThatThrownBy(
            () ->
                dirs(tmp)
                    .requireDevices(
                        "device p/gpu-0", List.of("nvidia.com/gpu=0", "nvidia.com/gpu=0")))
        .hasMessageContaining("\"nvidia.com/gpu=0\" is returned twice");
  }

  @Test
  void aRewrittenSpecIsReadAgainAndARemovedOneForgotten() throws Exception {
    CdiSpecDirectories d = dirs(tmp);
    Path spec = tmp.resolve("nvidia.yaml");
    Files.writeString(spec, NVIDIA_YAML);
    d.requireDevices("d", List.of("nvidia.com/gpu=0"));
    // nvidia-ctk regenerated the spec after a GPU was added (the clock may not have moved).
    Files.writeString(spec, NVIDIA_YAML.replace("name: \"0\"", "name: \"1\""));
    Files.setLastModifiedTime(spec, FileTime.from(Instant.now().plusSeconds(5)));
    d.requireDevices("d", List.of("nvidia.com/gpu=1"));
    assertThatThrownBy(() -> d.requireDevices("d", List.of("nvidia.com/gpu=0")))
        .hasMessageContaining("names no device");
    Files.delete(spec);
    assertThatThrownBy(() -> d.requireDevices("d", List.of("nvidia.com/gpu=1")))
        .hasMessageContaining("names no device");
  }

  @Test
  void filesThatAreNoSpecAreSkipped() throws Exception {
    Files.writeString(tmp.resolve("broken.json"), "{");
    Files.writeString(tmp.resolve("nokind.yaml"), "devices: []\n");
    Files.writeString(tmp.resolve("notes.txt"), "kind: nvidia.com/gpu\n");
    Files.writeString(tmp.resolve("nvidia.yaml"), NVIDIA_YAML);
    assertThat(dirs(tmp).directories()).containsExactly(tmp);
    assertThatCode(() -> dirs(tmp).requireDevices("d", List.of("nvidia.com/gpu=0")))
        .doesNotThrowAnyException();
  }
}
