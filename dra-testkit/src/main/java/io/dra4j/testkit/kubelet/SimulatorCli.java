package io.dra4j.testkit.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * The simulator's command line: {@code watch}, {@code list}, {@code prepare}, {@code unprepare},
 * {@code health}.
 */
final class SimulatorCli {

  static final String USAGE =
      String.join(
          "\n",
          "Usage: kubelet-simulator <command> [options] [claims]",
          "",
          "Plays the kubelet for DRA drivers: registers the plugin sockets found in the",
          "registration directory (GetInfo, NotifyRegistrationStatus) and calls them.",
          "",
          "Commands:",
          "  watch                      print registrations as they happen, until interrupted",
          "  list                       wait --wait seconds, print the registered plugins, exit",
          "  prepare   NS/NAME/UID...   NodePrepareResources on --driver",
          "  unprepare NS/NAME/UID...   NodeUnprepareResources on --driver",
          "  health                     print health reports of --driver",
          "",
          "Options:",
          "  --registry DIR   registration directory (default /var/lib/kubelet/plugins_registry)",
          "  --driver NAME    driver name (prepare, unprepare, health)",
          "  --version V      v1 or v1beta1 (prepare, unprepare); v1 or v1alpha1 (health);",
          "                   default: what the kubelet would pick",
          "  --wait SECONDS   how long to wait for registration (default 10; list: 2)",
          "  --count N        health reports to print (default 1; 0 = until interrupted)",
          "",
          "Registering sends NotifyRegistrationStatus to each plugin, as a kubelet does.",
          "Exit status: 0 ok, 1 a call or a claim failed, 2 bad usage.");

  private SimulatorCli() {}

  static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
      out.println(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    String command = args[0];
    Map<String, String> options = new HashMap<>();
    List<String> positional = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (a.startsWith("--")) {
        if (i + 1 >= args.length) {
          err.println("option " + a + " needs a value\n\n" + USAGE);
          return 2;
        }
        options.put(a.substring(2), args[++i]);
      } else {
        positional.add(a);
      }
    }
    for (String key : options.keySet()) {
      if (!List.of("registry", "driver", "version", "wait", "count").contains(key)) {
        err.println("unknown option --" + key + "\n\n" + USAGE);
        return 2;
      }
    }
    Path registry = Path.of(options.getOrDefault("registry", "/var/lib/kubelet/plugins_registry"));
    try {
      switch (command) {
        case "watch":
          return watch(registry, out);
        case "list":
          return list(registry, seconds(options, "2"), out);
        case "prepare":
        case "unprepare":
          return call(command, registry, options, claims(positional), out, err);
        case "health":
          return health(registry, options, out, err);
        default:
          err.println("unknown command " + command + "\n\n" + USAGE);
          return 2;
      }
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      return 2;
    } catch (IllegalStateException e) {
      err.println(e.getMessage());
      return 1;
    }
  }

  private static int watch(Path registry, PrintStream out) throws InterruptedException {
    try (KubeletSimulator simulator = KubeletSimulator.start(registry)) {
      out.println("watching " + simulator.registryDirectory() + " (Ctrl-C to stop)");
      simulator.addListener(out::println);
      new CountDownLatch(1).await();
      return 0;
    }
  }

  private static int list(Path registry, Duration wait, PrintStream out)
      throws InterruptedException {
    try (KubeletSimulator simulator = KubeletSimulator.start(registry)) {
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

  private static int call(
      String command,
      Path registry,
      Map<String, String> options,
      List<ClaimRef> claims,
      PrintStream out,
      PrintStream err)
      throws InterruptedException {
    if (claims.isEmpty()) {
      throw new IllegalArgumentException(command + " needs at least one claim NS/NAME/UID");
    }
    try (KubeletSimulator simulator = KubeletSimulator.start(registry)) {
      PluginInstance plugin =
          simulator.awaitPlugin(required(options, "driver"), seconds(options, "10"));
      DraVersion version =
          Optional.ofNullable(options.get("version"))
              .map(DraVersion::parse)
              .orElse(plugin.draVersion());
      try {
        boolean ok = true;
        if (command.equals("prepare")) {
          for (Map.Entry<String, ClaimResult> e : plugin.prepare(version, claims).entrySet()) {
            ClaimResult r = e.getValue();
            ok &= r.isOk();
            out.println(
                "claim " + e.getKey() + ": " + r.error().map(m -> "error: " + m).orElse("ok"));
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
        } else {
          for (Map.Entry<String, Optional<String>> e :
              plugin.unprepare(version, claims).entrySet()) {
            ok &= e.getValue().isEmpty();
            out.println(
                "claim " + e.getKey() + ": " + e.getValue().map(m -> "error: " + m).orElse("ok"));
          }
        }
        return ok ? 0 : 1;
      } catch (StatusRuntimeException e) {
        err.println(command + " failed: " + e.getStatus());
        return 1;
      }
    }
  }

  private static int health(
      Path registry, Map<String, String> options, PrintStream out, PrintStream err)
      throws InterruptedException {
    int count = Integer.parseInt(options.getOrDefault("count", "1"));
    try (KubeletSimulator simulator = KubeletSimulator.start(registry)) {
      PluginInstance plugin =
          simulator.awaitPlugin(required(options, "driver"), seconds(options, "10"));
      HealthVersion version =
          options.containsKey("version")
              ? HealthVersion.parse(options.get("version"))
              : plugin.healthVersion().orElse(HealthVersion.V1);
      try (HealthWatch watch = plugin.watchHealth(version)) {
        for (int i = 0; count == 0 || i < count; i++) {
          Optional<HealthReport> report = watch.next(Duration.ofSeconds(60));
          if (report.isEmpty()) {
            Status end =
                watch
                    .termination()
                    .orElse(Status.DEADLINE_EXCEEDED.withDescription("no report within 60s"));
            err.println(version.service() + " stream ended: " + end);
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

  static List<ClaimRef> claims(List<String> specs) {
    List<ClaimRef> claims = new ArrayList<>();
    for (String spec : specs) {
      String[] parts = spec.split("/", -1);
      if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
        throw new IllegalArgumentException("claim \"" + spec + "\" must be NAMESPACE/NAME/UID");
      }
      claims.add(new ClaimRef(parts[0], parts[1], parts[2]));
    }
    return claims;
  }

  private static String required(Map<String, String> options, String key) {
    String value = options.get(key);
    if (value == null) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return value;
  }

  private static Duration seconds(Map<String, String> options, String fallback) {
    String value = options.getOrDefault("wait", fallback);
    try {
      return Duration.ofMillis((long) (Double.parseDouble(value) * 1000));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--wait must be a number of seconds, got " + value);
    }
  }
}
