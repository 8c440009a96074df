package io.dra4j.nvidia.nvml;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@link Nvml} over the JNA mapping of {@code libnvidia-ml.so.1}. */
final class JnaNvml implements Nvml {

  // Large enough for every string NVML returns (NVML_DEVICE_UUID_V2_BUFFER_SIZE and
  // NVML_DEVICE_NAME_V2_BUFFER_SIZE are 96, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80).
  private static final int STRING_BUFFER = 96;

  private final NvmlLibrary lib;
  private final String location;

  JnaNvml(NvmlLibrary lib, String location) {
    this.lib = lib;
    this.location = location;
  }

  /** Where the library was loaded from. */
  String location() {
    return location;
  }

  private void check(String function, int rc) {
    if (rc != 0) {
      throw new NvmlException(function, rc, describe(rc));
    }
  }

  private String describe(int rc) {
    try {
      return lib.nvmlErrorString(rc);
    } catch (UnsatisfiedLinkError e) {
      return "";
    }
  }

  private static Pointer ptr(long address) {
    return new Pointer(address);
  }

  private static String text(byte[] buffer) {
    return Native.toString(buffer, "UTF-8");
  }

  @Override
  public void init() {
    int rc;
    String function;
    try {
      function = "nvmlInitWithFlags";
      rc = lib.nvmlInitWithFlags(INIT_FLAG_NO_GPUS);
    } catch (UnsatisfiedLinkError e) {
      // Drivers before nvmlInitWithFlags existed.
      function = "nvmlInit_v2";
      rc = lib.nvmlInit_v2();
    }
    check(function, rc);
  }

  @Override
  public void shutdown() {
    check("nvmlShutdown", lib.nvmlShutdown());
  }

  @Override
  public String systemDriverVersion() {
    byte[] buf = new byte[STRING_BUFFER];
    check("nvmlSystemGetDriverVersion", lib.nvmlSystemGetDriverVersion(buf, buf.length));
    return text(buf);
  }

  @Override
  public int systemCudaDriverVersion() {
    IntByReference v = new IntByReference();
    try {
      check("nvmlSystemGetCudaDriverVersion_v2", lib.nvmlSystemGetCudaDriverVersion_v2(v));
    } catch (UnsatisfiedLinkError e) {
      check("nvmlSystemGetCudaDriverVersion", lib.nvmlSystemGetCudaDriverVersion(v));
    }
    return v.getValue();
  }

  @Override
  public int deviceCount() {
    IntByReference n = new IntByReference();
    check("nvmlDeviceGetCount_v2", lib.nvmlDeviceGetCount_v2(n));
    return n.getValue();
  }

  @Override
  public DeviceHandle deviceByIndex(int index) {
    PointerByReference p = new PointerByReference();
    check("nvmlDeviceGetHandleByIndex_v2", lib.nvmlDeviceGetHandleByIndex_v2(index, p));
    return new DeviceHandle(Pointer.nativeValue(p.getValue()));
  }

  @Override
  public int minorNumber(DeviceHandle device) {
    IntByReference v = new IntByReference();
    check("nvmlDeviceGetMinorNumber", lib.nvmlDeviceGetMinorNumber(ptr(device.address()), v));
    return v.getValue();
  }

  @Override
  public String uuid(DeviceHandle device) {
    byte[] buf = new byte[STRING_BUFFER];
    check("nvmlDeviceGetUUID", lib.nvmlDeviceGetUUID(ptr(device.address()), buf, buf.length));
    return text(buf);
  }

  @Override
  public String name(DeviceHandle device) {
    byte[] buf = new byte[STRING_BUFFER];
    check("nvmlDeviceGetName", lib.nvmlDeviceGetName(ptr(device.address()), buf, buf.length));
    return text(buf);
  }

  @Override
  public int brand(DeviceHandle device) {
    IntByReference v = new IntByReference();
    check("nvmlDeviceGetBrand", lib.nvmlDeviceGetBrand(ptr(device.address()), v));
    return v.getValue();
  }

