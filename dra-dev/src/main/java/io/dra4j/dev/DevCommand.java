package io.dra4j.dev;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.launcher.DriverFlags;
import io.dra4j.launcher.DriverMain;
import io.dra4j.launcher.logging.LineLogging;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.testkit.allocator.ClaimDecision;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.DeviceResult;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code dev}: runs a vendor's provider on this machine with no cluster, the inner loop of writing
 * a driver. It starts the test kit's API server (with the Node, so the driver can publish, and a
 * DeviceClass for the driver's devices), a kubelet simulator, and the real driver on temporary
 * directories; prints the ResourceSlices and a kubeconfig for kubectl; with {@code --claim}
 * allocates one claim on a device of the class and prepares it over the driver's socket, showing
 * the CDI spec. Then it serves until Ctrl-C, or exits with {@code --once}.
 *
 * <p>The provider is the one on the class path ({@code --provider NAME} when there are several);
 * provider settings are {@code --config KEY=VALUE} or any other {@code --KEY VALUE}, as for {@code
 * run}.
 */
@Command(
    name = "dev",
    sortOptions = false,
    showDefaultValues = true,
    description = {
      "Runs this driver locally, no cluster needed: the test kit's API server (with the Node and"
          + " a DeviceClass), a kubelet simulator and the driver, on temporary directories.",
      "Prints the published ResourceSlices and a kubeconfig for kubectl; --claim allocates and"
          + " prepares one claim and shows its CDI spec. Serves until Ctrl-C (--once: exits)."
    })
public final class DevCommand implements Callable<Integer> {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** The node when neither --node-name nor NODE_NAME says otherwise. */
  private static final String NODE = "dev-node";

