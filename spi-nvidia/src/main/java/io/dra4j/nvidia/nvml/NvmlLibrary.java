package io.dra4j.nvidia.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The C functions of {@code libnvidia-ml.so.1}, as JNA maps them. Versioned names are the ones
 * current drivers export. Loaded lazily by {@link NvmlLoader}; never held in a static field, so a
 * failed load can be retried.
 */
interface NvmlLibrary extends Library {

  int nvmlInitWithFlags(int flags);

  int nvmlInit_v2();

  int nvmlShutdown();

  String nvmlErrorString(int result);

  int nvmlSystemGetDriverVersion(byte[] version, int length);

  int nvmlSystemGetCudaDriverVersion_v2(IntByReference version);

  int nvmlSystemGetCudaDriverVersion(IntByReference version);

  int nvmlDeviceGetCount_v2(IntByReference count);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetMinorNumber(Pointer device, IntByReference minor);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetName(Pointer device, byte[] name, int length);

  int nvmlDeviceGetBrand(Pointer device, IntByReference type);

  int nvmlDeviceGetArchitecture(Pointer device, IntByReference arch);

  int nvmlDeviceGetCudaComputeCapability(
      Pointer device, IntByReference major, IntByReference minor);

  int nvmlDeviceGetMemoryInfo(Pointer device, Memory memory);

  int nvmlDeviceGetPciInfo_v3(Pointer device, PciInfo pci);

  int nvmlDeviceGetMigMode(Pointer device, IntByReference current, IntByReference pending);

  int nvmlDeviceSetMigMode(Pointer device, int mode, IntByReference activationStatus);

  int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

  int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference mig);

  int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetGpuInstanceProfileInfoV(Pointer device, int profile, GpuInstanceProfileV2 info);

  /** {@code placements} is an array of {@code {start, size}} pairs, or null to ask the count. */
  int nvmlDeviceGetGpuInstancePossiblePlacements_v2(
      Pointer device, int profileId, int[] placements, IntByReference count);

  int nvmlDeviceGetGpuInstanceById(Pointer device, int id, PointerByReference gpuInstance);

  int nvmlGpuInstanceGetInfo(Pointer gpuInstance, GpuInstanceInfo info);

  int nvmlDeviceCreateGpuInstanceWithPlacement(
      Pointer device, int profileId, PlacementStruct placement, PointerByReference gpuInstance);

  int nvmlGpuInstanceDestroy(Pointer gpuInstance);

  int nvmlGpuInstanceGetComputeInstanceProfileInfo(
      Pointer gpuInstance, int profile, int engProfile, ComputeInstanceProfileInfo info);

  int nvmlGpuInstanceCreateComputeInstance(
      Pointer gpuInstance, int profileId, PointerByReference computeInstance);

  int nvmlGpuInstanceGetComputeInstanceById(
      Pointer gpuInstance, int id, PointerByReference computeInstance);

  int nvmlComputeInstanceGetInfo_v2(Pointer computeInstance, ComputeInstanceInfo info);

  int nvmlComputeInstanceDestroy(Pointer computeInstance);

  int nvmlEventSetCreate(PointerByReference set);

  int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes);

  int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

  int nvmlEventSetWait_v2(Pointer set, EventData data, int timeoutMillis);

  int nvmlEventSetFree(Pointer set);

  /** {@code nvmlMemory_t}. */
  @Structure.FieldOrder({"total", "free", "used"})
  class Memory extends Structure {
    public long total;
    public long free;
    public long used;
  }

  /** {@code nvmlPciInfo_t} (the v3 layout: a 16-byte legacy id first, the 32-byte id last). */
  @Structure.FieldOrder({
    "busIdLegacy",
    "domain",
    "bus",
    "device",
    "pciDeviceId",
    "pciSubSystemId",
    "busId"
  })
  class PciInfo extends Structure {
    public byte[] busIdLegacy = new byte[16];
    public int domain;
    public int bus;
    public int device;
    public int pciDeviceId;
    public int pciSubSystemId;
    public byte[] busId = new byte[32];
  }

  /** {@code nvmlGpuInstanceProfileInfo_v2_t}; {@code version} must be set before the call. */
  @Structure.FieldOrder({
    "version",
    "id",
    "isP2pSupported",
    "sliceCount",
    "instanceCount",
    "multiprocessorCount",
    "copyEngineCount",
    "decoderCount",
    "encoderCount",
    "jpegCount",
    "ofaCount",
    "memorySizeMB",
    "name"
  })
  class GpuInstanceProfileV2 extends Structure {
    public int version;
    public int id;
    public int isP2pSupported;
    public int sliceCount;
    public int instanceCount;
    public int multiprocessorCount;
    public int copyEngineCount;
    public int decoderCount;
    public int encoderCount;
    public int jpegCount;
    public int ofaCount;
    public long memorySizeMB;
    public byte[] name = new byte[96];

    GpuInstanceProfileV2() {
      // NVML_STRUCT_VERSION(GpuInstanceProfileInfo, 2): the struct size with the version in the
      // top byte.
      version = size() | (2 << 24);
    }
  }

  /** {@code nvmlGpuInstancePlacement_t}. */
  @Structure.FieldOrder({"start", "size"})
  class PlacementStruct extends Structure {
    public int start;
    public int size;
  }

  /** {@code nvmlGpuInstanceInfo_t}; the nested placement is flattened (same layout). */
  @Structure.FieldOrder({"device", "id", "profileId", "placementStart", "placementSize"})
  class GpuInstanceInfo extends Structure {
    public Pointer device;
    public int id;
    public int profileId;
    public int placementStart;
    public int placementSize;
  }

  /** {@code nvmlComputeInstanceProfileInfo_t}. */
  @Structure.FieldOrder({
    "id",
    "sliceCount",
    "instanceCount",
    "multiprocessorCount",
    "sharedCopyEngineCount",
    "sharedDecoderCount",
    "sharedEncoderCount",
    "sharedJpegCount",
    "sharedOfaCount"
  })
  class ComputeInstanceProfileInfo extends Structure {
    public int id;
    public int sliceCount;
    public int instanceCount;
    public int multiprocessorCount;
    public int sharedCopyEngineCount;
    public int sharedDecoderCount;
    public int sharedEncoderCount;
    public int sharedJpegCount;
    public int sharedOfaCount;
  }

  /** {@code nvmlComputeInstanceInfo_t}; the nested placement is flattened. */
  @Structure.FieldOrder({
    "device",
    "gpuInstance",
    "id",
    "profileId",
    "placementStart",
    "placementSize"
  })
  class ComputeInstanceInfo extends Structure {
    public Pointer device;
    public Pointer gpuInstance;
    public int id;
    public int profileId;
    public int placementStart;
    public int placementSize;
  }

  /** {@code nvmlEventData_t}. */
  @Structure.FieldOrder({"device", "eventType", "eventData", "gpuInstanceId", "computeInstanceId"})
  class EventData extends Structure {
    public Pointer device;
    public long eventType;
    public long eventData;
    public int gpuInstanceId;
    public int computeInstanceId;
  }
}
