package io.dra4j.examples.fabric;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClients;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeJson;
import io.dra4j.runtime.report.PublisherStats;
import io.dra4j.runtime.slices.ResourceSlicePublisher;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code java -jar fabric-publisher.jar run|cleanup|deviceclass ...}: a control-plane DRA driver
 * for network-attached devices (simulated, see {@link Fabric}). It runs once per cluster, as a
 * Deployment, and only publishes ResourceSlices through {@link ResourceSlicePublisher}: no kubelet
 * plugin, no node.
 *
 * <ul>
 *   <li>{@code run}: publishes the fabric's pools and keeps them so until stopped ({@code --once}:
 *       until they are on the API server; {@code --dry-run}: prints them).
 *   <li>{@code cleanup}: deletes every ResourceSlice of the driver without a node name, what an
 *       uninstall of a driver without an owner must do.
 *   <li>{@code deviceclass}: a DeviceClass per device kind.
 * </ul>
 */
@Command(
    name = "fabric-publisher.jar",
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "A control-plane DRA driver for network-attached devices (simulated): it publishes"
          + " ResourceSlices for a rack's switch ports (node selector), accelerators every node"
          + " reaches (allNodes) and NVMe namespaces attached to one node each (per device), with"
          + " no kubelet plugin.",
      "COMMAND --help prints the flags of a command."
    })