  @Override
  public int architecture(DeviceHandle device) {
    IntByReference v = new IntByReference();
    check("nvmlDeviceGetArchitecture", lib.nvmlDeviceGetArchitecture(ptr(device.address()), v));
    return v.getValue();
  }

  @Override
  public ComputeCapability cudaComputeCapability(DeviceHandle device) {
    IntByReference major = new IntByReference();
    IntByReference minor = new IntByReference();
    check(
        "nvmlDeviceGetCudaComputeCapability",
        lib.nvmlDeviceGetCudaComputeCapability(ptr(device.address()), major, minor));
    return new ComputeCapability(major.getValue(), minor.getValue());
  }

  @Override
  public Optional<Long> memoryTotal(DeviceHandle device) {
    NvmlLibrary.Memory m = new NvmlLibrary.Memory();
    int rc = lib.nvmlDeviceGetMemoryInfo(ptr(device.address()), m);
    if (rc == NvmlReturn.NOT_SUPPORTED.code()) {
      return Optional.empty();
    }
    check("nvmlDeviceGetMemoryInfo", rc);
    return Optional.of(m.total);
  }

  @Override
  public String pciBusId(DeviceHandle device) {
    NvmlLibrary.PciInfo pci = new NvmlLibrary.PciInfo();
    check("nvmlDeviceGetPciInfo_v3", lib.nvmlDeviceGetPciInfo_v3(ptr(device.address()), pci));
    return text(pci.busId);
  }

  @Override
  public Optional<MigMode> migMode(DeviceHandle device) {
    IntByReference current = new IntByReference();
    IntByReference pending = new IntByReference();
    int rc = lib.nvmlDeviceGetMigMode(ptr(device.address()), current, pending);
    if (rc == NvmlReturn.NOT_SUPPORTED.code()) {
      return Optional.empty();
    }
    check("nvmlDeviceGetMigMode", rc);
    return Optional.of(new MigMode(current.getValue() == 1, pending.getValue() == 1));
  }

  @Override
  public NvmlReturn setMigMode(DeviceHandle device, boolean enabled) {
    IntByReference activation = new IntByReference();
    check(
        "nvmlDeviceSetMigMode",
        lib.nvmlDeviceSetMigMode(ptr(device.address()), enabled ? 1 : 0, activation));
    return NvmlReturn.of(activation.getValue());
  }

  @Override
  public int maxMigDeviceCount(DeviceHandle device) {
    IntByReference v = new IntByReference();
    check(
        "nvmlDeviceGetMaxMigDeviceCount",
        lib.nvmlDeviceGetMaxMigDeviceCount(ptr(device.address()), v));
    return v.getValue();
  }

  @Override
  public Optional<DeviceHandle> migDeviceByIndex(DeviceHandle device, int index) {
    PointerByReference p = new PointerByReference();
    int rc = lib.nvmlDeviceGetMigDeviceHandleByIndex(ptr(device.address()), index, p);
    if (rc == NvmlReturn.NOT_FOUND.code() || rc == NvmlReturn.INVALID_ARGUMENT.code()) {
      return Optional.empty();
    }
    check("nvmlDeviceGetMigDeviceHandleByIndex", rc);
    return Optional.of(new DeviceHandle(Pointer.nativeValue(p.getValue())));
  }

  @Override
  public int gpuInstanceId(DeviceHandle migDevice) {
    IntByReference v = new IntByReference();
    check(
        "nvmlDeviceGetGpuInstanceId", lib.nvmlDeviceGetGpuInstanceId(ptr(migDevice.address()), v));
    return v.getValue();
  }

  @Override
  public int computeInstanceId(DeviceHandle migDevice) {
    IntByReference v = new IntByReference();
    check(
        "nvmlDeviceGetComputeInstanceId",
        lib.nvmlDeviceGetComputeInstanceId(ptr(migDevice.address()), v));
    return v.getValue();
  }

