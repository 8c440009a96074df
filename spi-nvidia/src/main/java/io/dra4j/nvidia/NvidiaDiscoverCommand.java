package io.dra4j.nvidia;

import io.dra4j.api.device.Device;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@code discover} command: runs the NVIDIA provider's discovery once and prints the inventory as
 * JSON, so an operator can see what a node would publish without a cluster. The
 * examples/nvidia-driver module wraps {@link #run}; {@link #main} works on its own.
 */
public final class NvidiaDiscoverCommand {
  private NvidiaDiscoverCommand() {}

  /** The driver name used when none is given. */
  public static final String DEFAULT_DRIVER_NAME = "gpu.nvidia.com";

  /**
   * Discovers with a fresh provider and returns the inventory as JSON ({@code {"pools":[...]}}).
   * NVML is initialised and shut down again.
   *
   * @throws Exception when discovery fails (for example NVML cannot be loaded; the message names
   *     every path tried)
   */
  public static String inventoryJson(ProviderContext context) throws Exception {
    try (NvidiaDeviceProvider provider = new NvidiaDeviceProvider()) {
      Inventory inventory = provider.discover(context);
      return InventoryJson.write(inventory);
    }
  }

  /**
   * Prints the inventory to {@code out}, one JSON document and a newline, and problems to {@code
   * err}.
   *
   * @return the exit status: 0 on success, 1 when discovery failed
   */
  public static int run(ProviderContext context, PrintStream out, PrintStream err) {
    return run(context, List.of(), out, err);
  }

  /**
   * As {@link #run(ProviderContext, PrintStream, PrintStream)}, with the devices passed through
   * {@code enrichers} as the driver would publish them (e.g. spi-numa's topology attributes).
   */
  public static int run(
      ProviderContext context, List<DeviceEnricher> enrichers, PrintStream out, PrintStream err) {
    try (NvidiaDeviceProvider provider = new NvidiaDeviceProvider()) {
      for (DeviceEnricher e : enrichers) {
        e.init(context);
      }
      Inventory discovered = provider.discover(context);
      // One pass over the devices, each through every enricher in order, as the driver does.
      Inventory inventory =
          Inventory.of(
              discovered.pools().stream()
                  .map(
                      p ->
                          p.withDevices(
                              p.devices().stream()
                                  .map(d -> enrich(enrichers, p.name(), d))
                                  .toList()))
                  .toList());
      for (String p : provider.lastProblems()) {
        err.println("warning: " + p);
      }
      out.println(InventoryJson.write(inventory));
      return 0;
    } catch (Exception e) {
      err.println("discover failed: " + e.getMessage());
      return 1;
    }
  }

  /**
   * {@code discover [node=NAME] [driver=NAME] [KEY=VALUE...]}: provider settings such as {@code
   * driver-root=/run/nvidia/driver} or {@code mig-mode=partitionable}. The node name defaults to
   * {@code $NODE_NAME}, then the host name.
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> config = new TreeMap<>();
    String node = System.getenv("NODE_NAME");
    String driver = DEFAULT_DRIVER_NAME;
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        System.err.println("usage: discover [node=NAME] [driver=NAME] [KEY=VALUE...]");
        System.exit(2);
        return;
      }
      String k = a.substring(0, eq);
      String v = a.substring(eq + 1);
      if (k.equals("node")) {
        node = v;
      } else if (k.equals("driver")) {
        driver = v;
      } else {
        config.put(k, v);
      }
    }
    if (node == null || node.isBlank()) {
      node = InetAddress.getLocalHost().getHostName();
    }
    ProviderContext context =
        ProviderContext.builder(driver, node)
            .config(config)
            .pluginDataDir(Path.of(System.getProperty("java.io.tmpdir")))
            .build();
    System.exit(run(context, System.out, System.err));
  }

  private static Device enrich(List<DeviceEnricher> enrichers, String pool, Device device) {
    Device d = device;
    for (DeviceEnricher e : enrichers) {
      d = e.enrich(pool, d);
    }
    return d;
  }
}
