package io.dra4j.testkit.kubelet;

import io.dra4j.api.device.Quantity;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.Node;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the kubelet's device manager ({@code pkg/kubelet/cm/devicemanager}, Kubernetes 1.37) writes
 * into its Node's {@code status.capacity} and {@code status.allocatable} for device plugins, so
 * fast tests see the phases a real node goes through when a device plugin goes:
 *
 * <ol>
 *   <li>{@link #register}: a plugin registers and lists its devices, all healthy: capacity and
 *       allocatable are their number.
 *   <li>{@link #health}: the plugin reports some unhealthy: capacity counts all, allocatable the
 *       healthy ones ({@code manager.go:472-521} GetCapacity).
 *   <li>{@link #stop}: the plugin's stream ends (it stopped, or its pod was deleted): its devices
 *       become unhealthy at once ({@code manager.go:256-283} PluginDisconnected, {@code 447-458}
 *       markResourceUnhealthy), so allocatable is 0 while capacity still counts them; the scheduler
 *       then already sends pods asking for the name to DRA.
 *   <li>The grace period ({@code endpointStopGracePeriod}, 5 minutes, {@code types.go:121-125})
 *       after the stop, the kubelet forgets the plugin: capacity and allocatable are 0, and the
 *       name stays in the status at 0 for good ({@code pkg/kubelet/nodestatus/setters.go:274-284},
 *       so that the name is known as a device plugin's). A plugin that registers again within the
 *       grace period simply takes over.
 * </ol>
 *
 * <p>Only the names this manager handles are written; the rest of the status stays as it is. The
 * Node must exist. Differences from the kubelet, on purpose: the kubelet writes the status at its
 * next node status update (every {@code nodeStatusUpdateFrequency}, 10 s by default), this writes
 * it at once; and the kubelet drops a stopped plugin's capacity at its first status update after
 * the grace period, this exactly at its end. {@code MigrationIT} measures both on the real kubelet.
 *
 * <pre>{@code
 * try (DeviceManager dm = DeviceManager.start(client, "node-1", Duration.ofMillis(500))) {
 *   dm.register("example.com/gpu", 4); // capacity 4, allocatable 4
 *   dm.stop("example.com/gpu");        // capacity 4, allocatable 0
 *   // 500 ms later:                      capacity 0, allocatable 0
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class DeviceManager implements AutoCloseable {

  /** The kubelet's {@code endpointStopGracePeriod}. */
  public static final Duration ENDPOINT_STOP_GRACE_PERIOD = Duration.ofMinutes(5);

  /** A name's plugin: its devices, how many are healthy, and whether it has stopped. */
  private record Endpoint(int devices, int healthy, boolean stopped, boolean forgotten) {}

  private final KubeClient client;
  private final String nodeName;
  private final Duration gracePeriod;
  private final ScheduledExecutorService timer;
  private final Map<String, Endpoint> endpoints = new TreeMap<>(); // guarded by this
  private final Map<String, Long> generation = new TreeMap<>(); // guarded by this

  private DeviceManager(KubeClient client, String nodeName, Duration gracePeriod) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.gracePeriod = Objects.requireNonNull(gracePeriod, "gracePeriod");
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "device-manager-" + nodeName);
              t.setDaemon(true);
              return t;
            });
  }

  /** The device manager of {@code nodeName} with the kubelet's 5-minute grace period. */
  public static DeviceManager start(KubeClient client, String nodeName) {
    return start(client, nodeName, ENDPOINT_STOP_GRACE_PERIOD);
  }

  /**
   * The device manager of {@code nodeName} with a grace period of {@code gracePeriod} (shorter in
   * fast tests; the kubelet's is {@link #ENDPOINT_STOP_GRACE_PERIOD}).
   */
  public static DeviceManager start(KubeClient client, String nodeName, Duration gracePeriod) {
    if (gracePeriod.isNegative()) {
      throw new IllegalArgumentException("gracePeriod must not be negative, got " + gracePeriod);
    }
    return new DeviceManager(client, nodeName, gracePeriod);
  }

  /**
   * A device plugin for {@code resourceName} registers with {@code devices} healthy devices (or
   * registers again, taking over from a stopped one).
   */
  public void register(String resourceName, int devices) throws KubeException {
    if (devices < 0) {
      throw new IllegalArgumentException("devices must not be negative, got " + devices);
    }
    put(resourceName, new Endpoint(devices, devices, false, false));
  }

  /** The registered plugin of {@code resourceName} lists {@code healthy} of its devices healthy. */
  public void health(String resourceName, int healthy) throws KubeException {
    Endpoint e = endpoint(resourceName);
    if (e.stopped() || healthy < 0 || healthy > e.devices()) {
      throw new IllegalArgumentException(
          resourceName + ": " + healthy + " healthy of " + e.devices() + " devices, stopped " + e);
    }
    put(resourceName, new Endpoint(e.devices(), healthy, false, false));
  }

  /**
   * The plugin of {@code resourceName} stops: allocatable 0 now, capacity 0 after the grace period
   * unless it registers again meanwhile.
   */
  public void stop(String resourceName) throws KubeException {
    Endpoint e = endpoint(resourceName);
    long g = put(resourceName, new Endpoint(e.devices(), 0, true, false));
    timer.schedule(() -> forget(resourceName, g), gracePeriod.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** What this manager writes into the Node's {@code status.capacity} now. */
  public synchronized Map<String, Quantity> capacity() {
    Map<String, Quantity> out = new LinkedHashMap<>();
    endpoints.forEach((n, e) -> out.put(n, Quantity.of(e.forgotten() ? 0 : e.devices())));
    return out;
  }

  /** What this manager writes into the Node's {@code status.allocatable} now. */
  public synchronized Map<String, Quantity> allocatable() {
    Map<String, Quantity> out = new LinkedHashMap<>();
    endpoints.forEach((n, e) -> out.put(n, Quantity.of(e.healthy())));
    return out;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  private synchronized Endpoint endpoint(String resourceName) {
    Endpoint e = endpoints.get(resourceName);
    if (e == null || e.forgotten()) {
      throw new IllegalStateException("no device plugin registered for " + resourceName);
    }
    return e;
  }

  /** Records the endpoint and writes the status; returns the change's generation. */
  private long put(String resourceName, Endpoint e) throws KubeException {
    long g;
    synchronized (this) {
      endpoints.put(resourceName, e);
      g = generation.merge(resourceName, 1L, Long::sum);
    }
    writeStatus();
    return g;
  }

  /** The grace period of a stop ended: forgotten, unless the plugin registered since. */
  private void forget(String resourceName, long stoppedAt) {
    synchronized (this) {
      if (generation.get(resourceName) != stoppedAt) {
        return;
      }
      Endpoint e = endpoints.get(resourceName);
      endpoints.put(resourceName, new Endpoint(e.devices(), 0, true, true));
    }
    try {
      writeStatus();
    } catch (KubeException e) {
      throw new IllegalStateException(
          "device manager of " + nodeName + ": writing the node status failed: " + e, e);
    }
  }

  /** Writes this manager's names into the Node's status, keeping everything else. */
  private void writeStatus() throws KubeException {
    for (int attempt = 0; ; attempt++) {
      Node node = client.get(Node.TYPE, "", nodeName);
      Map<String, Quantity> cap = new TreeMap<>(node.status().capacity());
      Map<String, Quantity> alloc = new TreeMap<>(node.status().allocatable());
      synchronized (this) {
        cap.putAll(capacity());
        alloc.putAll(allocatable());
      }
      try {
        client.updateStatus(
            Node.TYPE, node.withStatus(new Node.Status(cap, alloc, node.status().unknownFields())));
        return;
      } catch (KubeException e) {
        if (!e.isConflict() || attempt >= 10) {
          throw e;
        }
      }
    }
  }
}