  @Override
  public Optional<GpuInstanceProfile> gpuInstanceProfile(DeviceHandle device, int profileIndex) {
    NvmlLibrary.GpuInstanceProfileV2 info = new NvmlLibrary.GpuInstanceProfileV2();
    int rc = lib.nvmlDeviceGetGpuInstanceProfileInfoV(ptr(device.address()), profileIndex, info);
    if (rc == NvmlReturn.NOT_SUPPORTED.code() || rc == NvmlReturn.INVALID_ARGUMENT.code()) {
      return Optional.empty();
    }
    check("nvmlDeviceGetGpuInstanceProfileInfoV", rc);
    return Optional.of(
        new GpuInstanceProfile(
            profileIndex,
            info.id,
            info.sliceCount,
            info.instanceCount,
            info.multiprocessorCount,
            info.copyEngineCount,
            info.decoderCount,
            info.encoderCount,
            info.jpegCount,
            info.ofaCount,
            info.memorySizeMB,
            text(info.name)));
  }

  @Override
  public List<Placement> gpuInstancePossiblePlacements(DeviceHandle device, int profileId) {
    String fn = "nvmlDeviceGetGpuInstancePossiblePlacements_v2";
    IntByReference count = new IntByReference(0);
    check(
        fn,
        lib.nvmlDeviceGetGpuInstancePossiblePlacements_v2(
            ptr(device.address()), profileId, null, count));
    int n = count.getValue();
    if (n == 0) {
      return List.of();
    }
    int[] pairs = new int[2 * n];
    check(
        fn,
        lib.nvmlDeviceGetGpuInstancePossiblePlacements_v2(
            ptr(device.address()), profileId, pairs, count));
    List<Placement> out = new ArrayList<>();
    for (int i = 0; i < count.getValue() && i < n; i++) {
      out.add(new Placement(pairs[2 * i], pairs[2 * i + 1]));
    }
    return List.copyOf(out);
  }

  @Override
  public GpuInstanceHandle gpuInstanceById(DeviceHandle device, int id) {
    PointerByReference p = new PointerByReference();
    check(
        "nvmlDeviceGetGpuInstanceById",
        lib.nvmlDeviceGetGpuInstanceById(ptr(device.address()), id, p));
    return new GpuInstanceHandle(Pointer.nativeValue(p.getValue()));
  }

  @Override
  public GpuInstanceInfo gpuInstanceInfo(GpuInstanceHandle gpuInstance) {
    NvmlLibrary.GpuInstanceInfo info = new NvmlLibrary.GpuInstanceInfo();
    check("nvmlGpuInstanceGetInfo", lib.nvmlGpuInstanceGetInfo(ptr(gpuInstance.address()), info));
    return new GpuInstanceInfo(
        info.id, info.profileId, new Placement(info.placementStart, info.placementSize));
  }

  @Override
  public GpuInstanceHandle createGpuInstance(
      DeviceHandle device, int profileId, Placement placement) {
    NvmlLibrary.PlacementStruct p = new NvmlLibrary.PlacementStruct();
    p.start = placement.start();
    p.size = placement.size();
    PointerByReference gi = new PointerByReference();
    check(
        "nvmlDeviceCreateGpuInstanceWithPlacement",
        lib.nvmlDeviceCreateGpuInstanceWithPlacement(ptr(device.address()), profileId, p, gi));
    return new GpuInstanceHandle(Pointer.nativeValue(gi.getValue()));
  }

  @Override
  public void destroyGpuInstance(GpuInstanceHandle gpuInstance) {
    check("nvmlGpuInstanceDestroy", lib.nvmlGpuInstanceDestroy(ptr(gpuInstance.address())));
  }

