package io.dra4j.nvidia;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.nvidia.GpuDiscovery.GpuInfo;
import io.dra4j.nvidia.GpuDiscovery.MigDeviceInfo;
import io.dra4j.nvidia.GpuDiscovery.MigProfileInfo;
import io.dra4j.nvidia.GpuDiscovery.SystemInfo;
import io.dra4j.nvidia.nvml.Nvml.GpuInstanceProfile;
import io.dra4j.nvidia.nvml.Nvml.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what NVML found into published devices: pure, no I/O, so the naming and the API limits are
 * checked in one place.
 *
 * <p>Limits applied: at most 32 attributes plus capacities per device (a GPU uses 10, a MIG device
 * at most 26); string values cut to 64 bytes; version values strict semver; in partitionable mode
 * one counter set per GPU with at most 32 counters (7 engine and memory counters plus one per
 * memory slice; a GPU with more than 25 memory slices falls back to the static form) and one
 * counter consumption per device.
 */
final class InventoryLayout {
  private static final Logger LOG = LoggerFactory.getLogger(InventoryLayout.class);

  static final String TYPE = "type";
  static final String UUID = "uuid";
  static final String PARENT_UUID = "parentUUID";
  static final String PROFILE = "profile";
  static final String PRODUCT_NAME = "productName";
  static final String BRAND = "brand";
  static final String ARCHITECTURE = "architecture";
  static final String CUDA_COMPUTE_CAPABILITY = "cudaComputeCapability";
  static final String DRIVER_VERSION = "driverVersion";
  static final String CUDA_DRIVER_VERSION = "cudaDriverVersion";
  static final String MEMORY = "memory";

  static final int MAX_ATTRIBUTES_AND_CAPACITIES = 32;
  static final int MAX_COUNTERS_PER_SET = 32;

  /** Engine capacities of a MIG device: capacity name, counter name. */
  private static final String[][] ENGINES = {
    {"multiprocessors", "multiprocessors"},
    {"copyEngines", "copy-engines"},
    {"decoders", "decoders"},
    {"encoders", "encoders"},
    {"jpegEngines", "jpeg-engines"},
    {"ofaEngines", "ofa-engines"}
  };

  /** The result: devices in a stable order, counter sets, and what each name stands for. */
  record Layout(
      List<Device> devices, List<CounterSet> counterSets, Map<String, PublishedDevice> index) {
    Layout {
      devices = List.copyOf(devices);
      counterSets = List.copyOf(counterSets);
      // Publishing order, so health reports list devices the way the slices do.
      index = Collections.unmodifiableMap(new LinkedHashMap<>(index));
    }
  }

  private final SystemInfo system;
  private final NvidiaSettings.MigMode migMode;
  private final List<Device> devices = new ArrayList<>();
  private final List<CounterSet> counterSets = new ArrayList<>();
  private final Map<String, PublishedDevice> index = new LinkedHashMap<>();

  private InventoryLayout(SystemInfo system, NvidiaSettings.MigMode migMode) {
    this.system = system;
    this.migMode = migMode;
  }

  static Layout build(SystemInfo system, List<GpuInfo> gpus, NvidiaSettings.MigMode migMode) {
    InventoryLayout l = new InventoryLayout(system, migMode);
    gpus.stream().sorted((a, b) -> Integer.compare(a.minor(), b.minor())).forEach(l::addGpu);
    return new Layout(l.devices, l.counterSets, l.index);
  }

  static String gpuName(int minor) {
    return "gpu-" + minor;
  }

  /**
   * The canonical MIG device name of the NVIDIA driver: {@code gpu-<minor>-mig-<profile without
   * dots>-<GPU instance profile id>-<placement start>}, e.g. {@code gpu-0-mig-1g10gb-19-3}.
   * Characters a DNS label cannot hold ({@code +} in {@code 1g.10gb+me}) become {@code -}.
   */
  static String migName(int minor, String profile, int profileId, int placementStart) {
    String p = profile.toLowerCase(Locale.ROOT).replace(".", "").replaceAll("[^a-z0-9-]", "-");
    return "gpu-" + minor + "-mig-" + p + "-" + profileId + "-" + placementStart;
  }

  static String counterSetName(int minor) {
    return "gpu-" + minor + "-counter-set";
  }

