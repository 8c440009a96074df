package io.dra4j.nvidia;

import io.dra4j.nvidia.nvml.Nvml.DeviceHandle;
import io.dra4j.nvidia.nvml.Nvml.GpuInstanceProfile;
import io.dra4j.nvidia.nvml.Nvml.Placement;

/** What a published device name stands for, so prepare knows what to set up. */
sealed interface PublishedDevice {

  /** The device name in the ResourceSlice. */
  String name();

  /** The physical GPU's minor number ({@code /dev/nvidiaN}). */
  int gpuMinor();

  /** The physical GPU's UUID. */
  String gpuUuid();

  /** The physical GPU's NVML handle (valid for the provider's NVML session). */
  DeviceHandle gpu();

  /**
   * A whole GPU.
   *
   * @param partitionable published with counters: MIG must be off when it is prepared
   */
  record WholeGpu(
      String name, int gpuMinor, String gpuUuid, DeviceHandle gpu, boolean partitionable)
      implements PublishedDevice {}

  /** A MIG device that already exists. */
  record StaticMig(
      String name,
      int gpuMinor,
      String gpuUuid,
      DeviceHandle gpu,
      String uuid,
      int gpuInstanceId,
      int computeInstanceId)
      implements PublishedDevice {}

  /** A MIG profile at a placement, created on prepare (partitionable MIG). */
  record MigSlot(
      String name,
      int gpuMinor,
      String gpuUuid,
      DeviceHandle gpu,
      GpuInstanceProfile profile,
      Placement placement)
      implements PublishedDevice {}
}
