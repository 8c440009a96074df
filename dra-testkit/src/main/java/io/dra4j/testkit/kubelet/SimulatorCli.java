package io.dra4j.testkit.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The simulator's command line ({@code java -jar dra-testkit-kubelet-simulator.jar}): {@code
 * watch}, {@code list}, {@code prepare}, {@code unprepare}, {@code health}.
 */
@Command(
    name = "kubelet-simulator",
    synopsisSubcommandLabel = "COMMAND",
    description = {
      "Plays the kubelet for DRA drivers: registers the plugin sockets found in the registration"
          + " directory (GetInfo, then NotifyRegistrationStatus, as a kubelet does) and calls"
          + " them.",
    },
    footer = {"", "Exit status: 0 ok, 1 a call or a claim failed, 2 bad usage."},
    subcommands = {
      SimulatorCli.Watch.class,
      SimulatorCli.ListPlugins.class,
      SimulatorCli.Prepare.class,
      SimulatorCli.Unprepare.class,
      SimulatorCli.Health.class
    })
final class SimulatorCli implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "print this help (COMMAND --help: the command's)")
  boolean help;

  private SimulatorCli() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cli = new CommandLine(new SimulatorCli());
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    // A claim that is not NS/NAME/UID is bad usage (2); a failed call is a failure (1).
    cli.setExecutionExceptionHandler(
        (e, command, parsed) -> {
          command.getErr().println(e.getMessage());
          return e instanceof IllegalArgumentException ? 2 : 1;
        });
    return cli.execute(args);
  }

  /** No command: the usage, as a usage error. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 2;
  }

  /** Options every command shares. */
  static final class Common {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help")
    boolean help;

    @Option(
        names = "--registry",
        paramLabel = "DIR",
        defaultValue = SocketNames.DEFAULT_REGISTRAR_PATH,
        description = "the kubelet's plugin registration directory (default: ${DEFAULT-VALUE})")
    Path registry;

    @Option(
        names = "--wait",
        paramLabel = "SECONDS",
        description =
            "how long to wait for the plugin to register (default: 10; list: 2; fractions allowed)")
    Optional<Double> wait;

    Duration waitFor(double fallbackSeconds) {
      double seconds = wait.orElse(fallbackSeconds);
      if (seconds < 0) {
        throw new IllegalArgumentException("--wait must be 0 or more seconds, got " + seconds);
      }
      return Duration.ofMillis((long) (seconds * 1000));
    }
  }

  /** Options of the commands that call one driver. */
  static final class Target {
    @Mixin Common common;

    @Option(
        names = "--driver",
        paramLabel = "NAME",
        required = true,
        description = "the DRA driver to call, e.g. gpu.example.com")
    String driver;

    @Option(
        names = "--version",
        paramLabel = "V",
        description =
            "API version: v1 or v1beta1 (prepare, unprepare), v1 or v1alpha1 (health)"
                + " (default: what the kubelet would pick from the plugin's supported versions)")
    Optional<String> version;

    PluginInstance await(KubeletSimulator simulator) throws InterruptedException {
      return simulator.awaitPlugin(driver, common.waitFor(10));
    }
  }

  @Command(name = "watch", description = "Print registrations as they happen, until interrupted.")
  static final class Watch implements Callable<Integer> {
    @Mixin Common common;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
      PrintWriter out = spec.commandLine().getOut();
      try (KubeletSimulator simulator = KubeletSimulator.start(common.registry)) {
        out.println("watching " + simulator.registryDirectory() + " (Ctrl-C to stop)");
        simulator.addListener(out::println);
        new CountDownLatch(1).await();
        return 0;
      }
    }
  }

  @Command(
      name = "list",
      description = "Wait --wait seconds, print the registered plugins and what each offers, exit.")
  static final class ListPlugins implements Callable<Integer> {
    @Mixin Common common;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
      PrintWriter out = spec.commandLine().getOut();
      Duration wait = common.waitFor(2);
      try (KubeletSimulator simulator = KubeletSimulator.start(common.registry)) {
        Thread.sleep(wait.toMillis());
        for (SimulatorEvent e : simulator.events()) {
          if (e.kind() == SimulatorEvent.Kind.REJECTED) {
            out.println(e);
          }
        }
        for (PluginInstance p : simulator.plugins()) {
          out.println("REGISTERED " + p.driverName());
          out.println("  registration socket " + p.registrationSocket());
          out.println("  endpoint            " + p.endpoint());
          out.println("  supported_versions  " + p.supportedVersions());
          out.println(
              "  kubelet would use   "
                  + p.draVersion().service()
                  + p.healthVersion().map(h -> ", " + h.service()).orElse(""));
        }
        if (simulator.plugins().isEmpty()) {
          out.println("no plugins registered in " + simulator.registryDirectory());
        }
        return 0;
      }
    }
  }

  /** prepare and unprepare: one call for the claims given. */
  abstract static class ClaimCall implements Callable<Integer> {
    @Mixin Target target;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(
        arity = "1..*",
        paramLabel = "NS/NAME/UID",
        description = "the claims: namespace, name and uid of each")
    List<String> claimSpecs = new ArrayList<>();

    @Override
    public Integer call() throws InterruptedException {
      List<ClaimRef> claims = claims(claimSpecs);
      PrintWriter out = spec.commandLine().getOut();
      try (KubeletSimulator simulator = KubeletSimulator.start(target.common.registry)) {
        PluginInstance plugin = target.await(simulator);
        DraVersion version = target.version.map(DraVersion::parse).orElse(plugin.draVersion());
        try {
          return call(plugin, version, claims, out) ? 0 : 1;
        } catch (StatusRuntimeException e) {
          spec.commandLine().getErr().println(spec.name() + " failed: " + e.getStatus());
          return 1;
        }
      }
    }

    abstract boolean call(
        PluginInstance plugin, DraVersion version, List<ClaimRef> claims, PrintWriter out);
  }

  @Command(
      name = "prepare",
      description = "NodePrepareResources on --driver; prints each claim's devices and CDI ids.")
  static final class Prepare extends ClaimCall {
    @Override
    boolean call(
        PluginInstance plugin, DraVersion version, List<ClaimRef> claims, PrintWriter out) {
      boolean ok = true;
      for (Map.Entry<String, ClaimResult> e : plugin.prepare(version, claims).entrySet()) {
        ClaimResult r = e.getValue();
        ok &= r.isOk();
        out.println("claim " + e.getKey() + ": " + r.error().map(m -> "error: " + m).orElse("ok"));
        for (DeviceResult d : r.devices()) {
          out.println(
              "  device "
                  + d.poolName()
                  + "/"
                  + d.deviceName()
                  + " requests="
                  + d.requestNames()
                  + " cdi="
                  + d.cdiDeviceIds()
                  + d.shareId().map(s -> " shareId=" + s).orElse(""));
        }
      }
      return ok;
    }
  }

  @Command(name = "unprepare", description = "NodeUnprepareResources on --driver.")
  static final class Unprepare extends ClaimCall {
    @Override
    boolean call(
        PluginInstance plugin, DraVersion version, List<ClaimRef> claims, PrintWriter out) {
      boolean ok = true;
      for (Map.Entry<String, Optional<String>> e : plugin.unprepare(version, claims).entrySet()) {
        ok &= e.getValue().isEmpty();
        out.println(
            "claim " + e.getKey() + ": " + e.getValue().map(m -> "error: " + m).orElse("ok"));
      }
      return ok;
    }
  }

  @Command(
      name = "health",
      description = "Print the health reports --driver streams (NodeWatchResources).")
  static final class Health implements Callable<Integer> {
    @Mixin Target target;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--count",
        paramLabel = "N",
        defaultValue = "1",
        description = "reports to print; 0 = until interrupted (default: ${DEFAULT-VALUE})")
    int count;

    @Override
    public Integer call() throws InterruptedException {
      PrintWriter out = spec.commandLine().getOut();
      try (KubeletSimulator simulator = KubeletSimulator.start(target.common.registry)) {
        PluginInstance plugin = target.await(simulator);
        HealthVersion version =
            target
                .version
                .map(HealthVersion::parse)
                .orElse(plugin.healthVersion().orElse(HealthVersion.V1));
        try (HealthWatch watch = plugin.watchHealth(version)) {
          for (int i = 0; count == 0 || i < count; i++) {
            Optional<HealthReport> report = watch.next(Duration.ofSeconds(60));
            if (report.isEmpty()) {
              Status end =
                  watch
                      .termination()
                      .orElse(Status.DEADLINE_EXCEEDED.withDescription("no report within 60s"));
              spec.commandLine().getErr().println(version.service() + " stream ended: " + end);
              return 1;
            }
            out.println(version.service() + ": " + report.get().devices().size() + " devices");
            for (DeviceHealthReport d : report.get().devices()) {
              out.println(
                  "  "
                      + d.poolName()
                      + "/"
                      + d.deviceName()
                      + " "
                      + d.health()
                      + " lastUpdated="
                      + d.lastUpdatedSeconds()
                      + " timeout="
                      + d.healthCheckTimeoutSeconds()
                      + (d.message().isEmpty() ? "" : " message=" + d.message()));
            }
          }
          return 0;
        }
      }
    }
  }

  static List<ClaimRef> claims(List<String> specs) {
    List<ClaimRef> claims = new ArrayList<>();
    for (String spec : specs) {
      String[] parts = spec.split("/", -1);
      if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
        throw new IllegalArgumentException("claim \"" + spec + "\" must be NAMESPACE/NAME/UID");
      }
      claims.add(ClaimRef.of(parts[0], parts[1], parts[2]));
    }
    return claims;
  }
}
