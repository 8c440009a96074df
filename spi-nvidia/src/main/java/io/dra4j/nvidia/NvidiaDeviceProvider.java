package io.dra4j.nvidia;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.claim.RecordedDevice;
import io.dra4j.api.health.HealthReporting;
import io.dra4j.api.health.HealthSink;
import io.dra4j.api.provider.ConfigType;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.nvidia.InventoryLayout.Layout;
import io.dra4j.nvidia.PublishedDevice.MigSlot;
import io.dra4j.nvidia.PublishedDevice.StaticMig;
import io.dra4j.nvidia.PublishedDevice.WholeGpu;
import io.dra4j.nvidia.nvml.Nvml;
import io.dra4j.nvidia.nvml.Nvml.DeviceHandle;
import io.dra4j.nvidia.nvml.NvmlException;
import io.dra4j.nvidia.nvml.NvmlLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NVIDIA GPUs through NVML: whole GPUs, static or partitionable MIG devices, the CDI edits a CUDA
 * container needs, and health from XID and ECC events.
 *
 * <p>Registered for {@link java.util.ServiceLoader} under the name {@code nvidia}. Settings (keys
 * of {@link ProviderContext#config()}):
 *
 * <ul>
 *   <li>{@code driver-root} ({@code /}): where the driver's files are visible to this process, e.g.
 *       {@code /run/nvidia/driver} with a driver container;
 *   <li>{@code host-driver-root} (= driver-root): the same files in the host's view, for the host
 *       paths of mounts when this driver runs in a container that mounts the driver elsewhere;
 *   <li>{@code nvml-library}: an explicit {@code libnvidia-ml.so.1} instead of searching;
 *   <li>{@code proc-root} ({@code /proc}): the host's {@code /proc}, for MIG capability files;
 *   <li>{@code mig-mode} ({@code static}): {@code static} publishes existing MIG devices, {@code
 *       partitionable} publishes every MIG profile and placement with shared counters and creates
 *       MIG devices on prepare;
 *   <li>{@code cdi-hook-path}: host path of {@code nvidia-cdi-hook}; when set it creates the
 *       library symlinks and updates the linker cache;
 *   <li>{@code ignored-xids} ({@code 13,31,43,45,68,109}): XIDs that do not make a device unhealthy
 *       (the value replaces the default list);
 *   <li>{@code health-wait-ms} ({@code 5000}): one NVML event wait; bounds how long {@code close}
 *       takes.
 * </ul>
 *
 * <p>NVML is loaded lazily on the first {@link #discover} and stays initialised until {@link
 * #close}; a host without the driver gets an error naming every path tried, and the next discover
 * tries again.
 */
public final class NvidiaDeviceProvider implements DeviceProvider, HealthReporting, TypedConfig {
  private static final Logger LOG = LoggerFactory.getLogger(NvidiaDeviceProvider.class);

  static final String RECORD_GPU_INSTANCE = "gpuInstanceId";
  static final String RECORD_COMPUTE_INSTANCE = "computeInstanceId";

  private final Object lock = new Object();
  private ProviderContext context;
  private NvidiaSettings settings;
  private Nvml nvml;
  private volatile Layout layout = new Layout(List.of(), List.of(), Map.of());
  private volatile GpuDiscovery.Result lastResult;
  private volatile GpuContainerEdits edits;
  private volatile HealthSink healthSink;
  private XidMonitor monitor;

  /** MIG devices created by prepare (partitionable mode), by device name. */
  private final Map<String, MigSlots.Created> created = new ConcurrentHashMap<>();

  /** For {@link java.util.ServiceLoader}. */
  public NvidiaDeviceProvider() {}

  @Override
  public String name() {
    return "nvidia";
  }

  @Override
  public Inventory discover(ProviderContext context) throws Exception {
    Nvml n = session(context);
    GpuDiscovery.Result result;
    try {
      result = new GpuDiscovery(n, settings.migMode()).discover();
    } catch (NvmlException e) {
      if (e.gpuLost()) {
        gpuLost(e.getMessage());
      }
      throw e;
    }
    Layout next = InventoryLayout.build(result.system(), result.gpus(), settings.migMode());
    for (String name : layout.index().keySet()) {
      if (!next.index().containsKey(name)) {
        LOG.warn("device {} disappeared since the last discovery", name);
      }
    }
    layout = next;
    lastResult = result;
    if (result.gpuLost()) {
      gpuLost("during discovery: " + result.problems());
    }
    LOG.info(
        "discovered {} GPUs, published {} devices ({} counter sets), driver {}",
        result.gpus().size(),
        next.devices().size(),
        next.counterSets().size(),
        result.system().rawDriverVersion());
    return Inventory.of(
        Pool.builder(context.nodeName())
            .devices(next.devices())
            .counterSets(next.counterSets())
            .build());
  }

  /** What the last discovery could not read (left-out GPUs and attributes), for diagnostics. */
  public List<String> lastProblems() {
    GpuDiscovery.Result r = lastResult;
    return r == null ? List.of() : r.problems();
  }

  private Nvml session(ProviderContext ctx) {
    synchronized (lock) {
      if (context == null) {
        context = ctx;
        settings = NvidiaSettings.from(ctx);
      }
      if (nvml == null) {
        Nvml loaded = NvmlLoader.load(settings.driverRoot(), settings.nvmlLibrary());
        loaded.init();
        nvml = loaded;
        LOG.info("NVML initialised ({})", loaded);
      }
      return nvml;
    }
  }

  private Nvml nvml() throws DeviceException {
    synchronized (lock) {
      if (nvml == null) {
        throw new DeviceException("NVML is not initialised: discovery has not succeeded yet");
      }
      return nvml;
    }
  }

  private GpuContainerEdits edits() {
    GpuContainerEdits e = edits;
    if (e == null) {
      GpuDiscovery.Result r = lastResult;
      ContainerEdits files = DriverFiles.edits(settings, r.system().rawDriverVersion());
      e = new GpuContainerEdits(settings, files);
      edits = e;
    }
    return e;
  }

  @Override
  public PrepareResult prepare(ClaimAllocation allocation) throws DeviceException {
    Layout current = layout;
    List<PreparedDevice> out = new ArrayList<>();
    for (AllocatedDevice d : allocation.devices()) {
      GpuConfig config = d.config(GpuConfig.class).orElse(GpuConfig.exclusive());
      try {
        config.validate();
      } catch (IllegalArgumentException e) {
        throw new DeviceException(d.device() + ": " + e.getMessage(), e);
      }
      if (!d.pool().equals(context.nodeName())) {
        throw new DeviceException(
            d.device() + ": pool " + d.pool() + " is not this node's pool " + context.nodeName());
      }
      PublishedDevice what = current.index().get(d.device());
      if (what == null) {
        throw new DeviceException(
            d.device() + ": no such device in the last discovery of this driver");
      }
      try {
        out.add(prepare(d, what));
      } catch (NvmlException e) {
        if (e.gpuLost()) {
          gpuLost(e.getMessage());
        }
        throw new DeviceException(d.device() + ": " + e.getMessage(), e);
      } catch (IOException e) {
        throw new DeviceException(d.device() + ": " + e.getMessage(), e);
      } catch (UncheckedIOException e) {
        throw new DeviceException(d.device() + ": " + e.getMessage(), e.getCause());
      }
    }
    return PrepareResult.of(out);
  }

  private PreparedDevice prepare(AllocatedDevice d, PublishedDevice what)
      throws DeviceException, IOException {
    Optional<String> staticKind = settings.staticCdiKind();
    if (what instanceof WholeGpu g) {
      if (g.partitionable()) {
        new MigSlots(nvml()).prepareWholeGpu(g);
      }
      return staticKind.isPresent()
          ? PreparedDevice.builder(d).cdiDeviceId(staticKind.get() + "=" + g.gpuUuid()).build()
          : PreparedDevice.of(d, edits().gpu(g.gpuMinor()));
    }
    if (what instanceof StaticMig m) {
      return staticKind.isPresent()
          ? PreparedDevice.builder(d).cdiDeviceId(staticKind.get() + "=" + m.uuid()).build()
          : PreparedDevice.of(
              d, edits().mig(m.gpuMinor(), m.gpuInstanceId(), m.computeInstanceId()));
    }
    // A MIG device made now is in no spec generated before: it gets this provider's edits.
    MigSlot slot = (MigSlot) what;
    MigSlots.Created c = new MigSlots(nvml()).create(slot);
    created.put(slot.name(), c);
    return PreparedDevice.builder(d)
        .edits(edits().mig(slot.gpuMinor(), c.gpuInstanceId(), c.computeInstanceId()))
        .record(RECORD_GPU_INSTANCE, Integer.toString(c.gpuInstanceId()))
        .record(RECORD_COMPUTE_INSTANCE, Integer.toString(c.computeInstanceId()))
        .build();
  }

  @Override
  public void unprepare(PreparedClaim claim) throws DeviceException {
    Layout current = layout;
    for (RecordedDevice d : claim.devices()) {
      if (!(current.index().get(d.device()) instanceof MigSlot slot)) {
        continue; // whole GPUs and static MIG devices need no undoing
      }
      Optional<MigSlots.Created> recorded = recorded(d);
      try {
        new MigSlots(nvml()).destroy(slot, recorded);
        created.remove(slot.name());
      } catch (NvmlException e) {
        if (e.gpuLost()) {
          gpuLost(e.getMessage());
        }
        throw new DeviceException(
            d.device() + ": destroying the MIG device failed: " + e.getMessage(), e);
      }
    }
  }

  private static Optional<MigSlots.Created> recorded(RecordedDevice d) {
    String gi = d.recorded().get(RECORD_GPU_INSTANCE);
    String ci = d.recorded().get(RECORD_COMPUTE_INSTANCE);
    if (gi == null || ci == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(new MigSlots.Created(Integer.parseInt(gi), Integer.parseInt(ci)));
    } catch (NumberFormatException e) {
      LOG.warn("{}: recorded MIG ids {}/{} are not numbers; looking up by placement", d, gi, ci);
      return Optional.empty();
    }
  }

  @Override
  public void startHealthMonitoring(HealthSink sink) throws Exception {
    synchronized (lock) {
      if (monitor != null) {
        throw new IllegalStateException("health monitoring already started");
      }
      if (nvml == null) {
        throw new IllegalStateException("health monitoring needs a successful discover first");
      }
      healthSink = sink;
      Map<DeviceHandle, String> gpus = new LinkedHashMap<>();
      for (GpuDiscovery.GpuInfo g : lastResult.gpus()) {
        gpus.put(g.handle(), "gpu-" + g.minor() + " (" + g.uuid() + ")");
      }
      String pool = context.nodeName();
      // The monitor reports every device at once and again within the kubelet's timeout.
      monitor =
          XidMonitor.start(
              nvml,
              sink,
              pool,
              settings.ignoredXids(),
              settings.healthWaitMillis(),
              gpus,
              new Targets(gpus));
    }
  }

  /** Maps an NVML event to published device names, using the latest layout. */
  private final class Targets implements XidMonitor.Targets {
    private final Map<DeviceHandle, String> labels;

    Targets(Map<DeviceHandle, String> labels) {
      this.labels = labels;
    }

    @Override
    public List<String> devices(DeviceHandle gpu, int gpuInstanceId, int computeInstanceId) {
      List<String> ofGpu = new ArrayList<>();
      List<String> ofInstance = new ArrayList<>();
      for (PublishedDevice d : layout.index().values()) {
        if (!d.gpu().equals(gpu)) {
          continue;
        }
        ofGpu.add(d.name());
        if (gpuInstanceId == Nvml.NO_INSTANCE) {
          continue;
        }
        int gi = -1;
        int ci = -1;
        if (d instanceof StaticMig m) {
          gi = m.gpuInstanceId();
          ci = m.computeInstanceId();
        } else if (d instanceof MigSlot s && created.containsKey(s.name())) {
          gi = created.get(s.name()).gpuInstanceId();
          ci = created.get(s.name()).computeInstanceId();
        }
        if (gi == gpuInstanceId
            && (computeInstanceId == Nvml.NO_INSTANCE || ci == computeInstanceId)) {
          ofInstance.add(d.name());
        }
      }
      return ofInstance.isEmpty() ? ofGpu : ofInstance;
    }

    @Override
    public List<String> all() {
      return List.copyOf(layout.index().keySet());
    }

    @Override
    public String describe(DeviceHandle gpu) {
      return labels.getOrDefault(gpu, "GPU at handle " + Long.toHexString(gpu.address()));
    }
  }

  private void gpuLost(String detail) {
    HealthSink sink = healthSink;
    List<String> all = List.copyOf(layout.index().keySet());
    LOG.error("NVML reports a GPU lost ({}); devices {}", detail, all);
    XidMonitor m;
    synchronized (lock) {
      m = monitor;
    }
    if (m != null) {
      m.lost(all, detail);
    } else if (sink != null && !all.isEmpty()) {
      sink.report(XidMonitor.lostReports(context.nodeName(), all, detail));
    }
  }

  @Override
  public List<ConfigType<?>> configTypes() {
    return List.of(GpuConfig.TYPE);
  }

  @Override
  public void validate(Object config) {
    if (config instanceof GpuConfig g) {
      g.validate();
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (monitor != null) {
        monitor.close();
        monitor = null;
      }
      if (nvml != null) {
        try {
          nvml.shutdown();
        } catch (NvmlException e) {
          LOG.warn("NVML shutdown: {}", e.getMessage());
        }
        nvml = null;
      }
    }
  }
}
