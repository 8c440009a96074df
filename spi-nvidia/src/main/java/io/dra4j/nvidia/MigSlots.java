package io.dra4j.nvidia;

import io.dra4j.api.claim.DeviceException;
import io.dra4j.nvidia.PublishedDevice.MigSlot;
import io.dra4j.nvidia.PublishedDevice.WholeGpu;
import io.dra4j.nvidia.nvml.Nvml;
import io.dra4j.nvidia.nvml.Nvml.ComputeInstanceHandle;
import io.dra4j.nvidia.nvml.Nvml.DeviceHandle;
import io.dra4j.nvidia.nvml.Nvml.GpuInstanceHandle;
import io.dra4j.nvidia.nvml.NvmlException;
import io.dra4j.nvidia.nvml.NvmlReturn;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and destroys MIG devices for partitionable MIG. The scheduler already made sure through
 * the counters that allocated slots do not overlap; this class only turns an allocated slot into a
 * GPU instance with one compute instance spanning it, and back.
 *
 * <p>Creation is idempotent: a GPU instance of the same profile at the same placement is reused, so
 * a prepare repeated after a crash does not fail. MIG mode is switched on (or, for a whole GPU,
 * off) when needed; GPUs that need a reset for that fail the claim with a message saying so.
 */
final class MigSlots {
  private static final Logger LOG = LoggerFactory.getLogger(MigSlots.class);

  /** GPU instance ids probed when looking for an instance by placement. */
  private static final int GPU_INSTANCE_ID_LIMIT = 32;

  private static final int COMPUTE_INSTANCE_ID_LIMIT = 8;

  /** The ids of a created MIG device, kept in the checkpoint. */
  record Created(int gpuInstanceId, int computeInstanceId) {}

  private final Nvml nvml;

  MigSlots(Nvml nvml) {
    this.nvml = nvml;
  }

  /** Makes sure MIG is off so the whole GPU can run CUDA work. */
  void prepareWholeGpu(WholeGpu gpu) throws DeviceException {
    Optional<Nvml.MigMode> mode = nvml.migMode(gpu.gpu());
    if (mode.isEmpty() || !mode.get().current()) {
      return;
    }
    List<Integer> instances = gpuInstances(gpu.gpu());
    if (!instances.isEmpty()) {
      throw new DeviceException(
          gpu.name()
              + ": MIG is enabled and GPU instances "
              + instances
              + " exist, so the whole GPU cannot be handed out; destroy them or use the MIG"
              + " devices");
    }
    NvmlReturn status = nvml.setMigMode(gpu.gpu(), false);
    if (status != NvmlReturn.SUCCESS) {
      throw new DeviceException(
          gpu.name()
              + ": disabling MIG mode needs a GPU reset (NVML activation status "
              + status
              + "); reset the GPU (nvidia-smi -r) and retry");
    }
    LOG.info("{}: MIG mode disabled to hand out the whole GPU", gpu.name());
  }

  /** Creates (or finds) the MIG device of a slot. */
  Created create(MigSlot slot) throws DeviceException {
    enableMig(slot);
    GpuInstanceHandle gi =
        find(slot)
            .orElseGet(
                () -> nvml.createGpuInstance(slot.gpu(), slot.profile().id(), slot.placement()));
    int giId = nvml.gpuInstanceInfo(gi).id();
    Optional<ComputeInstanceHandle> ci = firstComputeInstance(gi);
    if (ci.isEmpty()) {
      ci = Optional.of(nvml.createComputeInstance(gi, fullComputeProfile(slot, gi)));
    }
    int ciId = nvml.computeInstanceInfo(ci.get()).id();
    LOG.info(
        "{}: MIG device ready as GPU instance {} / compute instance {}", slot.name(), giId, ciId);
    return new Created(giId, ciId);
  }