  private void addGpu(GpuInfo gpu) {
    if (migMode == NvidiaSettings.MigMode.PARTITIONABLE && !gpu.migProfiles().isEmpty()) {
      if (addPartitionable(gpu)) {
        return;
      }
    }
    if (gpu.migEnabled() && migMode == NvidiaSettings.MigMode.STATIC) {
      // A GPU in MIG mode runs no CUDA work outside its MIG devices: publish only those.
      if (gpu.migDevices().isEmpty()) {
        LOG.info(
            "gpu-{} ({}) has MIG enabled but no MIG devices: nothing to publish for it",
            gpu.minor(),
            gpu.uuid());
      }
      for (MigDeviceInfo mig : gpu.migDevices()) {
        addStaticMig(gpu, mig);
      }
      return;
    }
    Device d = wholeGpu(gpu).build();
    add(d, new PublishedDevice.WholeGpu(d.name(), gpu.minor(), gpu.uuid(), gpu.handle(), false));
  }

  private Device.Builder wholeGpu(GpuInfo gpu) {
    Device.Builder b = Device.builder(gpuName(gpu.minor()));
    b.attribute(TYPE, "gpu");
    string(b, UUID, gpu.uuid());
    common(b, gpu);
    gpu.memoryBytes().ifPresent(m -> b.capacity(MEMORY, Quantity.ofBytes(m)));
    return b;
  }

  /** Attributes a MIG device shares with its GPU. */
  private void common(Device.Builder b, GpuInfo gpu) {
    string(b, PRODUCT_NAME, gpu.productName());
    gpu.brand().ifPresent(v -> string(b, BRAND, v));
    gpu.architecture().ifPresent(v -> string(b, ARCHITECTURE, v));
    gpu.cudaComputeCapability()
        .ifPresent(v -> b.attribute(CUDA_COMPUTE_CAPABILITY, DeviceAttribute.version(v)));
    system.driverVersion().ifPresent(v -> b.attribute(DRIVER_VERSION, DeviceAttribute.version(v)));
    system
        .cudaDriverVersion()
        .ifPresent(v -> b.attribute(CUDA_DRIVER_VERSION, DeviceAttribute.version(v)));
    gpu.pciBusId().ifPresent(v -> string(b, StandardAttributes.PCI_BUS_ID, v));
  }

  private Device.Builder mig(GpuInfo gpu, String name, String profile) {
    Device.Builder b = Device.builder(name);
    b.attribute(TYPE, "mig");
    string(b, PARENT_UUID, gpu.uuid());
    string(b, PROFILE, profile);
    common(b, gpu);
    return b;
  }

  private static void engines(Device.Builder b, int multiprocessors, GpuInstanceProfile p) {
    int[] values = {
      multiprocessors, p.copyEngines(), p.decoders(), p.encoders(), p.jpegEngines(), p.ofaEngines()
    };
    for (int i = 0; i < ENGINES.length; i++) {
      b.capacity(ENGINES[i][0], Quantity.of(values[i]));
    }
    b.capacity(MEMORY, Quantity.ofBytes(p.memoryMiB() << 20));
  }

  private void addStaticMig(GpuInfo gpu, MigDeviceInfo mig) {
    String name =
        migName(
            gpu.minor(),
            mig.profile(),
            mig.gpuInstanceProfile().id(),
            mig.gpuInstancePlacement().start());
    if (mig.partialComputeInstance()) {
      // Several compute instances share the GPU instance: the canonical name alone would repeat.
      name += "-c" + mig.computePlacement().start();
    }
    Device.Builder b = mig(gpu, name, mig.profile());
    string(b, UUID, mig.uuid());
    engines(b, mig.multiprocessors(), mig.gpuInstanceProfile());
    Device withoutSlices = b.build();
    Placement pl = mig.gpuInstancePlacement();
    for (int s = pl.start(); s < pl.start() + pl.size(); s++) {
      b.capacity("memorySlice" + s, Quantity.of(1));
    }
    Device d = b.build();
    if (count(d) > MAX_ATTRIBUTES_AND_CAPACITIES) {
      LOG.warn("{}: too many memory slices to list as capacities; left out", name);
      d = withoutSlices;
    }
    add(
        d,
        new PublishedDevice.StaticMig(
            d.name(),
            gpu.minor(),
            gpu.uuid(),
            gpu.handle(),
            mig.uuid(),
            mig.gpuInstanceId(),
            mig.computeInstanceId()));
  }