public final class FabricPublisherMain implements Callable<Integer> {
  /** The driver name when neither --driver-name nor DRIVER_NAME says otherwise. */
  static final String DEFAULT_DRIVER_NAME = "fabric.example.com";

  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "print this help")
  boolean help;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private FabricPublisherMain() {}

  public static void main(String[] args) {
    System.exit(run(List.of(args), System.getenv(), System.out, System.err));
  }

  /**
   * Runs one command line; returns its exit code (0, {@value #EXIT_FAILED}, {@value #EXIT_USAGE}).
   */
  static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    CommandLine cli =
        new CommandLine(new FabricPublisherMain())
            .addSubcommand(
                new CommandLine(new Run(env, out, err))
                    // The publisher's own default, shown by --help.
                    .setDefaultValueProvider(
                        option ->
                            option instanceof CommandLine.Model.OptionSpec o
                                    && o.longestName().equals("--sync-delay")
                                ? DurationConverter.format(
                                    ResourceSlicePublisher.DEFAULT_SYNC_DELAY)
                                : null))
            .addSubcommand(new CommandLine(new Cleanup(env, out, err)))
            .addSubcommand(new CommandLine(new DeviceClasses(env, out, err)));
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cli.setExpandAtFiles(false);
    cli.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          if (e instanceof IllegalArgumentException || e instanceof KubeException) {
            c.getErr().println("error: " + e.getMessage());
          } else {
            e.printStackTrace(c.getErr()); // a bug: the whole story
          }
          return e instanceof IllegalArgumentException ? EXIT_USAGE : EXIT_FAILED;
        });
    return cli.execute(args.toArray(String[]::new));
  }

  /** Without a command: the list of commands, and a usage error. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return EXIT_USAGE;
  }

  /** What every command has: its --help, the environment and the output. */
  abstract static class Subcommand implements Callable<Integer> {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help")
    boolean help;

    final Map<String, String> env;
    final PrintStream out;
    final PrintStream err;

    Subcommand(Map<String, String> env, PrintStream out, PrintStream err) {
      this.env = env;
      this.out = out;
      this.err = err;
    }
  }

  /** The flag, else {@code DRIVER_NAME}, else {@value #DEFAULT_DRIVER_NAME}. */
  static String driverName(String flag, Map<String, String> env) {
    return flag != null ? flag : env.getOrDefault("DRIVER_NAME", DEFAULT_DRIVER_NAME);
  }

  /** The flags every command that talks to the API server has. */
  static final class Connection {
    @Option(
        names = "--kubeconfig",
        paramLabel = "FILE",
        description =
            "the cluster; environment variable KUBECONFIG; default: in-cluster (its pod's ServiceAccount)")
    Path kubeconfig;

    @Option(
        names = "--driver-name",
        paramLabel = "NAME",
        description =
            "the DRA driver; environment variable DRIVER_NAME; default: " + DEFAULT_DRIVER_NAME)
    String driverName;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        defaultValue = "60s",
        converter = DurationConverter.class,
        description =
            "how long --once and cleanup wait for the API server; default: ${DEFAULT-VALUE}")
    Duration timeout;

    String driverName(Map<String, String> env) {
      return FabricPublisherMain.driverName(driverName, env);
    }

    HttpKubeClient client(Map<String, String> env) {
      if (kubeconfig != null) {
        return KubeClients.fromKubeconfig(kubeconfig);
      }
      String fromEnv = env.get("KUBECONFIG");
      return fromEnv != null && !fromEnv.isEmpty()
          ? KubeClients.fromKubeconfig(Path.of(fromEnv))
          : KubeClients.inCluster();
    }
  }

  /** What --dry-run prints of a pool: its name, its scope and its devices in the API's form. */
  record PoolView(String name, ScopeView scope, List<Device> devices) {
    record ScopeView(PoolScope.Kind kind, Optional<NodeSelector> nodeSelector) {}

    static PoolView of(Pool p) {
      return new PoolView(
          p.name(), new ScopeView(p.scope().kind(), p.scope().nodeSelector()), p.devices());
    }
  }

  @Command(
      name = "run",
      sortOptions = false,
      usageHelpWidth = 100,
      description = {
        "Publishes the fabric's pools and keeps them on the API server until stopped (SIGTERM).",
        "Run one per driver in the cluster: it takes every ResourceSlice of the driver without a"
            + " node name as its own, and deletes those of pools it does not publish."
      })
  static final class Run extends Subcommand {
    @Option(
        names = "--rack",
        paramLabel = "NAME=PORTS",
        description = {
          "a rack and its switch ports (repeatable): pool rack-NAME, for the nodes labelled"
              + " RACK-LABEL=NAME"
        })
    Map<String, Integer> racks = new LinkedHashMap<>();

    @Option(
        names = "--rack-label",
        paramLabel = "KEY",
        defaultValue = Fabric.DEFAULT_RACK_LABEL,
        description = "the node label naming a node's rack; default: ${DEFAULT-VALUE}")
    String rackLabel;

    @Option(
        names = "--accelerators",
        paramLabel = "N",
        defaultValue = "0",
        description =
            "accelerators every node reaches: pool shared (allNodes); default: ${DEFAULT-VALUE}")
    int accelerators;

    @Option(
        names = "--attached",
        paramLabel = "NODE=COUNT",
        description = {
          "NVMe namespaces attached to one node (repeatable): pool attached, per-device node"
              + " selection"
        })
    Map<String, Integer> attached = new LinkedHashMap<>();

    @Option(
        names = "--owner-device-class",
        paramLabel = "NAME",
        description = {
          "the DeviceClass that owns the slices (its uid is read once at start): deleting it"
              + " deletes them; default: no owner, slices stay until cleanup"
        })
    String ownerClass;

    @Option(
        names = "--sync-delay",
        paramLabel = "DURATION",
        converter = DurationConverter.class,
        description = {
          "how long after somebody else changed a slice it is repaired; default: ${DEFAULT-VALUE},"
              + " the Go helper's"
        })
    Duration syncDelay;

    @Option(
        names = "--once",
        description = "exit once the pools are on the API server (0), or when --timeout passes (1)")
    boolean once;

    @Option(
        names = "--dry-run",
        description = "print the pools as JSON and exit, without a cluster")
    boolean dryRun;

    @Mixin Connection connection;

    Run(Map<String, String> env, PrintStream out, PrintStream err) {
      super(env, out, err);
    }

    @Override
    public Integer call() throws Exception {
      List<Pool> pools = new Fabric(rackLabel, racks, accelerators, attached).pools();
      if (dryRun) {
        List<PoolView> view = pools.stream().map(PoolView::of).toList();
        out.println(KubeJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(view));
        return 0;
      }
      String driver = connection.driverName(env);
      try (HttpKubeClient client = connection.client(env)) {
        ResourceSlicePublisher.Builder builder =
            ResourceSlicePublisher.builder(client, driver).pools(pools);
        if (ownerClass != null) {
          DeviceClass owner = client.get(DeviceClass.TYPE, "", ownerClass);
          builder.owner("resource.k8s.io/v1", "DeviceClass", ownerClass, owner.metadata().uid());
        }
        builder.syncDelay(syncDelay);
        int devices = pools.stream().mapToInt(p -> p.devices().size()).sum();
        try (ResourceSlicePublisher publisher = builder.start()) {
          if (once) {
            boolean idle = publisher.awaitIdle(connection.timeout);
            PublisherStats stats = publisher.stats();
            out.printf(
                "driver %s: %d pools, %d devices: %s (%d creates, %d updates, %d deletes)%n",
                driver,
                pools.size(),
                devices,
                idle ? "published" : "NOT published within " + connection.timeout,
                stats.creates(),
                stats.updates(),
                stats.deletes());
            return idle && stats.validationFailures() == 0 ? 0 : EXIT_FAILED;
          }
          err.printf(
              "driver %s: publishing %d pools of %d devices; SIGTERM stops (the slices stay)%n",
              driver, pools.size(), devices);
          CountDownLatch stopped = new CountDownLatch(1);
          Runtime.getRuntime()
              .addShutdownHook(new Thread(stopped::countDown, "fabric-publisher-stop"));
          stopped.await();
        }
      }
      return 0;
    }
  }

  @Command(
      name = "cleanup",
      sortOptions = false,
      usageHelpWidth = 100,
      description = {
        "Deletes every ResourceSlice of the driver without a node name, and exits: the uninstall"
            + " of a driver whose slices have no owner. Stop `run` first: it would publish them"
            + " again."
      })
  static final class Cleanup extends Subcommand {
    @Mixin Connection connection;

    Cleanup(Map<String, String> env, PrintStream out, PrintStream err) {
      super(env, out, err);
    }

    @Override
    public Integer call() throws Exception {
      String driver = connection.driverName(env);
      try (HttpKubeClient client = connection.client(env);
          ResourceSlicePublisher publisher =
              ResourceSlicePublisher.builder(client, driver).pools(List.of()).start()) {
        if (!publisher.awaitIdle(connection.timeout)) {
          err.printf(
              "error: driver %s: slices not deleted within %s (%d deleted)%n",
              driver, connection.timeout, publisher.stats().deletes());
          return EXIT_FAILED;
        }
        out.printf(
            "driver %s: %d ResourceSlices without a node name deleted%n",
            driver, publisher.stats().deletes());
        return 0;
      }
    }
  }

  @Command(
      name = "deviceclass",
      sortOptions = false,
      usageHelpWidth = 100,
      description = {
        "Prints a resource.k8s.io/v1 DeviceClass per device kind, <kind>.<driver>, for kubectl"
            + " apply -f -."
      })
  static final class DeviceClasses extends Subcommand {
    @Option(
        names = "--driver-name",
        paramLabel = "NAME",
        description =
            "the DRA driver; environment variable DRIVER_NAME; default: " + DEFAULT_DRIVER_NAME)
    String driverName;

    DeviceClasses(Map<String, String> env, PrintStream out, PrintStream err) {
      super(env, out, err);
    }

    @Override
    public Integer call() {
      String driver = FabricPublisherMain.driverName(driverName, env);
      String separator = "";
      for (String kind : Fabric.KINDS) {
        out.print(separator);
        out.print(
            """
            apiVersion: resource.k8s.io/v1
            kind: DeviceClass
            metadata:
              name: %s.%s
            spec:
              selectors:
              - cel:
                  expression: "device.driver == '%s' && device.attributes['%s'].kind == '%s'"
            """
                .formatted(kind, driver, driver, driver, kind));
        separator = "---\n";
      }
      return 0;
    }
  }

  /** Go-style durations as Kubernetes flags write them: {@code 500ms}, {@code 30s}, {@code 2m}. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern FORMAT = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
      Matcher m = FORMAT.matcher(value);
      if (!m.matches()) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a duration such as 500ms, 30s, 2m or 1h");
      }
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }

    /** The form {@link #convert} reads. */
    static String format(Duration d) {
      return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
  }
}
