package io.dra4j.fake;

import io.dra4j.api.binding.BindingRequest;
import io.dra4j.api.binding.BindingStatus;
import io.dra4j.api.binding.DeviceBinding;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.claim.RecordedDevice;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.health.HealthReporting;
import io.dra4j.api.health.HealthSink;
import io.dra4j.api.provider.ConfigType;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.api.status.NetworkDeviceData;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Simulated devices: the demo's provider and a realistic peer for tests of the runtime. Found with
 * {@link java.util.ServiceLoader} under the name {@value #NAME}.
 *
 * <h2>Settings ({@link ProviderContext#config()})</h2>
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #CONFIG_DEVICES}</td><td>8</td><td>number of devices {@code gpu-0} ...
 *       (0 to 16384)</td></tr>
 *   <tr><td>{@value #CONFIG_TYPE}</td><td>{@code gpu}</td><td>value of the {@code type}
 *       attribute; partitions get {@code <type>-partition}</td></tr>
 *   <tr><td>{@value #CONFIG_MEMORY}</td><td>{@code 80Gi}</td><td>{@code memory} capacity per
 *       device, whole bytes</td></tr>
 *   <tr><td>{@value #CONFIG_PARTITIONS}</td><td>0 (off)</td><td>N: each device gets a counter set
 *       {@code <dev>-counters} ({@code memory}, {@code compute} = N) and N devices {@code
 *       <dev>-part-<i>} drawing 1/N of it (memory rounded down to whole Mi); the full device
 *       draws all of it (KEP-4815). 0 to 64.</td></tr>
 *   <tr><td>{@value #CONFIG_PARTITION_MODES}</td><td>none</td><td>e.g. {@code mig,vgpu}: ways
 *       to partition that exclude each other on one device (KEP-5963). Each device gets its
 *       partitions once per mode, {@code <dev>-<mode>-<i>} with attribute {@code mode}, all
 *       drawing from the device's counter set in compatibility group {@code <mode>}: the counters
 *       would allow a mix, the groups do not, and prepare refuses a partition while one of another
 *       mode of the same device is prepared, as hardware would. Needs partitions; at most 4 modes
 *       of at most 20 characters.</td></tr>
 *   <tr><td>{@value #CONFIG_CONSUMABLE}</td><td>false</td><td>true: devices allow multiple
 *       allocations and {@code memory} has a request policy with {@code validRange} min = step =
 *       default = 1Gi (half the memory below 2Gi). Not with partitions.</td></tr>
 *   <tr><td>{@value #CONFIG_FRACTIONAL_COMPUTE}</td><td>false</td><td>true (with consumable):
 *       shared devices also have capacity {@code compute} = 1 handed out in fractions
 *       (KEP-5075 fractional ranges, Kubernetes 1.37): {@code validRange} min = default = 100m,
 *       step 50m, max 1</td></tr>
 *   <tr><td>{@value #CONFIG_PCI_BUS_IDS}</td><td>none</td><td>{@code fake}: device i gets the
 *       standard {@code pciBusID} {@code 0000:<i+1>:00.0} (hex); or a comma list of real
 *       addresses, one per device, so spi-numa shows a real host's topology. A device made of
 *       several PCI functions joins them with {@code +} (primary first); it then lists them all
 *       in {@code pciBusID}, which spi-numa turns into the primary address plus the list forms of
 *       {@code pcieRoot} and {@code numaNode}</td></tr>
 *   <tr><td>{@value #CONFIG_DEVICE_NODES}</td><td>none</td><td>a host device such as {@code
 *       /dev/null}, injected as the required device node {@code /dev/fake-<device>} of every
 *       prepared device</td></tr>
 *   <tr><td>{@value #CONFIG_FLAP_PERIOD}</td><td>none (off)</td><td>e.g. {@code 30s}: the flap
 *       device turns unhealthy, then healthy, alternating each period</td></tr>
 *   <tr><td>{@value #CONFIG_FLAP_DEVICE}</td><td>{@code gpu-0}</td><td>the device that
 *       flaps</td></tr>
 *   <tr><td>{@value #CONFIG_HEALTH_FILE}</td><td>none (off)</td><td>an absolute path, read every
 *       {@value #HEALTH_FILE_POLL_MILLIS} ms: each line {@code <device> <reason> [message]} marks
 *       that device unhealthy (a simulated XID); a device no longer listed is healthy again; a
 *       line {@value #HEALTH_FILE_STOP} stops the monitor while it is there (a hung monitor: no
 *       report at all, so the kubelet shows the devices as unknown after their timeout). A
 *       missing file lists nothing. Lets a test outside the process drive health.</td></tr>
 *   <tr><td>{@value #CONFIG_HEALTH_TIMEOUT}</td><td>none (the kubelet's 30 s)</td><td>e.g.
 *       {@code 3s}, at least 1 s: the health check timeout of every report. Every device is
 *       reported again each third of the timeout, changed or not, as {@link
 *       io.dra4j.api.health.HealthSink} asks of a provider</td></tr>
 *   <tr><td>{@value #CONFIG_ATTACH_DEVICES}</td><td>none</td><td>devices (comma list, or {@code
 *       all}) that are attached through a simulated fabric before their pod may bind: they
 *       publish binding condition {@value #CONDITION_ATTACHED} and failure condition {@value
 *       #CONDITION_ATTACH_FAILED} (KEP-5007), and {@link #bindingStatus} reports them attached
 *       {@value #CONFIG_ATTACH_DELAY} after the scheduler allocated them</td></tr>
 *   <tr><td>{@value #CONFIG_ATTACH_FAILURES}</td><td>none</td><td>those of the attach devices
 *       whose attachment fails (failure condition {@code True}, reason {@value
 *       #ATTACH_FAILED_REASON}) instead</td></tr>
 *   <tr><td>{@value #CONFIG_ATTACH_DELAY}</td><td>{@code 1s}</td><td>how long attaching takes
 *       </td></tr>
 *   <tr><td>{@value #CONFIG_NETWORK_DATA}</td><td>false</td><td>true: each prepared device's
 *       claim status also carries network data, as a NIC driver's would: interface {@code
 *       fake-<device>}, address {@code 192.0.2.<i+1>/24} (TEST-NET-1, i the device's position) and
 *       a locally administered MAC derived from its uuid</td></tr>
 *   <tr><td>{@value #CONFIG_SKIP_NODE_OPERATIONS}</td><td>none (off)</td><td>a comma list of
 *       {@code NodePrepareResources}, {@code NodeUnprepareResources} and {@code *} (KEP-5945,
 *       gate {@code DRAOptionalNodeOperations}): a second pool {@code <node>-skip} with as many
 *       plain devices {@code gpu-skip-<i>} (no partitions, sharing or bus ids; attribute {@code
 *       skipsNodeOperations} = true) whose slices skip those kubelet calls. The runtime refuses
 *       {@code NodePrepareResources} alone, as the API server does.</td></tr>
 * </table>
 *
 * <h2>Devices</h2>
 *
 * Named {@code gpu-<i>} (partitions {@code gpu-<i>-part-<j>}) in one node-local pool named after
 * the node (and {@code gpu-skip-<i>} in the pool of {@value #CONFIG_SKIP_NODE_OPERATIONS}).
 * Attributes: {@code type}, {@code uuid} (a name-based UUID of driver name, node name and device
 * name, so every discovery and every node gives stable, distinct ids), {@code index}, {@code model}
 * ({@code FAKE-80} for 80Gi), {@code driverVersion} (a version); partitions add {@code parent} and
 * {@code partition}. Capacity {@code memory}.
 *
 * <h2>Prepare</h2>
 *
 * For each device, with {@code <n>} its name after {@code gpu-} in upper case with {@code _} for
 * {@code -} ({@code 3}, {@code 0_PART_1}), so a container can tell exactly which devices it got and
 * names never collide across claims:
 *
 * <ul>
 *   <li>{@code DRA_FAKE_DEVICE_<n>=<uuid>} (the {@code uuid} attribute of the device)
 *   <li>{@code DRA_FAKE_DEVICE_<n>_REQUEST=<request>}
 *   <li>{@code DRA_FAKE_DEVICE_<n>_MEMORY=<quantity>} when the allocation consumes memory of a
 *       shared device, {@code DRA_FAKE_DEVICE_<n>_COMPUTE=<quantity>} likewise for compute
 *   <li>{@code DRA_FAKE_DEVICE_<n>_SHARING=<Exclusive|TimeSlicing>} when a {@link FakeConfig}
 *       applies, plus its {@code env} entries
 *   <li>{@code DRA_ADMIN_ACCESS=true} for an admin-access allocation
 *   <li>the device node of {@value #CONFIG_DEVICE_NODES}, if set
 * </ul>
 *
 * The claim status of each device is {@code Ready=True} with data {@code {uuid, model}}; the uuid
 * is also recorded. A device that is not shared and not under admin access is refused while another
 * claim holds it. {@link #unprepare} releases the claim's devices and is idempotent.
 *
 * <p>Thread-safe: {@link #threadSafe()} is true (unless {@value #THREAD_SAFE_PROPERTY} is {@code
 * false}).
 */
public final class FakeDeviceProvider
    implements DeviceProvider, TypedConfig, HealthReporting, DeviceBinding {

  /** The provider's name for {@code --provider}. */
  public static final String NAME = "fake";

  public static final String CONFIG_DEVICES = "devices";
  public static final String CONFIG_TYPE = "type";
  public static final String CONFIG_MEMORY = "memory";
  public static final String CONFIG_PARTITIONS = "partitions";
  public static final String CONFIG_PARTITION_MODES = "partition-modes";
  public static final String CONFIG_CONSUMABLE = "consumable";
  public static final String CONFIG_FRACTIONAL_COMPUTE = "fractional-compute";
  public static final String CONFIG_PCI_BUS_IDS = "pci-bus-ids";
  public static final String CONFIG_DEVICE_NODES = "device-nodes";
  public static final String CONFIG_FLAP_PERIOD = "flap-period";
  public static final String CONFIG_FLAP_DEVICE = "flap-device";
  public static final String CONFIG_HEALTH_FILE = "health-file";
  public static final String CONFIG_HEALTH_TIMEOUT = "health-timeout";

  /** The health-file line that stops the monitor while it is there. */
  public static final String HEALTH_FILE_STOP = "!stop";

  public static final String CONFIG_ATTACH_DEVICES = "attach-devices";
  public static final String CONFIG_ATTACH_FAILURES = "attach-failures";
  public static final String CONFIG_ATTACH_DELAY = "attach-delay";
  public static final String CONFIG_NETWORK_DATA = "network-data";
  public static final String CONFIG_SKIP_NODE_OPERATIONS = "skip-node-operations";

  static final long HEALTH_FILE_POLL_MILLIS = 200;

  public static final String ATTR_TYPE = "type";
  public static final String ATTR_UUID = "uuid";
  public static final String ATTR_INDEX = "index";
  public static final String ATTR_MODEL = "model";
  public static final String ATTR_DRIVER_VERSION = "driverVersion";
  public static final String ATTR_PARENT = "parent";
  public static final String ATTR_PARTITION = "partition";
  public static final String ATTR_MODE = "mode";
  public static final String ATTR_SKIPS_NODE_OPERATIONS = "skipsNodeOperations";
  public static final String CAPACITY_MEMORY = "memory";
  public static final String CAPACITY_COMPUTE = "compute";
  public static final String COUNTER_MEMORY = "memory";
  public static final String COUNTER_COMPUTE = "compute";

  /** The binding condition of devices that are attached before their pod binds. */
  public static final String CONDITION_ATTACHED = "Attached";

  /** Their binding failure condition. */
  public static final String CONDITION_ATTACH_FAILED = "AttachFailed";

  /** The reason of a failed attachment. */
  public static final String ATTACH_FAILED_REASON = "FabricAttachFailed";

  /** The value of the {@code driverVersion} attribute. */
  public static final String DRIVER_VERSION = "1.0.0";

  /** Prefix of every per-device environment variable. */
  public static final String ENV_PREFIX = "DRA_FAKE_";

  /** Set to {@code true} for admin-access allocations. */
  public static final String ENV_ADMIN = "DRA_ADMIN_ACCESS";

  /**
   * Set to {@code false}, the provider declares itself not thread-safe (see {@link #threadSafe}).
   */
  public static final String THREAD_SAFE_PROPERTY = "dra4j.fake.threadSafe";

  /** Reason of the scheduled flapping's unhealthy reports. */
  public static final String FLAP_REASON = "FakeFlap";

  private static final System.Logger LOG = System.getLogger(FakeDeviceProvider.class.getName());

  /** Settings and the inventory built from them, swapped together by each discovery. */
  private record Discovered(FakeSettings settings, FakeInventory inventory) {}

  private volatile Discovered discovered;
  private final FakeHealthScript health = new FakeHealthScript();

  private final Object stateLock = new Object();

  /** Claim UID to the keys ({@link AllocatedDevice#key()}) of its prepared devices. */
  private final Map<String, Set<String>> prepared = new HashMap<>();

  /** {@code pool/device} to the claim UID holding it exclusively. */
  private final Map<String, String> exclusive = new HashMap<>();

  /** {@code <claim uid> <pool/device>} to when the simulated fabric started attaching it. */
  private final Map<String, Long> attaching = new HashMap<>();

  /** Runs the flapping schedule and the health-file poll; started with health monitoring. */
  private ScheduledExecutorService healthTasks;

  private final Object healthFileLock = new Object();

  /** Devices the health file marked unhealthy at its last read, with their reason and message. */
  private Map<String, String> fromHealthFile = Map.of();

  /** The last problem reported for the health file, so a bad file is logged once, not per poll. */
  private String healthFileProblem = "";

  /** For {@link java.util.ServiceLoader}; settings come with {@link #discover}. */
  public FakeDeviceProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Builds the devices the settings describe; the same settings always give the same inventory.
   *
   * @throws IllegalArgumentException naming the key, value and rule of an invalid setting
   */
  @Override
  public Inventory discover(ProviderContext context) {
    FakeSettings s = FakeSettings.from(context);
    FakeInventory inv = FakeInventory.build(s, context.driverName(), context.nodeName());
    if (s.flapPeriod().isPresent() && inv.entry(s.flapDevice()).isEmpty()) {
      throw new IllegalArgumentException(
          "setting "
              + CONFIG_FLAP_DEVICE
              + "=\""
              + s.flapDevice()
              + "\" is not one of "
              + inv.deviceNames());
    }
    discovered = new Discovered(s, inv);
    health.inventory(inv);
    health.timeout(s.healthTimeout());
    return inv.inventory();
  }

  @Override
  public PrepareResult prepare(ClaimAllocation allocation) throws DeviceException {
    Discovered now = discovered;
    if (now == null) {
      throw new DeviceException("no devices discovered yet");
    }
    FakeInventory inv = now.inventory();
    FakeSettings s = now.settings();
    List<PreparedDevice> out = new ArrayList<>();
    for (AllocatedDevice d : allocation.devices()) {
      out.add(prepareDevice(allocation, d, inv, s));
    }
    String uid = allocation.claim().uid();
    synchronized (stateLock) {
      for (AllocatedDevice d : allocation.devices()) {
        Optional<String> conflict = modeConflict(allocation, d, inv);
        if (conflict.isPresent()) {
          throw new DeviceException(conflict.get());
        }
        String holder = exclusive.get(d.pool() + "/" + d.device());
        if (holder != null && !holder.equals(uid) && takesExclusively(d)) {
          throw new DeviceException(
              "device " + d.pool() + "/" + d.device() + " is already prepared for claim " + holder);
        }
      }
      Set<String> keys = prepared.computeIfAbsent(uid, k -> new LinkedHashSet<>());
      for (AllocatedDevice d : allocation.devices()) {
        keys.add(d.key());
        if (takesExclusively(d)) {
          exclusive.put(d.pool() + "/" + d.device(), uid);
        }
      }
    }
    LOG.log(
        Level.DEBUG,
        "prepared claim {0} for driver {1}: {2}",
        allocation.claim(),
        inv.driverName(),
        allocation.devices().stream().map(AllocatedDevice::key).toList());
    return PrepareResult.of(out);
  }

  /**
   * Why a partition cannot be prepared now: a partition of another mode of the same device is
   * prepared for another claim (hardware runs one partitioning mode at a time). Holds the state
   * lock.
   */
  private Optional<String> modeConflict(
      ClaimAllocation allocation, AllocatedDevice d, FakeInventory inv) {
    Optional<FakeInventory.Entry> wanted = inv.entry(d.device());
    if (wanted.isEmpty() || wanted.get().mode().isEmpty()) {
      return Optional.empty();
    }
    String parent = wanted.get().parent().orElseThrow();
    String mode = wanted.get().mode().get();
    for (Map.Entry<String, Set<String>> claim : prepared.entrySet()) {
      if (claim.getKey().equals(allocation.claim().uid())) {
        continue;
      }
      for (String key : claim.getValue()) {
        String device = key.substring(key.indexOf('/') + 1).replaceFirst("#.*", "");
        Optional<FakeInventory.Entry> other = inv.entry(device);
        if (other.isPresent()
            && other.get().parent().equals(Optional.of(parent))
            && other.get().mode().isPresent()
            && !other.get().mode().get().equals(mode)) {
          return Optional.of(
              "device "
                  + d.device()
                  + " needs "
                  + parent
                  + " in "
                  + mode
                  + " mode, but "
                  + device
                  + " has it in "
                  + other.get().mode().get()
                  + " mode for claim "
                  + claim.getKey()
                  + " (publish compatibility groups so the scheduler never picks both)");
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Shared (consumable capacity) and admin-access allocations coexist with others; anything else
   * holds the device alone.
   */
  private static boolean takesExclusively(AllocatedDevice d) {
    return d.shareId().isEmpty() && !d.adminAccess();
  }

  private PreparedDevice prepareDevice(
      ClaimAllocation allocation, AllocatedDevice d, FakeInventory inv, FakeSettings s)
      throws DeviceException {
    if (!inv.pools().contains(d.pool())) {
      throw new DeviceException(
          "device "
              + d.pool()
              + "/"
              + d.device()
              + " is not a device of this node: pool "
              + d.pool()
              + " is another node's ("
              + (inv.pools().size() == 1
                  ? "this node's pool is " + inv.pools().get(0)
                  : "this node's pools are " + String.join(", ", inv.pools()))
              + ")");
    }
    Optional<FakeInventory.Entry> found =
        inv.entry(d.device()).filter(entry -> entry.pool().equals(d.pool()));
    if (found.isEmpty()) {
      throw new DeviceException(
          "device "
              + d.pool()
              + "/"
              + d.device()
              + " is not a device of this node (pool "
              + d.pool()
              + " has no device "
              + d.device()
              + ")");
    }
    FakeInventory.Entry e = found.get();
    Optional<FakeConfig> config;
    try {
      config = d.config(FakeConfig.class);
      config.ifPresent(FakeConfig::validate);
    } catch (IllegalStateException | IllegalArgumentException ex) {
      throw new DeviceException("device " + d.device() + ": " + ex.getMessage(), ex);
    }
    String var = ENV_PREFIX + "DEVICE_" + e.envId();
    ContainerEdits.Builder edits =
        ContainerEdits.builder().env(var, e.uuid()).env(var + "_REQUEST", d.request());
    consumed(d, CAPACITY_MEMORY, inv.driverName())
        .ifPresent(q -> edits.env(var + "_MEMORY", q.toString()));
    consumed(d, CAPACITY_COMPUTE, inv.driverName())
        .ifPresent(q -> edits.env(var + "_COMPUTE", q.toString()));
    if (config.isPresent()) {
      edits.env(var + "_SHARING", config.get().sharing().apiName());
      config.get().env().forEach(edits::env);
    }
    if (d.adminAccess()) {
      edits.env(ENV_ADMIN, "true");
    }
    s.deviceNode()
        .ifPresent(
            host ->
                edits.deviceNode(
                    DeviceNode.builder("/dev/fake-" + d.device()).hostPath(host).build()));
    Map<String, Object> data = new TreeMap<>();
    data.put("uuid", e.uuid());
    data.put("model", e.model());
    DeviceStatus status =
        DeviceStatus.ready("Prepared", "fake device " + d.device() + " is ready").withData(data);
    if (s.networkData()) {
      status = status.withNetworkData(networkData(e, inv.deviceNames().indexOf(e.name())));
    }
    return PreparedDevice.builder(d)
        .edits(edits.build())
        .status(status)
        .record(ATTR_UUID, e.uuid())
        .build();
  }

  /** What a NIC driver would report: stable per device, valid for the API server's limits. */
  private static NetworkDeviceData networkData(FakeInventory.Entry e, int position) {
    String hex = e.uuid().replace("-", "");
    StringBuilder mac = new StringBuilder("02");
    for (int i = 0; i < 10; i += 2) {
      mac.append(':').append(hex, i, i + 2);
    }
    return NetworkDeviceData.builder()
        .interfaceName("fake-" + e.name())
        .ips(List.of("192.0.2." + (position % 254 + 1) + "/24"))
        .hardwareAddress(mac.toString())
        .build();
  }

  /** The allocation names capacity like the device does: bare, or qualified by the driver. */
  private static Optional<Quantity> consumed(
      AllocatedDevice d, String capacity, String driverName) {
    Quantity q = d.consumedCapacity().get(capacity);
    if (q == null) {
      q = d.consumedCapacity().get(driverName + "/" + capacity);
    }
    return Optional.ofNullable(q);
  }

  @Override
  public void unprepare(PreparedClaim claim) {
    String uid = claim.claim().uid();
    synchronized (stateLock) {
      prepared.remove(uid);
      exclusive.values().removeIf(uid::equals);
    }
    LOG.log(
        Level.DEBUG,
        "unprepared claim {0} for driver {1}: {2}",
        claim.claim(),
        Optional.ofNullable(discovered).map(d -> d.inventory().driverName()).orElse(NAME),
        claim.devices().stream().map(RecordedDevice::device).toList());
  }

  /**
   * What is prepared now: claim UID to the keys ({@link AllocatedDevice#key()}, {@code pool/device}
   * or {@code pool/device#shareId}) of its devices. A snapshot, for tests.
   */
  public Map<String, Set<String>> prepared() {
    synchronized (stateLock) {
      Map<String, Set<String>> out = new TreeMap<>();
      prepared.forEach((k, v) -> out.put(k, Collections.unmodifiableSet(new TreeSet<>(v))));
      return Collections.unmodifiableMap(out);
    }
  }

  /**
   * True unless the system property {@value #THREAD_SAFE_PROPERTY} is {@code false}: then the
   * runtime serializes this provider's calls, as the Go helper does by default, so benchmarks can
   * compare both ways. A property and not a setting, because the runtime asks before discovery.
   */
  @Override
  public boolean threadSafe() {
    return !"false".equals(System.getProperty(THREAD_SAFE_PROPERTY));
  }

  @Override
  public List<ConfigType<?>> configTypes() {
    return List.of(FakeConfig.TYPE);
  }

  @Override
  public void validate(Object config) {
    if (config instanceof FakeConfig c) {
      c.validate();
    } else {
      throw new IllegalArgumentException(
          "config is a " + config.getClass().getName() + ", not a " + FakeConfig.KIND);
    }
  }

  /**
   * The simulated fabric: a device named by {@value #CONFIG_ATTACH_DEVICES} is attached {@value
   * #CONFIG_ATTACH_DELAY} after the first question about its allocation, or fails then when {@value
   * #CONFIG_ATTACH_FAILURES} names it.
   */
  @Override
  public BindingStatus bindingStatus(BindingRequest request) {
    Discovered now = discovered;
    if (now == null) {
      return BindingStatus.pending("no devices discovered yet");
    }
    FakeSettings s = now.settings();
    if (!s.attaches(request.device())) {
      return BindingStatus.ready(request.device() + " needs no attachment");
    }
    String key = request.claim().uid() + " " + request.key();
    long started;
    synchronized (stateLock) {
      started = attaching.computeIfAbsent(key, k -> System.nanoTime());
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
    if (elapsed.compareTo(s.attachDelay()) < 0) {
      return BindingStatus.pending(
          "attaching " + request.device() + " through the simulated fabric");
    }
    if (s.attachFailures().contains(request.device())) {
      return BindingStatus.failed(
          ATTACH_FAILED_REASON, "the simulated fabric could not attach " + request.device());
    }
    return BindingStatus.ready(request.device() + " is attached");
  }

  @Override
  public void released(BindingRequest request) {
    synchronized (stateLock) {
      attaching.remove(request.claim().uid() + " " + request.key());
    }
  }

  /** Allocations being attached or attached, {@code <claim uid> <pool/device>}: for tests. */
  public Set<String> attachments() {
    synchronized (stateLock) {
      return Set.copyOf(attaching.keySet());
    }
  }

  /** Scripted health: mark devices unhealthy and healthy again. */
  public FakeHealthScript health() {
    return health;
  }

  /**
   * Reports the full current health, then every change, and every device again each third of its
   * health check timeout; starts the {@value #CONFIG_FLAP_PERIOD} schedule and the {@value
   * #CONFIG_HEALTH_FILE} poll when configured.
   */
  @Override
  public void startHealthMonitoring(HealthSink sink) {
    Discovered now = discovered;
    if (now != null) {
      // The file's marks are in the first, full report.
      now.settings().healthFile().ifPresent(this::readHealthFile);
    }
    health.start(sink);
    if (now == null) {
      return;
    }
    FakeSettings s = now.settings();
    synchronized (stateLock) {
      if (healthTasks != null) {
        return;
      }
      healthTasks =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "dra4j-fake-health");
                t.setDaemon(true);
                return t;
              });
      // The re-report a provider owes the kubelet: the runtime does not repeat reports.
      long every = health.effectiveTimeout().dividedBy(3).toNanos();
      healthTasks.scheduleAtFixedRate(this::reReport, every, every, TimeUnit.NANOSECONDS);
      if (s.flapPeriod().isPresent()) {
        Duration p = s.flapPeriod().get();
        String device = s.flapDevice();
        healthTasks.scheduleAtFixedRate(
            () -> flap(device, p), p.toNanos(), p.toNanos(), TimeUnit.NANOSECONDS);
      }
      if (s.healthFile().isPresent()) {
        Path file = s.healthFile().get();
        healthTasks.scheduleWithFixedDelay(
            () -> readHealthFile(file),
            HEALTH_FILE_POLL_MILLIS,
            HEALTH_FILE_POLL_MILLIS,
            TimeUnit.MILLISECONDS);
      }
    }
  }

  /** Applies the health file: listed devices unhealthy, devices no longer listed healthy. */
  private void readHealthFile(Path file) {
    List<String> problems = new ArrayList<>();
    Map<String, String[]> listed = new TreeMap<>();
    boolean stop = false;
    try {
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file)) {
          String l = line.strip();
          if (l.isEmpty() || l.startsWith("#")) {
            continue;
          }
          if (l.equals(HEALTH_FILE_STOP)) {
            stop = true;
            continue;
          }
          String[] parts = l.split("\\s+", 3);
          if (parts.length < 2) {
            problems.add(
                "line \"" + l + "\" needs a device and a reason: <device> <reason> [message]");
            continue;
          }
          listed.put(parts[0], new String[] {parts[1], parts.length > 2 ? parts[2] : ""});
        }
      }
    } catch (IOException e) {
      problems.add("cannot be read: " + e.getMessage());
    }
    synchronized (healthFileLock) {
      if (stop) {
        health.stopMonitor();
      }
      Map<String, String> now = new HashMap<>();
      for (Map.Entry<String, String[]> e : listed.entrySet()) {
        String[] v = e.getValue();
        String mark = v[0] + "\n" + v[1];
        try {
          if (!mark.equals(fromHealthFile.get(e.getKey()))) {
            health.markUnhealthy(e.getKey(), v[0], v[1]);
          }
          now.put(e.getKey(), mark);
        } catch (IllegalArgumentException | IllegalStateException x) {
          problems.add(x.getMessage());
        }
      }
      for (String gone : fromHealthFile.keySet()) {
        if (!now.containsKey(gone)) {
          health.markHealthy(gone);
        }
      }
      fromHealthFile = Map.copyOf(now);
      if (!stop) {
        health.resumeMonitor();
      }
      // Said once per distinct problem, not on every poll.
      String problem = String.join("; ", problems);
      if (!problem.equals(healthFileProblem)) {
        healthFileProblem = problem;
        if (!problem.isEmpty()) {
          LOG.log(Level.WARNING, "health file " + file + ": " + problem);
        }
      }
    }
  }

  private void reReport() {
    try {
      health.reportAll();
    } catch (RuntimeException e) {
      // A throwing task would silently cancel the schedule, and the devices would decay.
      LOG.log(Level.WARNING, "health re-report failed", e);
    }
  }

  private void flap(String device, Duration period) {
    try {
      if (health.isUnhealthy(device)) {
        health.markHealthy(device);
      } else {
        health.markUnhealthy(
            device, FLAP_REASON, "scripted flapping every " + period.toMillis() + "ms");
      }
    } catch (RuntimeException e) {
      // A throwing task would silently cancel the schedule; keep flapping and say why it failed.
      LOG.log(Level.WARNING, "health flapping of " + device + " failed", e);
    }
  }

  /** Stops the flapping schedule and the health-file poll. */
  @Override
  public void close() {
    ScheduledExecutorService f;
    synchronized (stateLock) {
      f = healthTasks;
      healthTasks = null;
    }
    if (f != null) {
      f.shutdownNow();
      try {
        f.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
