package io.dra4j.nvidia;

import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthSink;
import io.dra4j.nvidia.nvml.Nvml;
import io.dra4j.nvidia.nvml.Nvml.DeviceHandle;
import io.dra4j.nvidia.nvml.Nvml.EventSetHandle;
import io.dra4j.nvidia.nvml.NvmlException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches NVML for critical XID errors and double-bit ECC errors on a daemon thread and reports the
 * affected devices unhealthy. XIDs on the ignore list (application faults, not hardware) are only
 * logged. An error attributed to a MIG GPU instance marks only the MIG devices of that instance;
 * otherwise every device of the GPU. {@code GPU_IS_LOST} marks every device with reason {@code
 * GPULost} and ends the NVML watch. No automatic recovery: these errors need a GPU reset, after
 * which the driver restarts and reports healthy again.
 *
 * <p>The thread that waits for NVML events also re-reports every device's current health every
 * {@link #REREPORT} (the kubelet trusts a report for 30 s and the runtime does not repeat it), so a
 * hung NVML call lets the devices decay to unknown at the kubelet instead of being vouched for.
 * After a lost GPU, the final state is re-reported until close: it holds until a reset.
 */
final class XidMonitor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(XidMonitor.class);

  static final long MONITORED = Nvml.EVENT_XID_CRITICAL | Nvml.EVENT_DOUBLE_BIT_ECC;

  /** A third of the kubelet's default health check timeout, the Go helper's advice. */
  static final Duration REREPORT = DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT.dividedBy(3);

  /** Which devices an event concerns. */
  interface Targets {
    /** Devices of the GPU, narrowed to a MIG instance when the ids are not {@code NO_INSTANCE}. */
    List<String> devices(DeviceHandle gpu, int gpuInstanceId, int computeInstanceId);

    /** Every published device. */
    List<String> all();

    /** A name for the GPU in messages, e.g. {@code gpu-0 (GPU-...)}. */
    String describe(DeviceHandle gpu);
  }

  private final Nvml nvml;
  private final HealthSink sink;
  private final String pool;
  private final Set<Long> ignoredXids;
  private final int waitMillis;
  private final Targets targets;
  private final EventSetHandle set;
  private final Thread thread;
  private volatile boolean running = true;

  /** Devices reported unhealthy, by name; every other device of {@link Targets#all} is healthy. */
  private final Map<String, DeviceHealth> unhealthy = new ConcurrentHashMap<>();

  private long lastFullReport; // nanoTime, loop thread only

  private XidMonitor(
      Nvml nvml,
      HealthSink sink,
      String pool,
      Set<Long> ignoredXids,
      int waitMillis,
      Targets targets,
      EventSetHandle set) {
    this.nvml = nvml;
    this.sink = sink;
    this.pool = pool;
    this.ignoredXids = Set.copyOf(ignoredXids);
    // One wait must end in time for the next re-report.
    this.waitMillis = (int) Math.min(waitMillis, REREPORT.toMillis());
    this.targets = targets;
    this.set = set;
    this.thread = new Thread(this::loop, "nvidia-xid-monitor");
    this.thread.setDaemon(true);
  }

  /**
   * Registers every GPU for the monitored events and starts the thread.
   *
   * @param gpus the GPUs to watch, with a label each for logs
   */
  static XidMonitor start(
      Nvml nvml,
      HealthSink sink,
      String pool,
      Set<Long> ignoredXids,
      int waitMillis,
      Map<DeviceHandle, String> gpus,
      Targets targets) {
    EventSetHandle set = nvml.createEventSet();
    try {
      for (Map.Entry<DeviceHandle, String> gpu : gpus.entrySet()) {
        long supported = nvml.supportedEventTypes(gpu.getKey());
        long types = supported & MONITORED;
        if ((types & Nvml.EVENT_XID_CRITICAL) == 0) {
          LOG.warn(
              "{}: NVML cannot report XID errors for it; its health is not monitored",
              gpu.getValue());
        }
        if (types != 0) {
          nvml.registerEvents(gpu.getKey(), types, set);
        }
      }
    } catch (RuntimeException e) {
      nvml.freeEventSet(set);
      throw e;
    }
    XidMonitor m = new XidMonitor(nvml, sink, pool, ignoredXids, waitMillis, targets, set);
    m.reportAll();
    m.thread.start();
    return m;
  }

  /** Reports every device: the unhealthy ones as marked, the others healthy. */
  private void reportAll() {
    lastFullReport = System.nanoTime();
    List<DeviceHealth> all =
        targets.all().stream()
            .map(d -> unhealthy.getOrDefault(d, DeviceHealth.healthy(pool, d)))
            .toList();
    if (!all.isEmpty()) {
      sink.report(all);
    }
  }

  private void reReportWhenDue() {
    if (System.nanoTime() - lastFullReport >= REREPORT.toNanos()) {
      reportAll();
    }
  }

  private void loop() {
    while (running) {
      reReportWhenDue();
      Optional<Nvml.Event> event;
      try {
        event = nvml.waitForEvent(set, waitMillis);
      } catch (NvmlException e) {
        if (!running) {
          return;
        }
        if (e.gpuLost()) {
          gpuLost(e);
          holdFinalState();
          return;
        }
        LOG.error("health monitoring stopped: {}", e.getMessage());
        return;
      } catch (RuntimeException e) {
        LOG.error("health monitoring stopped", e);
        return;
      }
      event.ifPresent(this::handle);
    }
  }

  private void handle(Nvml.Event e) {
    String gpu = targets.describe(e.device());
    String reason;
    String message;
    if (e.type() == Nvml.EVENT_XID_CRITICAL) {
      if (ignoredXids.contains(e.data())) {
        LOG.info("{}: XID {} ignored (on the ignore list)", gpu, e.data());
        return;
      }
      reason = "XID" + e.data();
      message = "critical XID " + e.data() + " on " + gpu;
    } else if (e.type() == Nvml.EVENT_DOUBLE_BIT_ECC) {
      reason = "DoubleBitECC";
      message = "uncorrectable double-bit ECC error on " + gpu;
    } else {
      LOG.debug("{}: NVML event type {} ignored", gpu, e.type());
      return;
    }
    if (e.gpuInstanceId() != Nvml.NO_INSTANCE) {
      message += " (MIG GPU instance " + e.gpuInstanceId() + ")";
    }
    List<String> devices = targets.devices(e.device(), e.gpuInstanceId(), e.computeInstanceId());
    LOG.warn("{}; marking {} unhealthy", message, devices);
    String m = message;
    mark(devices.stream().map(d -> DeviceHealth.unhealthy(pool, d, reason, m)).toList());
  }

  private void gpuLost(NvmlException e) {
    List<String> all = targets.all();
    LOG.error("a GPU is lost ({}); marking every device unhealthy: {}", e.getMessage(), all);
    lost(all, e.getMessage());
  }

  /** Marks {@code devices} lost, here and in every later re-report. */
  void lost(List<String> devices, String detail) {
    mark(lostReports(pool, devices, detail));
  }

  private void mark(List<DeviceHealth> reports) {
    for (DeviceHealth h : reports) {
      unhealthy.put(h.device(), h);
    }
    sink.report(reports);
  }

  /** The NVML watch ended with a lost GPU: keep re-reporting that until close. */
  private void holdFinalState() {
    while (running) {
      try {
        Thread.sleep(waitMillis);
      } catch (InterruptedException e) {
        return;
      }
      reReportWhenDue();
    }
  }

  static List<DeviceHealth> lostReports(String pool, List<String> devices, String detail) {
    return devices.stream()
        .map(d -> DeviceHealth.unhealthy(pool, d, "GPULost", "NVML reports a GPU lost: " + detail))
        .toList();
  }

  /** Stops the thread (within one wait period) and frees the event set. */
  @Override
  public void close() {
    running = false;
    try {
      thread.join(2L * waitMillis + 1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn(
          "health thread did not stop within {} ms; leaving the event set allocated",
          2L * waitMillis + 1000);
      return;
    }
    try {
      nvml.freeEventSet(set);
    } catch (NvmlException e) {
      LOG.warn("freeing the NVML event set: {}", e.getMessage());
    }
  }

  boolean alive() {
    return thread.isAlive();
  }
}
