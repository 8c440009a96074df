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
import io.dra4j.launcher.DriverFlags;
import io.dra4j.launcher.DriverMain;
import io.dra4j.launcher.Launcher;
import io.dra4j.nvidia.NvidiaDeviceProvider;
import io.dra4j.nvidia.NvidiaDiscoverCommand;
import io.dra4j.runtime.cdi.CdiKind;
import io.dra4j.runtime.cdi.ClaimSpec;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

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
    launcher().main(args);
  }

  static Launcher launcher() {
    return Launcher.named("nvidia-dra-driver.jar")
        .defaults(
            Map.of("provider", "nvidia", "driver-name", NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME))
        .command(
            "discover",
            "ask NVML once and print what this node would publish, and a sample CDI spec",
            Discover::run);
  }

  static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    return launcher().run(args, env, out, err);
  }

  /** {@code discover}: its flags; any other {@code --KEY VALUE} is a provider setting. */
  @Command(
      name = "discover",
      sortOptions = false,
      usageHelpWidth = 100,
      description = {
        "Talks to NVML once and prints what this node would publish (JSON), then the CDI spec a"
            + " claim for the first GPU would get.",
        "Any other --KEY VALUE is a provider setting, e.g. --driver-root /run/nvidia/driver."
      })
  static final class Discover implements Callable<Integer> {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help")
    boolean help;

    @CommandLine.Unmatched List<String> settings = new ArrayList<>();

    @CommandLine.Spec CommandSpec spec;

    private final PrintStream out;
    private final PrintStream err;

    private Discover(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    static int run(
        List<String> args,
        Map<String, String> defaults,
        Map<String, String> env,
        PrintStream out,
        PrintStream err) {
      CommandLine cli = DriverFlags.commandLine(new Discover(out, err), true, out, err);
      Map<String, String> all = new HashMap<>(defaults);
      all.putIfAbsent(DriverFlags.DRIVER_NAME.name(), NvidiaDiscoverCommand.DEFAULT_DRIVER_NAME);
      all.putIfAbsent(DriverFlags.NODE_NAME.name(), hostName());
      cli.addMixin(
          "driver",
          DriverFlags.mixin(all, env, List.of(DriverFlags.DRIVER_NAME, DriverFlags.NODE_NAME)));
      cli.setExecutionExceptionHandler(
          (e, c, parsed) -> {
            c.getErr().println("error: " + e.getMessage());
            return e instanceof IllegalArgumentException ? Launcher.EXIT_USAGE : 1;
          });
      return cli.execute(args.toArray(String[]::new));
    }

    @Override
    public Integer call() {
      CommandSpec flags = spec.mixins().get("driver");
      return discover(
          DriverFlags.value(flags, DriverFlags.DRIVER_NAME).orElseThrow(),
          DriverFlags.value(flags, DriverFlags.NODE_NAME).orElseThrow(),
          DriverFlags.providerSettings(settings),
          out,
          err);
    }
  }

  private static int discover(
      String driver, String node, Map<String, String> config, PrintStream out, PrintStream err) {
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
      ClaimRef claim = ClaimRef.of("default", "sample", "00000000-0000-4000-8000-000000000000");
      AllocatedDevice allocated = AllocatedDevice.of("gpu", pool.get().name(), device.name());
      PrepareResult result = provider.prepare(ClaimAllocation.of(claim, List.of(allocated)));
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