  /** Counter totals of one GPU: the largest value any profile needs, like the NVIDIA driver. */
  private static Map<String, Long> counterTotals(GpuInfo gpu) {
    Map<String, Long> totals = new LinkedHashMap<>();
    long slices = 0;
    for (MigProfileInfo info : gpu.migProfiles()) {
      GpuInstanceProfile p = info.profile();
      long[] values = {
        p.multiprocessors(),
        p.copyEngines(),
        p.decoders(),
        p.encoders(),
        p.jpegEngines(),
        p.ofaEngines()
      };
      for (int i = 0; i < ENGINES.length; i++) {
        totals.merge(ENGINES[i][1], values[i], Math::max);
      }
      totals.merge(MEMORY, p.memoryMiB() << 20, Math::max);
      for (Placement pl : info.placements()) {
        slices = Math.max(slices, (long) pl.start() + pl.size());
      }
    }
    // A counter nobody can consume is noise; leave it out.
    totals.values().removeIf(v -> v == 0);
    for (long s = 0; s < slices; s++) {
      totals.put(memorySliceCounter(s), 1L);
    }
    return totals;
  }

  private static String memorySliceCounter(long slice) {
    return "memory-slice-" + slice;
  }

  private static Counter counterValue(String counter, long value) {
    return Counter.of(counter.equals(MEMORY) ? Quantity.ofBytes(value) : Quantity.of(value));
  }

  private boolean addPartitionable(GpuInfo gpu) {
    Map<String, Long> totals = counterTotals(gpu);
    if (totals.size() > MAX_COUNTERS_PER_SET) {
      LOG.warn(
          "gpu-{}: {} counters exceed the limit of {} per counter set; publishing it without"
              + " partitions",
          gpu.minor(),
          totals.size(),
          MAX_COUNTERS_PER_SET);
      return false;
    }
    String setName = counterSetName(gpu.minor());
    Map<String, Counter> all = new TreeMap<>();
    totals.forEach((k, v) -> all.put(k, counterValue(k, v)));
    counterSets.add(CounterSet.of(setName, all));

    Device whole =
        wholeGpu(gpu).consumesCounters(DeviceCounterConsumption.of(setName, all)).build();
    add(
        whole,
        new PublishedDevice.WholeGpu(whole.name(), gpu.minor(), gpu.uuid(), gpu.handle(), true));

    for (MigProfileInfo info : gpu.migProfiles()) {
      GpuInstanceProfile p = info.profile();
      for (Placement pl : info.placements()) {
        String name = migName(gpu.minor(), info.name(), p.id(), pl.start());
        Device.Builder b = mig(gpu, name, info.name());
        engines(b, p.multiprocessors(), p);
        Map<String, Counter> used = new TreeMap<>();
        long[] values = {
          p.multiprocessors(),
          p.copyEngines(),
          p.decoders(),
          p.encoders(),
          p.jpegEngines(),
          p.ofaEngines()
        };
        for (int i = 0; i < ENGINES.length; i++) {
          if (values[i] > 0 && totals.containsKey(ENGINES[i][1])) {
            used.put(ENGINES[i][1], counterValue(ENGINES[i][1], values[i]));
          }
        }
        used.put(MEMORY, counterValue(MEMORY, p.memoryMiB() << 20));
        for (long s = pl.start(); s < (long) pl.start() + pl.size(); s++) {
          used.put(memorySliceCounter(s), Counter.of(Quantity.of(1)));
        }
        b.consumesCounters(DeviceCounterConsumption.of(setName, used));
        Device d = b.build();
        add(d, new PublishedDevice.MigSlot(d.name(), gpu.minor(), gpu.uuid(), gpu.handle(), p, pl));
      }
    }
    return true;
  }

  private static int count(Device d) {
    return d.attributes().size() + d.capacity().size();
  }

  private void add(Device d, PublishedDevice what) {
    if (count(d) > MAX_ATTRIBUTES_AND_CAPACITIES) {
      throw new IllegalStateException(
          "device " + d.name() + " has " + count(d) + " attributes and capacities, over 32");
    }
    if (index.putIfAbsent(d.name(), what) != null) {
      LOG.warn("device name {} appears twice; keeping the first", d.name());
      return;
    }
    devices.add(d);
  }

  /** A string attribute cut to the API's 64 bytes (at a character boundary). */
  static void string(Device.Builder b, String key, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= Versions.MAX_VALUE_BYTES) {
      b.attribute(key, value);
      return;
    }
    StringBuilder cut = new StringBuilder();
    int used = 0;
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      int len = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (used + len > Versions.MAX_VALUE_BYTES) {
        break;
      }
      cut.appendCodePoint(cp);
      used += len;
      i += Character.charCount(cp);
    }
    LOG.warn("attribute {}=\"{}\" is longer than 64 bytes; published as \"{}\"", key, value, cut);
    b.attribute(key, cut.toString());
  }
}