  /**
   * Destroys the MIG device of a slot; a device that is already gone is fine.
   *
   * @param recorded the ids prepare recorded, or empty when prepare never finished (then the
   *     instance at the slot's placement is destroyed, if any)
   */
  void destroy(MigSlot slot, Optional<Created> recorded) {
    Optional<GpuInstanceHandle> gi;
    if (recorded.isPresent()) {
      gi = byId(slot.gpu(), recorded.get().gpuInstanceId());
    } else {
      gi = find(slot);
    }
    if (gi.isEmpty()) {
      LOG.info("{}: no MIG device to destroy", slot.name());
      return;
    }
    for (int id = 0; id < COMPUTE_INSTANCE_ID_LIMIT; id++) {
      Optional<ComputeInstanceHandle> ci = computeInstance(gi.get(), id);
      if (ci.isPresent()) {
        nvml.destroyComputeInstance(ci.get());
      }
    }
    nvml.destroyGpuInstance(gi.get());
    LOG.info("{}: MIG device destroyed", slot.name());
  }

  private void enableMig(MigSlot slot) throws DeviceException {
    Optional<Nvml.MigMode> mode = nvml.migMode(slot.gpu());
    if (mode.isEmpty()) {
      throw new DeviceException(slot.name() + ": the GPU is not MIG capable");
    }
    if (mode.get().current()) {
      return;
    }
    NvmlReturn status = nvml.setMigMode(slot.gpu(), true);
    if (status != NvmlReturn.SUCCESS) {
      throw new DeviceException(
          slot.name()
              + ": enabling MIG mode on gpu-"
              + slot.gpuMinor()
              + " needs a GPU reset (NVML activation status "
              + status
              + "); reset the GPU (nvidia-smi -r) and retry");
    }
    LOG.info("gpu-{}: MIG mode enabled for {}", slot.gpuMinor(), slot.name());
  }

  private int fullComputeProfile(MigSlot slot, GpuInstanceHandle gi) throws DeviceException {
    for (int i = 0; i < GpuDiscovery.COMPUTE_INSTANCE_PROFILE_LIMIT; i++) {
      Optional<Nvml.ComputeInstanceProfile> p = nvml.computeInstanceProfile(gi, i);
      if (p.isPresent() && p.get().sliceCount() == slot.profile().sliceCount()) {
        return p.get().id();
      }
    }
    throw new DeviceException(
        slot.name() + ": no compute instance profile spans the whole GPU instance");
  }

  private Optional<GpuInstanceHandle> find(MigSlot slot) {
    for (int id : gpuInstances(slot.gpu())) {
      Optional<GpuInstanceHandle> gi = byId(slot.gpu(), id);
      if (gi.isPresent()) {
        Nvml.GpuInstanceInfo info = nvml.gpuInstanceInfo(gi.get());
        if (info.profileId() == slot.profile().id()
            && info.placement().start() == slot.placement().start()) {
          return gi;
        }
      }
    }
    return Optional.empty();
  }

  private List<Integer> gpuInstances(DeviceHandle gpu) {
    List<Integer> out = new ArrayList<>();
    for (int id = 0; id < GPU_INSTANCE_ID_LIMIT; id++) {
      if (byId(gpu, id).isPresent()) {
        out.add(id);
      }
    }
    return out;
  }

  private Optional<GpuInstanceHandle> byId(DeviceHandle gpu, int id) {
    try {
      return Optional.of(nvml.gpuInstanceById(gpu, id));
    } catch (NvmlException e) {
      if (e.code() == NvmlReturn.NOT_FOUND
          || e.code() == NvmlReturn.INVALID_ARGUMENT
          || e.code() == NvmlReturn.NOT_SUPPORTED) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private Optional<ComputeInstanceHandle> computeInstance(GpuInstanceHandle gi, int id) {
    try {
      return Optional.of(nvml.computeInstanceById(gi, id));
    } catch (NvmlException e) {
      if (e.code() == NvmlReturn.NOT_FOUND || e.code() == NvmlReturn.INVALID_ARGUMENT) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private Optional<ComputeInstanceHandle> firstComputeInstance(GpuInstanceHandle gi) {
    for (int id = 0; id < COMPUTE_INSTANCE_ID_LIMIT; id++) {
      Optional<ComputeInstanceHandle> ci = computeInstance(gi, id);
      if (ci.isPresent()) {
        return ci;
      }
    }
    return Optional.empty();
  }
}