  @Override
  public Optional<ComputeInstanceProfile> computeInstanceProfile(
      GpuInstanceHandle gpuInstance, int profileIndex) {
    NvmlLibrary.ComputeInstanceProfileInfo info = new NvmlLibrary.ComputeInstanceProfileInfo();
    // Engine profile 0 is NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED.
    int rc =
        lib.nvmlGpuInstanceGetComputeInstanceProfileInfo(
            ptr(gpuInstance.address()), profileIndex, 0, info);
    if (rc == NvmlReturn.NOT_SUPPORTED.code() || rc == NvmlReturn.INVALID_ARGUMENT.code()) {
      return Optional.empty();
    }
    check("nvmlGpuInstanceGetComputeInstanceProfileInfo", rc);
    return Optional.of(
        new ComputeInstanceProfile(
            profileIndex, info.id, info.sliceCount, info.multiprocessorCount));
  }

  @Override
  public ComputeInstanceHandle createComputeInstance(GpuInstanceHandle gpuInstance, int profileId) {
    PointerByReference ci = new PointerByReference();
    check(
        "nvmlGpuInstanceCreateComputeInstance",
        lib.nvmlGpuInstanceCreateComputeInstance(ptr(gpuInstance.address()), profileId, ci));
    return new ComputeInstanceHandle(Pointer.nativeValue(ci.getValue()));
  }

  @Override
  public ComputeInstanceHandle computeInstanceById(GpuInstanceHandle gpuInstance, int id) {
    PointerByReference ci = new PointerByReference();
    check(
        "nvmlGpuInstanceGetComputeInstanceById",
        lib.nvmlGpuInstanceGetComputeInstanceById(ptr(gpuInstance.address()), id, ci));
    return new ComputeInstanceHandle(Pointer.nativeValue(ci.getValue()));
  }

  @Override
  public ComputeInstanceInfo computeInstanceInfo(ComputeInstanceHandle computeInstance) {
    NvmlLibrary.ComputeInstanceInfo info = new NvmlLibrary.ComputeInstanceInfo();
    check(
        "nvmlComputeInstanceGetInfo_v2",
        lib.nvmlComputeInstanceGetInfo_v2(ptr(computeInstance.address()), info));
    return new ComputeInstanceInfo(
        info.id, info.profileId, new Placement(info.placementStart, info.placementSize));
  }

  @Override
  public void destroyComputeInstance(ComputeInstanceHandle computeInstance) {
    check(
        "nvmlComputeInstanceDestroy",
        lib.nvmlComputeInstanceDestroy(ptr(computeInstance.address())));
  }

  @Override
  public EventSetHandle createEventSet() {
    PointerByReference set = new PointerByReference();
    check("nvmlEventSetCreate", lib.nvmlEventSetCreate(set));
    return new EventSetHandle(Pointer.nativeValue(set.getValue()));
  }

  @Override
  public long supportedEventTypes(DeviceHandle device) {
    LongByReference types = new LongByReference();
    check(
        "nvmlDeviceGetSupportedEventTypes",
        lib.nvmlDeviceGetSupportedEventTypes(ptr(device.address()), types));
    return types.getValue();
  }

  @Override
  public void registerEvents(DeviceHandle device, long eventTypes, EventSetHandle set) {
    check(
        "nvmlDeviceRegisterEvents",
        lib.nvmlDeviceRegisterEvents(ptr(device.address()), eventTypes, ptr(set.address())));
  }

  @Override
  public Optional<Event> waitForEvent(EventSetHandle set, int timeoutMillis) {
    NvmlLibrary.EventData data = new NvmlLibrary.EventData();
    int rc = lib.nvmlEventSetWait_v2(ptr(set.address()), data, timeoutMillis);
    if (rc == NvmlReturn.TIMEOUT.code()) {
      return Optional.empty();
    }
    check("nvmlEventSetWait_v2", rc);
    return Optional.of(
        new Event(
            new DeviceHandle(Pointer.nativeValue(data.device)),
            data.eventType,
            data.eventData,
            data.gpuInstanceId,
            data.computeInstanceId));
  }

  @Override
  public void freeEventSet(EventSetHandle set) {
    check("nvmlEventSetFree", lib.nvmlEventSetFree(ptr(set.address())));
  }

  @Override
  public String toString() {
    return "NVML at " + location;
  }
}
