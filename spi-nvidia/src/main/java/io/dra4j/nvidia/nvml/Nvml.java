package io.dra4j.nvidia.nvml;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The NVML calls spi-nvidia makes, in Java terms. {@link NvmlLoader#load} gives the JNA
 * implementation over {@code libnvidia-ml.so.1}; discovery, CDI and health code only see this
 * interface.
 *
 * <p>Every method throws {@link NvmlException} (unchecked) naming the C function and the return
 * code when NVML reports an error, except where a result type says how a tolerated code is returned
 * (an empty {@link Optional}). Handles are only valid between {@link #init} and {@link #shutdown}.
 * Implementations are thread-safe, as NVML is.
 */
public interface Nvml {

  /** {@code NVML_INIT_FLAG_NO_GPUS}: initialise even when no GPU is usable (all bound to VFIO). */
  int INIT_FLAG_NO_GPUS = 1;

  /** {@code nvmlEventTypeSingleBitEccError}. */
  long EVENT_SINGLE_BIT_ECC = 0x1L;

  /** {@code nvmlEventTypeDoubleBitEccError}. */
  long EVENT_DOUBLE_BIT_ECC = 0x2L;

  /** {@code nvmlEventTypeXidCriticalError}. */
  long EVENT_XID_CRITICAL = 0x8L;

  /** The GPU or compute instance id NVML gives an event it cannot attribute to an instance. */
  int NO_INSTANCE = 0xFFFFFFFF;

  /** {@code nvmlInitWithFlags(NO_GPUS)}, or {@code nvmlInit_v2} on drivers without it. */
  void init();

  /** {@code nvmlShutdown}; NVML counts inits, so every {@link #init} needs one. */
  void shutdown();

  /** {@code nvmlSystemGetDriverVersion}, e.g. {@code 550.54.15}. */
  String systemDriverVersion();

  /**
   * {@code nvmlSystemGetCudaDriverVersion_v2} (or the unversioned call): {@code major * 1000 +
   * minor * 10}, e.g. 12040 for CUDA 12.4.
   */
  int systemCudaDriverVersion();

  /** {@code nvmlDeviceGetCount_v2}. */
  int deviceCount();

  /** {@code nvmlDeviceGetHandleByIndex_v2}. */
  DeviceHandle deviceByIndex(int index);

  /** {@code nvmlDeviceGetMinorNumber}: N of {@code /dev/nvidiaN}. */
  int minorNumber(DeviceHandle device);

  /** {@code nvmlDeviceGetUUID}; works on GPU and MIG device handles. */
  String uuid(DeviceHandle device);

  /** {@code nvmlDeviceGetName}, e.g. {@code NVIDIA H100 80GB HBM3}. */
  String name(DeviceHandle device);

  /** {@code nvmlDeviceGetBrand}: an {@code nvmlBrandType_t} value. */
  int brand(DeviceHandle device);

  /** {@code nvmlDeviceGetArchitecture}: an {@code nvmlDeviceArchitecture_t} value. */
  int architecture(DeviceHandle device);

  /** {@code nvmlDeviceGetCudaComputeCapability}. */
  ComputeCapability cudaComputeCapability(DeviceHandle device);

  /**
   * {@code nvmlDeviceGetMemoryInfo}: total bytes; empty when NVML answers {@code NOT_SUPPORTED}
   * (vGPU and some integrated parts).
   */
  Optional<Long> memoryTotal(DeviceHandle device);

  /** {@code nvmlDeviceGetPciInfo_v3}: the {@code busId} field, e.g. {@code 00000000:07:00.0}. */
  String pciBusId(DeviceHandle device);

  /**
   * {@code nvmlDeviceGetMigMode}; empty when the GPU is not MIG capable ({@code NOT_SUPPORTED}).
   */
  Optional<MigMode> migMode(DeviceHandle device);

  /**
   * {@code nvmlDeviceSetMigMode}.
   *
   * @return the activation status: {@link NvmlReturn#SUCCESS} when the new mode is current, an
   *     error (such as {@link NvmlReturn#RESET_REQUIRED}) when it is only pending
   */
  NvmlReturn setMigMode(DeviceHandle device, boolean enabled);

  /** {@code nvmlDeviceGetMaxMigDeviceCount}. */
  int maxMigDeviceCount(DeviceHandle device);

  /**
   * {@code nvmlDeviceGetMigDeviceHandleByIndex}; empty for an unused index ({@code NOT_FOUND} or
   * {@code INVALID_ARGUMENT}).
   */
  Optional<DeviceHandle> migDeviceByIndex(DeviceHandle device, int index);

  /** {@code nvmlDeviceGetGpuInstanceId} of a MIG device handle. */
  int gpuInstanceId(DeviceHandle migDevice);

  /** {@code nvmlDeviceGetComputeInstanceId} of a MIG device handle. */
  int computeInstanceId(DeviceHandle migDevice);

  /**
   * {@code nvmlDeviceGetGpuInstanceProfileInfoV} for a profile index ({@code
   * NVML_GPU_INSTANCE_PROFILE_*}); empty when the GPU does not offer it ({@code NOT_SUPPORTED} or
   * {@code INVALID_ARGUMENT}).
   */
  Optional<GpuInstanceProfile> gpuInstanceProfile(DeviceHandle device, int profileIndex);

  /** {@code nvmlDeviceGetGpuInstancePossiblePlacements_v2} for a profile id. */
  List<Placement> gpuInstancePossiblePlacements(DeviceHandle device, int profileId);

  /** {@code nvmlDeviceGetGpuInstanceById}. */
  GpuInstanceHandle gpuInstanceById(DeviceHandle device, int id);

  /** {@code nvmlGpuInstanceGetInfo}. */
  GpuInstanceInfo gpuInstanceInfo(GpuInstanceHandle gpuInstance);

  /** {@code nvmlDeviceCreateGpuInstanceWithPlacement}. */
  GpuInstanceHandle createGpuInstance(DeviceHandle device, int profileId, Placement placement);

  /** {@code nvmlGpuInstanceDestroy}. */
  void destroyGpuInstance(GpuInstanceHandle gpuInstance);

  /**
   * {@code nvmlGpuInstanceGetComputeInstanceProfileInfo} for a profile index with the shared engine
   * profile; empty when not offered.
   */
  Optional<ComputeInstanceProfile> computeInstanceProfile(
      GpuInstanceHandle gpuInstance, int profileIndex);

  /** {@code nvmlGpuInstanceCreateComputeInstance}. */
  ComputeInstanceHandle createComputeInstance(GpuInstanceHandle gpuInstance, int profileId);

  /** {@code nvmlGpuInstanceGetComputeInstanceById}. */
  ComputeInstanceHandle computeInstanceById(GpuInstanceHandle gpuInstance, int id);

  /** {@code nvmlComputeInstanceGetInfo_v2}. */
  ComputeInstanceInfo computeInstanceInfo(ComputeInstanceHandle computeInstance);

  /** {@code nvmlComputeInstanceDestroy}. */
  void destroyComputeInstance(ComputeInstanceHandle computeInstance);

  /** {@code nvmlEventSetCreate}. */
  EventSetHandle createEventSet();

  /** {@code nvmlDeviceGetSupportedEventTypes}: a mask of {@code EVENT_*} bits. */
  long supportedEventTypes(DeviceHandle device);

  /** {@code nvmlDeviceRegisterEvents}. */
  void registerEvents(DeviceHandle device, long eventTypes, EventSetHandle set);

  /** {@code nvmlEventSetWait_v2}; empty when nothing happened within the timeout. */
  Optional<Event> waitForEvent(EventSetHandle set, int timeoutMillis);

  /** {@code nvmlEventSetFree}. */
  void freeEventSet(EventSetHandle set);

  /** An {@code nvmlDevice_t}: a GPU or a MIG device. */
  record DeviceHandle(long address) {}

  /** An {@code nvmlGpuInstance_t}. */
  record GpuInstanceHandle(long address) {}

  /** An {@code nvmlComputeInstance_t}. */
  record ComputeInstanceHandle(long address) {}

  /** An {@code nvmlEventSet_t}. */
  record EventSetHandle(long address) {}

  /** CUDA compute capability, e.g. 9.0. */
  record ComputeCapability(int major, int minor) {}

  /** MIG mode: enabled now, and after the next GPU reset. */
  record MigMode(boolean current, boolean pending) {}

  /** A range of memory slices ({@code nvmlGpuInstancePlacement_t} and the compute variant). */
  record Placement(int start, int size) {}

  /**
   * {@code nvmlGpuInstanceProfileInfo_v2_t}.
   *
   * @param index the profile index it was asked for ({@code NVML_GPU_INSTANCE_PROFILE_*})
   * @param id the profile id used by the other MIG calls
   * @param sliceCount compute slices (the N of {@code Ng.})
   * @param instanceCount how many instances of this profile fit at most
   * @param memoryMiB memory in MiB (NVML calls it MB)
   * @param name e.g. {@code MIG 1g.10gb}
   */
  record GpuInstanceProfile(
      int index,
      int id,
      int sliceCount,
      int instanceCount,
      int multiprocessors,
      int copyEngines,
      int decoders,
      int encoders,
      int jpegEngines,
      int ofaEngines,
      long memoryMiB,
      String name) {
    public GpuInstanceProfile {
      Objects.requireNonNull(name, "name");
    }
  }

  /** {@code nvmlGpuInstanceInfo_t} without the device pointer. */
  record GpuInstanceInfo(int id, int profileId, Placement placement) {}

  /**
   * {@code nvmlComputeInstanceProfileInfo_t}.
   *
   * @param index the profile index it was asked for
   * @param id the profile id used to create compute instances
   */
  record ComputeInstanceProfile(int index, int id, int sliceCount, int multiprocessors) {}

  /** {@code nvmlComputeInstanceInfo_t} without the pointers. */
  record ComputeInstanceInfo(int id, int profileId, Placement placement) {}

  /**
   * {@code nvmlEventData_t}.
   *
   * @param device the GPU the event is about
   * @param type one {@code EVENT_*} bit
   * @param data the XID for {@link #EVENT_XID_CRITICAL} (999 when unknown), else 0
   * @param gpuInstanceId the MIG GPU instance, or {@link #NO_INSTANCE}
   * @param computeInstanceId the MIG compute instance, or {@link #NO_INSTANCE}
   */
  record Event(
      DeviceHandle device, long type, long data, int gpuInstanceId, int computeInstanceId) {}
}
