package io.dra4j.dev;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.DeviceClaim;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.launcher.DriverFlags;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.allocator.UnsatisfiableClaimException;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.ClaimResult;
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
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code train -- java <flags> -jar driver.jar run}: runs the driver's real {@code run} command as
 * a child process, the way a node does, and plays the cluster around it: the test kit's API server
 * (with the Node and a DeviceClass) and a kubelet simulator that registers the driver and prepares
 * and unprepares claims over its socket, first from one caller and then from several at once. Then
 * it stops the driver with SIGTERM, as a rolling update does, and waits for it to exit.
 *
 * <p>It exists for the JVM's training runs when an image is built: a class-data-sharing archive
 * ({@code -XX:ArchiveClassesAtExit}) or a JDK 25 AOT cache ({@code -XX:AOTCacheOutput}) written by
 * the child at exit then holds what {@code run} loads and runs on a node, and nothing else: the API
 * server and the simulator live in this process, not in the trained one. The driver's own flags
 * ({@code --driver-name}, {@code --node-name}, {@code --kubeconfig} and its directories) are
 * appended to the given command line; provider settings go in the command line itself.
 */
@Command(
    name = "train",
    sortOptions = false,
    showDefaultValues = true,
    description = {
      "Runs the driver's command line (after --, ending in `run`) against the test kit's API"
          + " server and a kubelet simulator: registration, published slices, prepares and"
          + " unprepares from one caller and from several, then SIGTERM.",
      "For the JVM's training run when an image is built, e.g. -- java"
          + " -XX:ArchiveClassesAtExit=/app/driver.jsa -jar /app/driver.jar run"
    })
public final class TrainCommand implements Callable<Integer> {
  /** The JVM's exit status after SIGTERM once the driver's graceful close ran (128 + 15). */
  private static final int STOPPED_BY_SIGTERM = 143;

  private static final String NAMESPACE = "default";

  /** The node when neither --node-name nor NODE_NAME says otherwise. */
  private static final String NODE = "training-node";