  /** The flags dev shares with run, each read as run reads it. */
  private static final List<DriverFlags.Flag> FLAGS =
      List.of(
          DriverFlags.DRIVER_NAME,
          DriverFlags.NODE_NAME.showing(NODE),
          DriverFlags.PROVIDER,
          DriverFlags.LOG_LEVEL,
          DriverFlags.CONFIG);

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "print this help")
  boolean help;

  @Option(
      names = "--extended-resource-name",
      paramLabel = "NAME",
      description =
          "the DeviceClass's extendedResourceName (default: <driver-name>/device), so pods"
              + " asking for it would get the driver's devices")
  Optional<String> extendedResourceName;

  @Option(
      names = "--claim",
      description =
          "allocate one claim for a device of the class and prepare it (NodePrepareResources)")
  boolean claim;

  @Option(
      names = "--once",
      description = "exit after the steps (unpreparing the claim) instead of serving until Ctrl-C")
  boolean once;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "work directory: kubeconfig, plugins_registry, plugins, cdi (default: a new temporary"
              + " one, removed on exit)")
  Optional<Path> dir;

  @Option(
      names = "--api-port",
      paramLabel = "PORT",
      description = "the API server's port; 0 picks a free one")
  int apiPort;

  @CommandLine.Unmatched List<String> unmatched = new ArrayList<>();

  @CommandLine.Spec CommandSpec spec;

  private final PrintStream out;
  private String driverName;
  private String nodeName;
  private int step;

  private DevCommand(PrintStream out) {
    this.out = out;
  }

  /**
   * Runs {@code dev}.
   *
   * @param defaults a launcher's own defaults by flag name without dashes ({@code driver-name},
   *     {@code provider}), used when neither the flag nor its environment variable is given
   * @return the exit status: 0, 1 when a step failed, 2 for bad usage
   */
  public static int run(
      List<String> args,
      Map<String, String> defaults,
      Map<String, String> env,
      PrintStream out,
      PrintStream err) {
    DevCommand command = new DevCommand(out);
    CommandLine cli = DriverFlags.commandLine(command, true, out, err);
    cli.addMixin("driver", DriverFlags.mixin(withDefault(defaults, "node-name", NODE), env, FLAGS));
    cli.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          c.getErr().println("dev failed: " + e.getMessage());
          return e instanceof IllegalArgumentException ? 2 : 1;
        });
    return cli.execute(args.toArray(String[]::new));
  }

  /** The launcher's defaults, and this command's own where the launcher has none. */
  static Map<String, String> withDefault(Map<String, String> defaults, String flag, String value) {
    Map<String, String> all = new TreeMap<>(defaults);
    all.putIfAbsent(flag, value);
    return all;
  }

  @Override
  public Integer call() throws Exception {
    CommandSpec flags = spec.mixins().get("driver");
    driverName = DriverFlags.value(flags, DriverFlags.DRIVER_NAME).orElse("");
    if (driverName.isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--driver-name (or DRIVER_NAME) is required, e.g. gpu.example.com");
    }
    nodeName = DriverFlags.value(flags, DriverFlags.NODE_NAME).orElse(NODE);
    Optional<String> provider = DriverFlags.value(flags, DriverFlags.PROVIDER);
    // Before anything logs: the one-line binding, unless the class path brings its own.
    LineLogging.install(
        LineLogging.parseLevel(
            DriverFlags.value(flags, DriverFlags.LOG_LEVEL)
                .orElse(LineLogging.DEFAULT_LEVEL.name())));
    Map<String, String> settings =
        DriverFlags.providerSettings(DriverFlags.values(flags, DriverFlags.CONFIG), unmatched);
    String resourceName = extendedResourceName.orElse(driverName + "/device");
    String classYaml =
        DeviceClassGenerator.yaml(driverName, driverName, Optional.of(resourceName), List.of());
    DeviceProvider chosen = DriverMain.findProvider(provider);

    Path work =
        dir.isPresent()
            ? Files.createDirectories(dir.get())
            : Files.createTempDirectory("dra4j-dev-");
    FakeApiServer api =
        FakeApiServer.builder().port(apiPort).allowAnonymous(true).build().startServer();
    HttpKubeClient client = api.newClient();
    KubeletSimulator kubelet = null;
    DraDriver driver = null;
    try {
      step("The test kit's API server");
      Path kubeconfig = api.writeKubeconfig(work.resolve("kubeconfig"));
      say("serving " + api.url());
      say("kubeconfig " + kubeconfig);
      say(
          "try: kubectl --kubeconfig "
              + kubeconfig
              + " get resourceslices,resourceclaims,deviceclasses,nodes");

      step("The cluster's part: Node " + nodeName + " and DeviceClass " + driverName);
      api.putNode(nodeName);
      client.create(DeviceClass.TYPE, KubeJson.yaml().readValue(classYaml, DeviceClass.class));
      show(classYaml);

      step(
          "The driver: provider \""
              + chosen.name()
              + "\""
              + (settings.isEmpty() ? "" : ", settings " + settings));
      Path registry = work.resolve("plugins_registry");
      kubelet = KubeletSimulator.start(registry);
      driver =
          DraDriver.builder()
              .driverName(driverName)
              .nodeName(nodeName)
              .provider(chosen)
              .enrichers(DriverMain.loadEnrichers())
              .kubeClient(client)
              .registrarDirectory(registry)
              .pluginDirectory(work.resolve("plugins").resolve(driverName))
              .cdiDirectory(work.resolve("cdi"))
              .config(settings)
              .build();
      driver.start();
      PluginInstance plugin = kubelet.awaitPlugin(driverName, WAIT);
      say(
          "registered with the kubelet simulator: "
              + plugin.draVersion().service()
              + plugin.healthVersion().map(h -> ", health " + h.service()).orElse(""));
      if (!driver.awaitPublished(WAIT)) {
        throw new IllegalStateException(
            "the driver did not publish its ResourceSlices within " + WAIT.toSeconds() + " s");
      }
      step("The ResourceSlices the driver published");
      for (ResourceSlice s : api.objects(ResourceSlice.TYPE)) {
        say(
            s.metadata().name()
                + ": pool "
                + s.spec().pool().name()
                + ", "
                + s.spec().devices().size()
                + " devices");
        for (Device d : s.spec().devices()) {
          say("  " + describe(d));
        }
      }

      Optional<ClaimRef> prepared = Optional.empty();
      if (claim) {
        prepared = Optional.of(claimStep(client, plugin, work.resolve("cdi")));
      }
      if (!once) {
        step("Serving; stop with Ctrl-C");
        say("the driver's files are in " + work);
        // Ctrl-C ends the JVM without unwinding this thread: stop the driver (its sockets) and
        // remove the temporary directory from a shutdown hook instead.
        DraDriver running = driver;
        KubeletSimulator simulator = kubelet;
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      running.close();
                      simulator.close();
                      api.close();
                      if (dir.isEmpty()) {
                        AtomicFiles.deleteTreeQuietly(work);
                      }
                    },
                    "dra4j-dev-shutdown"));
        Thread.currentThread().join();
      }
      if (prepared.isPresent()) {
        Optional<String> error =
            plugin.unprepare(List.of(prepared.get())).get(prepared.get().uid());
        if (error.isPresent()) {
          throw new IllegalStateException("NodeUnprepareResources failed: " + error.get());
        }
        say("unprepared " + prepared.get().namespace() + "/" + prepared.get().name());
      }
      return 0;
    } finally {
      if (driver != null) {
        driver.close();
      }
      if (kubelet != null) {
        kubelet.close();
      }
      client.close();
      api.close();
      if (dir.isEmpty()) {
        AtomicFiles.deleteTreeQuietly(work);
      }
    }
  }

  private ClaimRef claimStep(HttpKubeClient client, PluginInstance plugin, Path cdi)
      throws Exception {
    step("A claim for one device of class " + driverName + ", allocated and prepared");
    String claimYaml =
        String.join(
            "\n",
            "apiVersion: resource.k8s.io/v1",
            "kind: ResourceClaim",
            "metadata: {name: dev-claim, namespace: default}",
            "spec:",
            "  devices:",
            "    requests:",
            "    - name: device",
            "      exactly: {deviceClassName: " + driverName + "}",
            "");
    show(claimYaml);
    client.create(ResourceClaim.TYPE, KubeJson.yaml().readValue(claimYaml, ResourceClaim.class));
    ClaimDecision decision =
        new ClusterAllocator(client).allocateClaim("default", "dev-claim", nodeName);
    say(decision.outcome().describe());
    ResourceClaim claim = decision.claim();
    ClaimRef ref = ClaimRef.of("default", "dev-claim", claim.metadata().uid());
    ClaimResult result = plugin.prepare(List.of(ref)).get(ref.uid());
    if (!result.isOk()) {
      throw new IllegalStateException(
          "NodePrepareResources failed: " + result.error().orElse("no reason given"));
    }
    for (DeviceResult d : result.devices()) {
      say("prepared " + d.poolName() + "/" + d.deviceName() + " -> CDI " + d.cdiDeviceIds());
    }
    try (Stream<Path> specs = Files.list(cdi)) {
      for (Path spec : specs.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        say("CDI spec " + spec);
        show(prettyJson(spec));
      }
    }
    return ref;
  }

  private static String describe(Device d) {
    StringBuilder b = new StringBuilder(d.name());
    for (Map.Entry<String, DeviceAttribute> a : new TreeMap<>(d.attributes()).entrySet()) {
      b.append(' ').append(a.getKey()).append('=').append(a.getValue().javaValue());
    }
    d.capacity().forEach((k, v) -> b.append(' ').append(k).append('=').append(v.value()));
    return b.toString();
  }

  private static String prettyJson(Path file) throws IOException {
    return KubeJson.mapper()
        .writerWithDefaultPrettyPrinter()
        .writeValueAsString(KubeJson.mapper().readTree(file.toFile()));
  }

  private void step(String text) {
    out.println();
    out.println("[" + (++step) + "] " + text);
  }

  private void say(String text) {
    out.println("    " + text);
  }

  private void show(String block) {
    for (String line : block.strip().split("\n")) {
      out.println("      | " + line);
    }
  }
}
