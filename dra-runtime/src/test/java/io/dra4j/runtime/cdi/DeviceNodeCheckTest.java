package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.runtime.cdi.DeviceNodeCheck.NodeState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceNodeCheckTest {
  private static final ClaimRef CLAIM = ClaimRef.of("ns", "name", "uid-1");
  private static final Path HOST_DEV = Path.of("/host/dev");

  @TempDir Path tmp;

  private static DeviceNodeCheck pure(Map<String, NodeState> states) {
    return new DeviceNodeCheck(HOST_DEV, p -> states.getOrDefault(p.toString(), NodeState.MISSING));
  }

  @Test
  void hostPathsUnderDevAreLookedUpUnderTheDevRoot() {
    DeviceNodeCheck c = pure(Map.of());
    assertThat(c.hostCheckPath(DeviceNode.required("/dev/nvidia3")))
        .isEqualTo(Path.of("/host/dev/nvidia3"));
    assertThat(c.hostCheckPath(DeviceNode.builder("/dev/gpu").hostPath("/dev/dri/card1").build()))
        .isEqualTo(Path.of("/host/dev/dri/card1"));
    assertThat(c.hostCheckPath(DeviceNode.required("/dev"))).isEqualTo(HOST_DEV);
    assertThat(c.hostCheckPath(DeviceNode.required("/dev/../run/x"))).isEqualTo(Path.of("/run/x"));
    assertThat(c.hostCheckPath(DeviceNode.required("/devices/x"))).isEqualTo(Path.of("/devices/x"));
  }

  @Test
  void aMissingRequiredNodeFailsNamingClaimDeviceAndPaths() {
    ContainerEdits edits =
        ContainerEdits.builder().deviceNode(DeviceNode.required("/dev/nvidia3")).build();
    assertThatThrownBy(() -> pure(Map.of()).check(CLAIM, "gpu-3", edits))
        .isInstanceOf(DeviceException.class)
        .hasMessage(
            "required device node /dev/nvidia3 for device gpu-3 of claim ns/name (uid-1) does"
                + " not exist on the host (checked /host/dev/nvidia3)");
    assertThatThrownBy(() -> pure(Map.of()).checkClaimEdits(CLAIM, edits))
        .hasMessage(
            "required device node /dev/nvidia3 for the claim-wide edits of claim ns/name (uid-1)"
                + " does not exist on the host (checked /host/dev/nvidia3)");
  }

  @Test
  void aMissingOptionalNodeIsDroppedAndEverythingElseKept() throws Exception {
    ContainerEdits edits =
        ContainerEdits.builder()
            .env("A", "1")
            .deviceNode(DeviceNode.required("/dev/nvidia0"))
            .deviceNode(DeviceNode.optional("/dev/nvidia-uvm-tools"))
            .deviceNode(DeviceNode.builder("/dev/nvidia-modeset").required(false).build())
            .build();
    ContainerEdits out =
        pure(Map.of(
                "/host/dev/nvidia0", NodeState.SPECIAL,
                "/host/dev/nvidia-modeset", NodeState.SPECIAL))
            .check(CLAIM, "gpu-0", edits);
    assertThat(out.deviceNodes())
        .extracting(DeviceNode::path)
        .containsExactly("/dev/nvidia0", "/dev/nvidia-modeset");
    assertThat(out.env()).containsExactly("A=1");
  }

  @Test
  void presentNodesLeaveTheEditsAsTheyAre() throws Exception {
    ContainerEdits edits =
        ContainerEdits.builder().deviceNode(DeviceNode.required("/dev/nvidia0")).build();
    assertThat(pure(Map.of("/host/dev/nvidia0", NodeState.REGULAR_FILE)).check(CLAIM, "g", edits))
        .isSameAs(edits);
  }

  @Test
  void aDirectoryIsNotADeviceNode() {
    ContainerEdits edits =
        ContainerEdits.builder().deviceNode(DeviceNode.required("/dev/dri")).build();
    assertThatThrownBy(
            () -> pure(Map.of("/host/dev/dri", NodeState.DIRECTORY)).check(CLAIM, "gpu-0", edits))
        .hasMessageContaining("/dev/dri for device gpu-0 of claim ns/name (uid-1) is a directory");
  }

  @Test
  void aProbeErrorFailsTheCheckWithTheCause() {
    DeviceNodeCheck c =
        new DeviceNodeCheck(
            HOST_DEV,
            p -> {
              throw new IOException("permission denied");
            });
    ContainerEdits edits =
        ContainerEdits.builder().deviceNode(DeviceNode.optional("/dev/x")).build();
    assertThatThrownBy(() -> c.check(CLAIM, "gpu-0", edits))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("cannot check device node /dev/x for device gpu-0")
        .hasMessageContaining("permission denied");
  }

  @Test
  void checksTheRealFileSystemUnderADevRoot() throws Exception {
    Path devRoot = Files.createDirectories(tmp.resolve("dev"));
    Files.createFile(devRoot.resolve("accel0"));
    Files.createDirectories(devRoot.resolve("dri"));
    Files.createFile(devRoot.resolve("dri/card1"));
    Files.createSymbolicLink(devRoot.resolve("accel-link"), devRoot.resolve("accel0"));
    Files.createSymbolicLink(devRoot.resolve("dangling"), devRoot.resolve("nothing"));
    DeviceNodeCheck c = new DeviceNodeCheck(devRoot);

    ContainerEdits ok =
        ContainerEdits.builder()
            .deviceNode(DeviceNode.required("/dev/accel0"))
            .deviceNode(DeviceNode.builder("/dev/card").hostPath("/dev/dri/card1").build())
            .deviceNode(DeviceNode.required("/dev/accel-link"))
            .deviceNode(DeviceNode.optional("/dev/dangling"))
            .build();
    assertThat(c.check(CLAIM, "acc-0", ok).deviceNodes())
        .extracting(DeviceNode::path)
        .containsExactly("/dev/accel0", "/dev/card", "/dev/accel-link");

    ContainerEdits missing =
        ContainerEdits.builder().deviceNode(DeviceNode.required("/dev/accel1")).build();
    assertThatThrownBy(() -> c.check(CLAIM, "acc-1", missing))
        .hasMessage(
            "required device node /dev/accel1 for device acc-1 of claim ns/name (uid-1) does not"
                + " exist on the host (checked "
                + devRoot.resolve("accel1")
                + ")");
  }

  @Test
  void realDeviceNodesAreSpecialFiles() throws Exception {
    assertThat(DeviceNodeCheck.probeFileSystem(Path.of("/dev/null"))).isEqualTo(NodeState.SPECIAL);
    assertThat(DeviceNodeCheck.probeFileSystem(tmp)).isEqualTo(NodeState.DIRECTORY);
    assertThat(DeviceNodeCheck.probeFileSystem(tmp.resolve("none"))).isEqualTo(NodeState.MISSING);
  }
}
