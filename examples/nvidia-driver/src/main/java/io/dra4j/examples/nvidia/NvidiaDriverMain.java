package io.dra4j.examples.nvidia;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.nvidia.NvidiaDeviceProvider;
import io.dra4j.nvidia.NvidiaDiscoverCommand;
import io.dra4j.runtime.DriverMain;
import io.dra4j.runtime.cdi.CdiKind;
import io.dra4j.runtime.cdi.ClaimSpec;
import io.dra4j.runtime.doctor.Doctor;
import io.dra4j.runtime.extendedresource.DeviceClassGenerator;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code java -jar nvidia-dra-driver.jar run|discover|deviceclass|doctor ...}: an NVIDIA GPU DRA
 * driver built from dra4j, as a template to copy.
 *
 * <ul>
 *   <li>{@code run}: the driver, with the same flags as the fake driver ({@code run --help}); the
 *       driver name defaults to {@code gpu.nvidia.com}.
 *   <li>{@code discover [--KEY VALUE ...]}: talks to NVML once and prints what this node would
 *       publish (JSON), then the CDI spec a claim for the first GPU would get. Provider settings as
 *       flags, e.g. {@code --driver-root /run/nvidia/driver}.
 *   <li>{@code deviceclass}: the DeviceClass of this driver's devices ({@code deviceclass --help}),
 *       e.g. {@code deviceclass --class-name mig-1g --match profile=1g.10gb}.
 *   <li>{@code doctor}: the migration doctor ({@code doctor --help}).
 * </ul>
 */
public final class NvidiaDriverMain {
  private NvidiaDriverMain() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), System.getenv(), System.out, System.err));
  }

  static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    if (args.isEmpty()) {
      err.println("usage: java -jar nvidia-dra-driver.jar run|discover|deviceclass|doctor [flags]");
      return 2;
    }
    List<String> rest = args.subList(1, args.size());
    switch (args.get(0)) {
      case "run":
        return DriverMain.run(
            rest,
            Map.of("provider", "nvidia", "driver-name", NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME),
            env,
            err);
      case "discover":
        return discover(rest, env, out, err);
      case DeviceClassGenerator.COMMAND:
        return DeviceClassGenerator.run(
            rest, Map.of("driver-name", NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME), env, out, err);
      case Doctor.COMMAND:
        return Doctor.run(rest, env, out, err);
      default:
        err.println(
            "unknown command \"" + args.get(0) + "\": use run, discover, deviceclass or doctor");
        return 2;
    }
  }

  private static int discover(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    Map<String, String> config = new TreeMap<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!a.startsWith("--")) {
        err.println("error: unexpected argument \"" + a + "\"; settings are --KEY VALUE");
        return 2;
      }
      int eq = a.indexOf('=');
      if (eq > 0) {
        config.put(a.substring(2, eq), a.substring(eq + 1));
      } else if (i + 1 < args.size()) {
        config.put(a.substring(2), args.get(++i));
      } else {
        err.println("error: flag " + a + " needs a value");
        return 2;
      }
    }
    String driver =
        Optional.ofNullable(config.remove("driver-name"))
            .or(() -> Optional.ofNullable(env.get("DRIVER_NAME")))
            .orElse(NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME);
    String node =
        Optional.ofNullable(config.remove("node-name"))
            .or(() -> Optional.ofNullable(env.get("NODE_NAME")))
            .orElseGet(NvidiaDriverMain::hostName);
    ProviderContext context =
        ProviderContext.builder(driver, node)
            .config(config)
            .pluginDataDir(Path.of(System.getProperty("java.io.tmpdir")))
            .build();
    // The enrichers the driver would run (spi-numa's topology attributes), so that the printed
    // inventory is what the node would publish.
    List<DeviceEnricher> enrichers = DriverMain.loadEnrichers();
    int rc = NvidiaDiscoverCommand.run(context, enrichers, out, err);
    if (rc != 0) {
      return rc;
    }
    if ("partitionable".equals(config.get("mig-mode"))) {
      // Preparing a partitionable device creates MIG instances: never a side effect of a look.
      err.println(
          "(no sample CDI spec in partitionable mode: preparing would create a MIG device)");
      return 0;
    }
    return sampleCdiSpec(context, driver, out, err);
  }

  /** What a claim for the first device would get: the provider's edits as our CDI spec. */
  private static int sampleCdiSpec(
      ProviderContext context, String driver, PrintStream out, PrintStream err) {
    try (NvidiaDeviceProvider provider = new NvidiaDeviceProvider()) {
      Inventory inventory = provider.discover(context);
      Optional<Pool> pool =
          inventory.pools().stream().filter(p -> !p.devices().isEmpty()).findFirst();
      if (pool.isEmpty()) {
        err.println("(no device, so no sample CDI spec)");
        return 0;
      }
      Device device = pool.get().devices().get(0);
      ClaimRef claim = new ClaimRef("default", "sample", "00000000-0000-4000-8000-000000000000");
      AllocatedDevice allocated = AllocatedDevice.of("gpu", pool.get().name(), device.name());
      PrepareResult result =
          provider.prepare(new ClaimAllocation(claim, List.of(allocated), Map.of()));
      ClaimSpec spec =
          ClaimSpec.build(CdiKind.forDriver(driver), claim, result.devices(), ContainerEdits.NONE);
      out.println(
          "# CDI spec for a claim with " + device.name() + " (" + spec.allCdiDeviceIds() + ")");
      out.println(spec.spec().map(s -> s.toJson()).orElse("{}"));
      return 0;
    } catch (Exception e) {
      err.println("sample CDI spec failed: " + e.getMessage());
      return 1;
    }
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "localhost";
    }
  }
}