  /** The flags train shares with run, each read as run reads it. */
  private static final List<DriverFlags.Flag> FLAGS =
      List.of(DriverFlags.DRIVER_NAME, DriverFlags.NODE_NAME.showing(NODE));

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "print this help")
  boolean help;

  @Option(
      names = "--pairs",
      paramLabel = "N",
      description =
          "prepare+unprepare pairs from one caller, then as many from --callers callers; 0 for a"
              + " provider that cannot prepare where the image is built (registration and"
              + " publishing only)")
  int pairs = 200;

  @Option(
      names = "--callers",
      paramLabel = "N",
      description =
          "concurrent callers of the second phase, each on its own device (fewer when the driver"
              + " has fewer)")
  int callers = 8;

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      description = "the longest wait for each step: registration, slices, the driver's exit")
  int timeoutSeconds = 120;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "an empty work directory, kept: kubeconfig, the driver's directories and its log,"
              + " driver.log (default: a new temporary one, removed on exit)")
  Optional<Path> dir;

  @Parameters(
      paramLabel = "COMMAND",
      arity = "1..*",
      description = "the driver's command line, after --, e.g. java -jar driver.jar run")
  List<String> command = new ArrayList<>();

  @CommandLine.Spec CommandSpec spec;

  private final PrintStream out;
  private String driverName;
  private String nodeName;

  private TrainCommand(PrintStream out) {
    this.out = out;
  }

  /**
   * Runs {@code train}.
   *
   * @param defaults a launcher's own defaults by flag name without dashes ({@code driver-name}),
   *     used when neither the flag nor its environment variable is given
   * @return the exit status: 0 when every call succeeded and the driver stopped cleanly, 1 when a
   *     step failed, 2 for bad usage
   */
  public static int run(
      List<String> args,
      Map<String, String> defaults,
      Map<String, String> env,
      PrintStream out,
      PrintStream err) {
    TrainCommand command = new TrainCommand(out);
    CommandLine cli = DriverFlags.commandLine(command, false, out, err);
    cli.addMixin(
        "driver",
        DriverFlags.mixin(DevCommand.withDefault(defaults, "node-name", NODE), env, FLAGS));
    cli.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          c.getErr().println("train failed: " + e.getMessage());
          return 1;
        });
    return cli.execute(args.toArray(String[]::new));
  }

  @Override
  public Integer call() throws Exception {
    CommandSpec flags = spec.mixins().get("driver");
    driverName = DriverFlags.value(flags, DriverFlags.DRIVER_NAME).orElse("");
    nodeName = DriverFlags.value(flags, DriverFlags.NODE_NAME).orElse(NODE);
    if (driverName.isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--driver-name (or DRIVER_NAME) is required, e.g. gpu.example.com");
    }
    if (pairs < 0 || callers < 1 || timeoutSeconds < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--pairs must be at least 0, --callers and --timeout at least 1");
    }
    Duration timeout = Duration.ofSeconds(timeoutSeconds);
    Path work =
        dir.isPresent()
            ? Files.createDirectories(dir.get())
            : Files.createTempDirectory("dra4j-train-");
    try (Stream<Path> left = Files.list(work)) {
      if (left.findAny().isPresent()) {
        // A previous run's checkpoints and sockets would make this one a different run.
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--dir " + work + " must be empty or not exist yet");
      }
    }
    Path log = work.resolve("driver.log");
    FakeApiServer api = FakeApiServer.builder().allowAnonymous(true).build().startServer();
    Process driver = null;
    try (HttpKubeClient client = api.newClient();
        KubeletSimulator kubelet = KubeletSimulator.start(work.resolve("plugins_registry"))) {
      api.putNode(nodeName);
      client.create(
          DeviceClass.TYPE,
          KubeJson.yaml()
              .readValue(
                  DeviceClassGenerator.yaml(
                      driverName, driverName, Optional.of(driverName + "/device"), List.of()),
                  DeviceClass.class));
      driver = start(api.writeKubeconfig(work.resolve("kubeconfig")), kubelet, work, log);
      PluginInstance plugin = awaitPlugin(kubelet, driver, timeout, log);
      awaitSlices(api, driver, timeout, log);
      if (pairs > 0) {
        List<ResourceClaim> allocated = allocate(client);
        int served = phase(api, plugin, allocated.subList(0, 1), pairs);
        served += phase(api, plugin, allocated, pairs);
        out.printf(
            "train: %d prepares and unprepares answered (1 caller, then %d)%n",
            served, allocated.size());
      }
      int status = stop(driver, timeout, log);
      if (status != STOPPED_BY_SIGTERM && status != 0) {
        // Whatever the training is for happens at the exit (an archive, a cache): it failed.
        throw failure("exited with status " + status + " after SIGTERM", log);
      }
      out.printf("train: the driver stopped on SIGTERM with exit status %d%n", status);
      return 0;
    } finally {
      if (driver != null && driver.isAlive()) {
        driver.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      api.close();
      if (dir.isEmpty()) {
        AtomicFiles.deleteTreeQuietly(work);
      }
    }
  }

  private Process start(Path kubeconfig, KubeletSimulator kubelet, Path work, Path log)
      throws IOException {
    List<String> line = new ArrayList<>(command);
    line.addAll(
        List.of(
            "--driver-name",
            driverName,
            "--node-name",
            nodeName,
            "--kubeconfig",
            kubeconfig.toString(),
            "--registrar-dir",
            kubelet.registryDirectory().toString(),
            "--plugin-dir",
            work.resolve("plugins").resolve(driverName).toString(),
            "--cdi-dir",
            work.resolve("cdi").toString(),
            // A free port: the status endpoint starts as on a node, and never clashes.
            "--health-port",
            "0"));
    out.println("train: " + String.join(" ", line));
    ProcessBuilder builder =
        new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile());
    // The node's log level, whatever the environment says: the training loads what a node runs.
    builder.environment().remove(DriverFlags.LOG_LEVEL.env());
    return builder.start();
  }

  private PluginInstance awaitPlugin(
      KubeletSimulator kubelet, Process driver, Duration timeout, Path log) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      alive(driver, log, "registered");
      try {
        return kubelet.awaitPlugin(driverName, Duration.ofMillis(200));
      } catch (IllegalStateException notYet) {
        if (System.nanoTime() > deadline) {
          throw failure("did not register within " + timeout.toSeconds() + " s", log);
        }
      }
    }
  }

  private void awaitSlices(FakeApiServer api, Process driver, Duration timeout, Path log)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (api.objects(ResourceSlice.TYPE).stream().noneMatch(s -> !s.spec().devices().isEmpty())) {
      alive(driver, log, "published a device");
      if (System.nanoTime() > deadline) {
        throw failure("published no device within " + timeout.toSeconds() + " s", log);
      }
      Thread.sleep(20);
    }
  }

  /** One claim allocated per caller, each on its own device: the templates of the calls. */
  private List<ResourceClaim> allocate(HttpKubeClient client) throws Exception {
    ClusterAllocator allocator = new ClusterAllocator(client);
    List<ResourceClaim> allocated = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      String name = "training-" + i;
      client.create(
          ResourceClaim.TYPE,
          ResourceClaim.of(
              ObjectMeta.named(NAMESPACE, name),
              ResourceClaimSpec.of(
                  DeviceClaim.of(
                      List.of(
                          DeviceRequest.exactly(
                              "device", ExactDeviceRequest.of(driverName, 1)))))));
      try {
        allocated.add(allocator.allocateClaim(NAMESPACE, name, nodeName).claim());
      } catch (UnsatisfiableClaimException noDeviceLeft) {
        if (allocated.isEmpty()) {
          throw new IllegalStateException(
              "no device of the driver could be allocated: " + noDeviceLeft.getMessage());
        }
        break;
      }
    }
    return allocated;
  }

  /**
   * {@code count} prepare+unprepare pairs spread over the callers, each call on a fresh claim
   * allocated like its caller's template, as the scheduler leaves one.
   */
  private int phase(
      FakeApiServer api, PluginInstance plugin, List<ResourceClaim> templates, int count)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(templates.size());
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (ResourceClaim template : templates) {
        done.add(
            pool.submit(
                () -> {
                  int served = 0;
                  for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    pair(api, plugin, template, i);
                    served++;
                  }
                  return served;
                }));
      }
      int served = 0;
      for (Future<Integer> f : done) {
        try {
          served += f.get();
        } catch (ExecutionException e) {
          // The caller's own error, not the pool's wrapper: it names the claim and the call.
          throw e.getCause() instanceof Exception cause ? cause : e;
        }
      }
      return served;
    } finally {
      pool.shutdownNow();
    }
  }

  private void pair(FakeApiServer api, PluginInstance plugin, ResourceClaim template, int i) {
    String name = template.metadata().name() + "-" + i + "-" + System.nanoTime();
    ResourceClaim fresh =
        api.put(ResourceClaim.TYPE, template.withMetadata(ObjectMeta.named(NAMESPACE, name)));
    ClaimRef ref = ClaimRef.of(NAMESPACE, name, fresh.metadata().uid());
    ClaimResult prepared = plugin.prepare(List.of(ref)).get(ref.uid());
    if (prepared == null || !prepared.isOk()) {
      throw new IllegalStateException(
          "NodePrepareResources of claim "
              + NAMESPACE
              + "/"
              + name
              + " failed: "
              + (prepared == null ? "no result for the claim" : prepared.error().orElse("")));
    }
    Optional<String> error =
        plugin.unprepare(List.of(ref)).getOrDefault(ref.uid(), Optional.empty());
    if (error.isPresent()) {
      throw new IllegalStateException(
          "NodeUnprepareResources of claim " + NAMESPACE + "/" + name + " failed: " + error.get());
    }
  }

  private int stop(Process driver, Duration timeout, Path log) throws Exception {
    // Process.destroy is SIGTERM on Linux: the driver closes as on a node, then the JVM exits and
    // writes what the training's flags ask for (the archive, the cache).
    driver.destroy();
    if (!driver.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      throw failure("did not exit within " + timeout.toSeconds() + " s of SIGTERM", log);
    }
    return driver.exitValue();
  }

  private void alive(Process driver, Path log, String what) throws IOException {
    if (!driver.isAlive()) {
      throw failure("exited with status " + driver.exitValue() + " before it " + what, log);
    }
  }

  private IllegalStateException failure(String what, Path log) throws IOException {
    List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
    return new IllegalStateException(
        "the driver "
            + what
            + "; the end of its log:\n"
            + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
  }
}
