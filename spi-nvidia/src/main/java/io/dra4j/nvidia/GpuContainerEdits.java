package io.dra4j.nvidia;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import java.io.IOException;
import java.util.Optional;

/**
 * The container edits for a prepared GPU or MIG device.
 *
 * <p>Device nodes: {@code /dev/nvidia<minor>} of the GPU; the control node {@code /dev/nvidiactl};
 * {@code /dev/nvidia-uvm} and {@code /dev/nvidia-uvm-tools}; for a MIG device its two capability
 * nodes. All of these are marked required, so a node missing on the host fails the prepare with a
 * clear error instead of starting a container without a usable GPU. That matters most for the UVM
 * nodes: the CUDA driver opens {@code /dev/nvidia-uvm} during {@code cuInit} (unified and managed
 * memory), and {@code nvidia-uvm-tools} serves profilers built on it. Both are created lazily (by
 * {@code nvidia-modprobe -u}) and are commonly absent on a freshly booted node; leaving them out
 * silently gives pods whose CUDA calls fail (kubernetes-sigs/dra-driver-nvidia-gpu#1380). {@code
 * /dev/nvidia-modeset} (display mode setting) is optional.
 *
 * <p>Environment: {@code NVIDIA_VISIBLE_DEVICES=void}, so a legacy nvidia-container-runtime hook
 * does not inject devices a second time. Then the driver's libraries and tools ({@link
 * DriverFiles}).
 */
final class GpuContainerEdits {

  private final NvidiaSettings settings;
  private final ContainerEdits driverFiles;
  private final Optional<Long> capsMajor;

  GpuContainerEdits(NvidiaSettings settings, ContainerEdits driverFiles) {
    this.settings = settings;
    this.driverFiles = driverFiles;
    this.capsMajor = MigCapabilities.capsMajor(settings.procRoot());
  }

  private ContainerEdits.Builder common(int gpuMinor) {
    return ContainerEdits.builder()
        .deviceNode(DeviceNode.required("/dev/nvidia" + gpuMinor))
        .deviceNode(DeviceNode.required("/dev/nvidiactl"))
        .deviceNode(DeviceNode.required("/dev/nvidia-uvm"))
        .deviceNode(DeviceNode.required("/dev/nvidia-uvm-tools"))
        .deviceNode(DeviceNode.optional("/dev/nvidia-modeset"))
        .env("NVIDIA_VISIBLE_DEVICES", "void");
  }

  /** A whole GPU. */
  ContainerEdits gpu(int gpuMinor) {
    return common(gpuMinor).add(driverFiles).build();
  }

  /**
   * A MIG device: its parent GPU's node plus the GPU and compute instance capability nodes.
   *
   * @throws IOException naming the capability file that is missing or unreadable
   */
  ContainerEdits mig(int gpuMinor, int gpuInstanceId, int computeInstanceId) throws IOException {
    int gi =
        MigCapabilities.deviceFileMinor(
            MigCapabilities.gpuInstanceAccess(settings.procRoot(), gpuMinor, gpuInstanceId));
    int ci =
        MigCapabilities.deviceFileMinor(
            MigCapabilities.computeInstanceAccess(
                settings.procRoot(), gpuMinor, gpuInstanceId, computeInstanceId));
    return common(gpuMinor)
        .deviceNode(capability(gi))
        .deviceNode(capability(ci))
        .add(driverFiles)
        .build();
  }

  private DeviceNode capability(int minor) {
    DeviceNode.Builder b = DeviceNode.builder("/dev/nvidia-caps/nvidia-cap" + minor);
    // With type and numbers the runtime can create the node without stat'ing the host's.
    capsMajor.ifPresent(major -> b.character(major, minor));
    return b.build();
  }
}
