package io.dra4j.examples.hostdev;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Mount;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthReporting;
import io.dra4j.api.health.HealthSink;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.examples.hostdev.DeviceSpec.PathType;
import io.dra4j.examples.hostdev.HostDevices.HostDevice;
import io.dra4j.examples.hostdev.HostDevices.HostPath;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Host devices as DRA devices, from generic-device-plugin's device specifications ({@link
 * DeviceSpecs}, found by {@link HostDevices}): each device's paths become CDI device nodes (type,
 * major, minor and permissions from the host) and bind mounts, in one node-local pool.
 *
 * <p>Settings: {@value #CONFIG_DEVICE_CONFIG} (a config file of the plugin's format), {@value
 * #CONFIG_DEVICE_SPECS} (the launcher's {@code --device} values as a JSON list), {@value
 * #CONFIG_DOMAIN} (default {@value DeviceSpecs#DEFAULT_DOMAIN}), {@value #CONFIG_RESCAN} (how often
 * globs and USB devices are looked for again and literal paths checked, default 5 s as the plugin's
 * {@code deviceCheckInterval}).
 *
 * <p>Attributes in the driver's domain: {@code resourceName} (the plugin's extended resource name,
 * {@code devic.es/fuse}), {@code name}, {@code group}, {@code instance}, {@code id} (the plugin's
 * device id), {@code path} (the first host path, when it fits), {@code usbVendor}, {@code
 * usbProduct}, {@code usbSerial} (a USB group with one device); {@code
 * resource.kubernetes.io/pciBusID} where the first device node sits on a PCI function (spi-numa's
 * enricher then adds {@code pcieRoot} and {@code numaNode}).
 *
 * <p>Health: a device whose literal path is missing is unhealthy ({@code PathMissing}), and healthy
 * again when it is back. Every rescan reports every device, changed or not, with a health check
 * timeout of three rescans (at least the kubelet's 30 s): the kubelet trusts a report only that
 * long, so a rescan thread that stops lets the devices decay to unknown. A rescan that finds a
 * glob's or a USB group's devices changed calls {@link ProviderContext#inventoryChanged()}.
 */
public final class HostdevProvider implements DeviceProvider, HealthReporting {
  public static final String NAME = "hostdev";
  public static final String CONFIG_DEVICE_CONFIG = "device-config";
  public static final String CONFIG_DEVICE_SPECS = "device-specs";
  public static final String CONFIG_DOMAIN = "domain";
  public static final String CONFIG_RESCAN = "rescan-interval";

  /** A string attribute holds at most 64 characters (resource.k8s.io/v1). */
  private static final int MAX_STRING_ATTRIBUTE = 64;

  private volatile ProviderContext context;
  private volatile List<DeviceSpec> specs = List.of();
  private volatile HostDevices host;
  private volatile Map<String, HostDevice> devices = Map.of();
  private volatile Duration rescan = Duration.ofSeconds(5);
  private ScheduledExecutorService monitor;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Inventory discover(ProviderContext ctx) throws Exception {
    if (context == null) {
      context = ctx;
      specs = specs(ctx.config());
      host = new HostDevices(ctx.devRoot(), ctx.sysfsRoot());
      rescan = duration(ctx.config(), CONFIG_RESCAN, rescan);
    }
    Map<String, HostDevice> found = host.scan(specs);
    devices = found;
    List<Device> out = new ArrayList<>();
    for (HostDevice d : found.values()) {
      out.add(device(ctx.driverName(), d));
    }
    return Inventory.nodeLocal(ctx, out);
  }

  /** The specifications of the settings; a usage error names what is wrong. */
  static List<DeviceSpec> specs(Map<String, String> config) {
    List<String> flags = new ArrayList<>();
    String json = config.get(CONFIG_DEVICE_SPECS);
    if (json != null) {
      try {
        for (var n : new ObjectMapper().readTree(json)) {
          flags.add(n.isTextual() ? n.asText() : n.toString());
        }
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(
            "setting " + CONFIG_DEVICE_SPECS + " must be a JSON list of device specifications", e);
      }
    }
    return DeviceSpecs.parse(
        flags,
        Optional.ofNullable(config.get(CONFIG_DEVICE_CONFIG)).map(Path::of),
        Optional.ofNullable(config.get(CONFIG_DOMAIN)));
  }

  private static Device device(String driver, HostDevice d) {
    Device.Builder b =
        Device.builder(d.name())
            .attribute(driver + "/resourceName", fit(d.spec().resourceName()))
            .attribute(driver + "/name", d.spec().name())
            .attribute(driver + "/group", d.group())
            .attribute(driver + "/instance", d.instance())
            .attribute(driver + "/id", d.id());
    if (!d.paths().isEmpty() && d.paths().get(0).hostPath().length() <= MAX_STRING_ATTRIBUTE) {
      b.attribute(driver + "/path", d.paths().get(0).hostPath());
    }
    d.usb()
        .ifPresent(
            u -> {
              b.attribute(driver + "/usbVendor", String.format("%04x", u.vendor()));
              b.attribute(driver + "/usbProduct", String.format("%04x", u.product()));
              if (!u.serial().isEmpty() && u.serial().length() <= MAX_STRING_ATTRIBUTE) {
                b.attribute(driver + "/usbSerial", u.serial());
              }
            });
    d.pciBusId().ifPresent(a -> b.attribute(StandardAttributes.PCI_BUS_ID, a));
    return b.build();
  }

  /** A resource name longer than an attribute may be is cut; {@code name} still tells it. */
  private static String fit(String value) {
    return value.length() <= MAX_STRING_ATTRIBUTE
        ? value
        : value.substring(0, MAX_STRING_ATTRIBUTE);
  }

  @Override
  public PrepareResult prepare(ClaimAllocation allocation) throws DeviceException {
    Map<String, HostDevice> now = devices;
    List<PreparedDevice> out = new ArrayList<>();
    for (AllocatedDevice a : allocation.devices()) {
      HostDevice d = now.get(a.device());
      if (d == null) {
        throw new DeviceException(
            "device "
                + a.device()
                + " of claim "
                + allocation.claim()
                + " is not on this node any more (its path or USB device went away)");
      }
      out.add(PreparedDevice.of(a, edits(d)));
    }
    return PrepareResult.of(out);
  }

  /** The CDI edits of one device: its device nodes and its bind mounts. */
  static ContainerEdits edits(HostDevice d) {
    ContainerEdits.Builder e = ContainerEdits.builder();
    for (HostPath p : d.paths()) {
      if (p.type() == PathType.MOUNT) {
        List<String> options = new ArrayList<>(List.of("rbind", "nosuid"));
        if (p.readOnly()) {
          options.add("ro");
        }
        e.mount(Mount.builder(p.hostPath(), p.containerPath()).options(options).build());
        continue;
      }
      DeviceNode.Builder n =
          DeviceNode.builder(p.containerPath())
              .required(!p.optional())
              .permissions(p.permissions());
      if (!p.containerPath().equals(p.hostPath())) {
        n.hostPath(p.hostPath());
      }
      if (p.nodeType().isPresent()) {
        n.type(String.valueOf(p.nodeType().get())).major(p.major()).minor(p.minor());
      }
      e.deviceNode(n.build());
    }
    return e.build();
  }

  @Override
  public void unprepare(PreparedClaim claim) {
    // Nothing was set up on the host: the container runtime made the nodes from the CDI spec.
  }

  @Override
  public boolean threadSafe() {
    return true;
  }

  @Override
  public synchronized void startHealthMonitoring(HealthSink sink) {
    report(sink);
    monitor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "hostdev-rescan");
              t.setDaemon(true);
              return t;
            });
    long every = rescan.toMillis();
    monitor.scheduleWithFixedDelay(() -> rescan(sink), every, every, TimeUnit.MILLISECONDS);
  }

  /** Finds the devices again: a changed set is a new inventory; literal paths decide health. */
  private void rescan(HealthSink sink) {
    try {
      Map<String, HostDevice> found = host.scan(specs);
      if (!found.keySet().equals(devices.keySet())) {
        context.inventoryChanged();
      }
      devices = found;
      report(sink);
    } catch (IOException | RuntimeException e) {
      System.getLogger(HostdevProvider.class.getName())
          .log(System.Logger.Level.WARNING, "hostdev: rescanning the host's devices failed: " + e);
    }
  }

  /** Reports every device: the rescan that just ran vouches for all of them. */
  private void report(HealthSink sink) {
    List<DeviceHealth> all = new ArrayList<>();
    String pool = context.nodeName();
    Duration timeout = rescan.multipliedBy(3);
    if (timeout.compareTo(DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT) < 0) {
      timeout = DeviceHealth.KUBELET_DEFAULT_HEALTH_CHECK_TIMEOUT;
    }
    for (HostDevice d : devices.values()) {
      DeviceHealth h =
          d.missing().isEmpty()
              ? DeviceHealth.healthy(pool, d.name())
              : DeviceHealth.unhealthy(
                  pool,
                  d.name(),
                  "PathMissing",
                  String.join(", ", d.missing()) + " is missing on the host");
      all.add(h.withHealthCheckTimeout(timeout));
    }
    if (!all.isEmpty()) {
      sink.report(all);
    }
  }

  @Override
  public synchronized void close() {
    if (monitor != null) {
      monitor.shutdownNow();
    }
  }

  private static Duration duration(Map<String, String> config, String key, Duration fallback) {
    String v = config.get(key);
    return v == null ? fallback : duration(key, v);
  }

  /** A duration setting such as 5s, 500ms or PT1M; a usage error names the setting. */
  static Duration duration(String key, String v) {
    try {
      Duration d = Duration.parse(v.matches("\\d+(ms|s|m)") ? toIso(v) : v);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("setting " + key + "=\"" + v + "\" must be positive");
      }
      return d;
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "setting " + key + "=\"" + v + "\" must be a duration such as 5s or 500ms", e);
    }
  }

  private static String toIso(String v) {
    if (v.endsWith("ms")) {
      return "PT" + Double.parseDouble(v.substring(0, v.length() - 2)) / 1000 + "S";
    }
    return "PT" + v.toUpperCase(java.util.Locale.ROOT);
  }
}
