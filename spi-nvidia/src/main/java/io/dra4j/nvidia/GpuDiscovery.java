package io.dra4j.nvidia;

import io.dra4j.api.device.PciBusId;
import io.dra4j.nvidia.nvml.Nvml;
import io.dra4j.nvidia.nvml.Nvml.ComputeInstanceProfile;
import io.dra4j.nvidia.nvml.Nvml.DeviceHandle;
import io.dra4j.nvidia.nvml.Nvml.GpuInstanceHandle;
import io.dra4j.nvidia.nvml.Nvml.GpuInstanceProfile;
import io.dra4j.nvidia.nvml.Nvml.Placement;
import io.dra4j.nvidia.nvml.NvmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what NVML knows about the GPUs: the I/O half of discovery. One GPU or MIG device that fails
 * is logged and left out; it never fails the others.
 */
final class GpuDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(GpuDiscovery.class);

  /** Profile indexes probed; NVML answers INVALID_ARGUMENT past the ones it knows. */
  static final int GPU_INSTANCE_PROFILE_LIMIT = 32;

  static final int COMPUTE_INSTANCE_PROFILE_LIMIT = 16;

  private static final String[] BRANDS = {
    "Unknown",
    "Quadro",
    "Tesla",
    "NVS",
    "Grid",
    "GeForce",
    "Titan",
    "NvidiaVApps",
    "NvidiaVPC",
    "NvidiaVCS",
    "NvidiaVWS",
    "NvidiaCloudGaming",
    "QuadroRTX",
    "NvidiaRTX",
    "Nvidia",
    "GeForceRTX",
    "TitanRTX"
  };

  private static final String[] ARCHITECTURES = {
    "Unknown",
    "Unknown",
    "Kepler",
    "Maxwell",
    "Pascal",
    "Volta",
    "Turing",
    "Ampere",
    "Ada",
    "Hopper",
    "Blackwell"
  };

  /** Driver-wide facts. */
  record SystemInfo(
      String rawDriverVersion,
      Optional<String> driverVersion,
      Optional<String> cudaDriverVersion) {}

  /** A MIG device that exists now (static MIG). */
  record MigDeviceInfo(
      DeviceHandle handle,
      String uuid,
      int gpuInstanceId,
      int computeInstanceId,
      GpuInstanceProfile gpuInstanceProfile,
      Placement gpuInstancePlacement,
      int computeSlices,
      int multiprocessors,
      Placement computePlacement,
      String profile) {

    /** Whether the compute instance uses only part of its GPU instance. */
    boolean partialComputeInstance() {
      return computeSlices < gpuInstanceProfile.sliceCount();
    }
  }

  /** A GPU instance profile and where it can be placed (partitionable MIG). */
  record MigProfileInfo(GpuInstanceProfile profile, String name, List<Placement> placements) {
    MigProfileInfo {
      placements = List.copyOf(placements);
    }
  }

  /** One physical GPU. */
  record GpuInfo(
      int index,
      DeviceHandle handle,
      int minor,
      String uuid,
      String productName,
      Optional<String> brand,
      Optional<String> architecture,
      Optional<String> cudaComputeCapability,
      Optional<String> pciBusId,
      Optional<Long> memoryBytes,
      Optional<Nvml.MigMode> migMode,
      List<MigDeviceInfo> migDevices,
      List<MigProfileInfo> migProfiles) {
    GpuInfo {
      migDevices = List.copyOf(migDevices);
      migProfiles = List.copyOf(migProfiles);
    }

    boolean migEnabled() {
      return migMode.map(Nvml.MigMode::current).orElse(false);
    }
  }

  /** What one discovery found, plus what went wrong on the way. */
  record Result(SystemInfo system, List<GpuInfo> gpus, List<String> problems, boolean gpuLost) {
    Result {
      gpus = List.copyOf(gpus);
      problems = List.copyOf(problems);
    }
  }

  private final Nvml nvml;
  private final NvidiaSettings.MigMode migMode;
  private final List<String> problems = new ArrayList<>();
  private boolean gpuLost;

  GpuDiscovery(Nvml nvml, NvidiaSettings.MigMode migMode) {
    this.nvml = nvml;
    this.migMode = migMode;
  }

  /**
   * Walks all GPUs.
   *
   * @throws NvmlException only when the GPUs cannot be counted at all
   */
  Result discover() {
    String raw = nvml.systemDriverVersion();
    Optional<String> driverVersion = Optional.empty();
    try {
      driverVersion = Optional.of(Versions.driverVersion(raw));
    } catch (IllegalArgumentException e) {
      problem("driverVersion attribute left out: " + e.getMessage());
    }
    Optional<String> cuda = Optional.empty();
    try {
      cuda = Optional.of(Versions.cudaVersion(nvml.systemCudaDriverVersion()));
    } catch (NvmlException | IllegalArgumentException e) {
      problem("cudaDriverVersion attribute left out: " + e.getMessage());
    }
    SystemInfo system = new SystemInfo(raw, driverVersion, cuda);

    List<GpuInfo> gpus = new ArrayList<>();
    int count = nvml.deviceCount();
    for (int i = 0; i < count; i++) {
      try {
        gpus.add(gpu(i));
      } catch (NvmlException e) {
        lost(e);
        problem("GPU at NVML index " + i + " left out: " + e.getMessage());
      }
    }
    return new Result(system, gpus, problems, gpuLost);
  }

  private void problem(String text) {
    LOG.warn(text);
    problems.add(text);
  }

  private void lost(NvmlException e) {
    if (e.gpuLost()) {
      gpuLost = true;
    }
  }

  private GpuInfo gpu(int index) {
    DeviceHandle h = nvml.deviceByIndex(index);
    int minor = nvml.minorNumber(h);
    String uuid = nvml.uuid(h);
    String name = nvml.name(h);
    String label = "gpu-" + minor + " (" + uuid + ")";
    Optional<String> brand = optional(label, "brand", () -> enumName(BRANDS, nvml.brand(h)));
    Optional<String> arch =
        optional(label, "architecture", () -> enumName(ARCHITECTURES, nvml.architecture(h)));
    Optional<String> cc =
        optional(
            label,
            "cudaComputeCapability",
            () -> {
              Nvml.ComputeCapability c = nvml.cudaComputeCapability(h);
              return Versions.computeCapability(c.major(), c.minor());
            });
    Optional<String> bus = optional(label, "pciBusID", () -> pciBusId(nvml.pciBusId(h)));
    Optional<Long> memory = optional(label, "memory", () -> nvml.memoryTotal(h)).flatMap(m -> m);
    if (memory.isEmpty()) {
      LOG.info("{}: no memory size from NVML; the device has no memory capacity", label);
    }
    Optional<Nvml.MigMode> mig = optional(label, "MIG mode", () -> nvml.migMode(h)).flatMap(m -> m);
    List<MigDeviceInfo> migDevices = List.of();
    List<MigProfileInfo> profiles = List.of();
    if (mig.isPresent()) {
      if (migMode == NvidiaSettings.MigMode.PARTITIONABLE) {
        profiles = migProfiles(h, label);
      } else if (mig.get().current()) {
        migDevices = migDevices(h, label);
      }
    }
    return new GpuInfo(
        index, h, minor, uuid, name, brand, arch, cc, bus, memory, mig, migDevices, profiles);
  }

  private interface Query<T> {
    T get();
  }

  /** An attribute that may be missing: a lost GPU still fails the whole GPU. */
  private <T> Optional<T> optional(String label, String what, Query<T> query) {
    try {
      return Optional.of(query.get());
    } catch (NvmlException e) {
      if (e.gpuLost()) {
        throw e;
      }
      problem(label + ": " + what + " attribute left out: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      problem(label + ": " + what + " attribute left out: " + e.getMessage());
    }
    return Optional.empty();
  }

  private static String enumName(String[] names, int value) {
    return value >= 0 && value < names.length ? names[value] : "Unknown";
  }

  /**
   * NVML's bus id ({@code 00000000:07:00.0}) in the standard attribute's form: lower-case, the
   * domain in four digits, as sysfs names the device ({@code 0000:07:00.0}).
   *
   * @throws IllegalArgumentException when it is no PCI address the standard form can express
   */
  static String pciBusId(String nvmlBusId) {
    return PciBusId.parse(nvmlBusId).value();
  }

  private List<GpuInstanceProfile> profiles(DeviceHandle h) {
    List<GpuInstanceProfile> out = new ArrayList<>();
    for (int i = 0; i < GPU_INSTANCE_PROFILE_LIMIT; i++) {
      nvml.gpuInstanceProfile(h, i).ifPresent(out::add);
    }
    return out;
  }

  private List<MigProfileInfo> migProfiles(DeviceHandle h, String label) {
    List<MigProfileInfo> out = new ArrayList<>();
    try {
      for (GpuInstanceProfile p : profiles(h)) {
        List<Placement> placements = nvml.gpuInstancePossiblePlacements(h, p.id());
        if (!placements.isEmpty()) {
          out.add(new MigProfileInfo(p, profileName(p), placements));
        }
      }
    } catch (NvmlException e) {
      lost(e);
      if (e.gpuLost()) {
        throw e;
      }
      problem(label + ": MIG profiles not readable, published as a whole GPU only: " + e);
      return List.of();
    }
    return out;
  }

  private List<MigDeviceInfo> migDevices(DeviceHandle gpu, String label) {
    List<MigDeviceInfo> out = new ArrayList<>();
    List<GpuInstanceProfile> profiles = profiles(gpu);
    int max = nvml.maxMigDeviceCount(gpu);
    for (int i = 0; i < max; i++) {
      try {
        Optional<DeviceHandle> mig = nvml.migDeviceByIndex(gpu, i);
        if (mig.isPresent()) {
          out.add(migDevice(gpu, mig.get(), profiles));
        }
      } catch (NvmlException e) {
        lost(e);
        if (e.gpuLost()) {
          throw e;
        }
        problem(label + ": MIG device at index " + i + " left out: " + e.getMessage());
      } catch (IllegalStateException e) {
        problem(label + ": MIG device at index " + i + " left out: " + e.getMessage());
      }
    }
    return out;
  }

  private MigDeviceInfo migDevice(
      DeviceHandle gpu, DeviceHandle mig, List<GpuInstanceProfile> profiles) {
    String uuid = nvml.uuid(mig);
    int giId = nvml.gpuInstanceId(mig);
    int ciId = nvml.computeInstanceId(mig);
    GpuInstanceHandle gi = nvml.gpuInstanceById(gpu, giId);
    Nvml.GpuInstanceInfo giInfo = nvml.gpuInstanceInfo(gi);
    GpuInstanceProfile giProfile =
        profiles.stream()
            .filter(p -> p.id() == giInfo.profileId())
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "GPU instance " + giId + " has unknown profile id " + giInfo.profileId()));
    Nvml.ComputeInstanceInfo ciInfo = nvml.computeInstanceInfo(nvml.computeInstanceById(gi, ciId));
    ComputeInstanceProfile ciProfile = null;
    for (int i = 0; i < COMPUTE_INSTANCE_PROFILE_LIMIT && ciProfile == null; i++) {
      Optional<ComputeInstanceProfile> p = nvml.computeInstanceProfile(gi, i);
      if (p.isPresent() && p.get().id() == ciInfo.profileId()) {
        ciProfile = p.get();
      }
    }
    if (ciProfile == null) {
      throw new IllegalStateException(
          "compute instance " + ciId + " has unknown profile id " + ciInfo.profileId());
    }
    String profile = profileName(giProfile);
    if (ciProfile.sliceCount() < giProfile.sliceCount()) {
      profile = ciProfile.sliceCount() + "c." + profile;
    }
    return new MigDeviceInfo(
        mig,
        uuid,
        giId,
        ciId,
        giProfile,
        giInfo.placement(),
        ciProfile.sliceCount(),
        ciProfile.multiprocessors(),
        ciInfo.placement(),
        profile);
  }

  /**
   * The profile as users know it, e.g. {@code 1g.10gb}: NVML's name without its {@code MIG }
   * prefix.
   */
  static String profileName(GpuInstanceProfile p) {
    String name = p.name().trim();
    if (name.startsWith("MIG ")) {
      name = name.substring(4).trim();
    }
    if (name.isEmpty()) {
      // Older drivers leave the name empty; build it the way nvidia-smi prints it.
      name = p.sliceCount() + "g." + (p.memoryMiB() + 1023) / 1024 + "gb";
    }
    return name;
  }
}
