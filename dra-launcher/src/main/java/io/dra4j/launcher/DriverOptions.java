package io.dra4j.launcher;

import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.internal.IpLiteral;
import io.dra4j.launcher.logging.LineLogging;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.internal.health.HealthHub;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.event.Level;

/**
 * The command line of a driver: what {@link DriverMain} parses and turns into a {@link DraDriver}.
 *
 * <p>Flags take {@code --name value} or {@code --name=value}; {@link #usage} lists each with its
 * default and, where it has one, its environment variable (the flags deployments set per pod:
 * {@code DRIVER_NAME}, {@code NODE_NAME}, {@code KUBECONFIG}, {@code POD_UID}, {@code
 * HEALTH_ADDRESS} and {@code LOG_LEVEL}). A flag beats its variable, which beats the launcher's own
 * default, which beats the built-in one (the constant of the class that owns the concept). A flag
 * this class does not know is a provider setting: {@code --devices 8} reaches the provider as
 * {@code devices=8} (see each provider's documentation); {@code --config key=value} does the same
 * explicitly.
 *
 * @param driverName DRA driver name
 * @param nodeName this node
 * @param kubeconfig kubeconfig file; empty for in-cluster configuration
 * @param registrarDirectory the kubelet's plugin registry
 * @param pluginDirectory this driver's private directory (sockets, checkpoints, lock)
 * @param cdiDirectory where CDI specs are written
 * @param podUid enables rolling updates when set
 * @param provider which provider to use when several are on the class path
 * @param sysfsRoot the host's /sys as this process sees it
 * @param devRoot the host's /dev as this process sees it
 * @param healthPort port of the health/status endpoint; 0 picks one, -1 disables it
 * @param healthAddress the one address the health/status endpoint listens on; empty for every local
 *     address (IPv4 and IPv6)
 * @param extendedResourceConflict what to do when a device plugin still serves a name
 * @param healthTaintEffect the effect of taints on unhealthy devices
 * @param healthRecoveryDelay how long a device must stay healthy before its taint is lifted
 * @param deviceMetadata write KEP-5304 metadata files
 * @param warmUp exercise the prepare path before registering with the kubelet while another
 *     instance serves it (a rolling update)
 * @param kubeApiQps client-side rate limit of API calls per second
 * @param kubeApiBurst burst allowed above the rate
 * @param logLevel the threshold of the launcher's log lines ({@link LineLogging})
 * @param providerConfig provider settings
 */
public record DriverOptions(
    String driverName,
    String nodeName,
    Optional<Path> kubeconfig,
    Path registrarDirectory,
    Path pluginDirectory,
    Path cdiDirectory,
    Optional<String> podUid,
    Optional<String> provider,
    Path sysfsRoot,
    Path devRoot,
    int healthPort,
    Optional<InetAddress> healthAddress,
    ExtendedResourceGuard.Policy extendedResourceConflict,
    TaintEffect healthTaintEffect,
    Duration healthRecoveryDelay,
    boolean deviceMetadata,
    boolean warmUp,
    double kubeApiQps,
    int kubeApiBurst,
    Level logLevel,
    Map<String, String> providerConfig) {

  public static final int DEFAULT_HEALTH_PORT = 8081;

  /** The environment variable of {@code --log-level}. */
  public static final String LOG_LEVEL_ENV = "LOG_LEVEL";

  public DriverOptions {
    providerConfig = Collections.unmodifiableMap(new TreeMap<>(providerConfig));
  }

  /**
   * One flag of {@code run}: its value label ({@code ""} for a switch), its environment variable
   * ({@code ""} for none), its built-in default ({@code ""} when absence means something, said by
   * {@code absent}), and what it does.
   */
  private record Flag(
      String name, String label, String env, String defaultValue, String absent, String help) {
    boolean isSwitch() {
      return label.isEmpty();
    }
  }

  private static Flag flag(String name, String label, String defaultValue, String help) {
    return new Flag(name, label, "", defaultValue, "", help);
  }

  private static final int USAGE_WIDTH = 100;

  /** A switch's values, also without {@code =}: {@code --device-metadata false}. */
  private static final List<String> SWITCH_VALUES = List.of("true", "false");

  /** Every flag, in the order of --help; the defaults are their owners' constants. */
  private static final List<Flag> FLAGS =
      List.of(
          new Flag("driver-name", "NAME", "DRIVER_NAME", "", "none, required", "DRA driver name"),
          new Flag("node-name", "NAME", "NODE_NAME", "", "none, required", "this node"),
          new Flag(
              "kubeconfig",
              "FILE",
              "KUBECONFIG",
              "",
              "in-cluster configuration",
              "kubeconfig of the API server and the driver's credentials"),
          flag(
              "registrar-dir",
              "DIR",
              SocketNames.DEFAULT_REGISTRAR_DIRECTORY.toString(),
              "the kubelet's plugin registry"),
          new Flag(
              "plugin-dir",
              "DIR",
              "",
              "",
              SocketNames.defaultPluginDataDirectory("<driver-name>").toString(),
              "this driver's own directory: sockets, checkpoint, lock"),
          flag("cdi-dir", "DIR", CdiSpecWriter.DEFAULT_DIRECTORY.toString(), "where CDI specs go"),
          new Flag(
              "pod-uid",
              "UID",
              "POD_UID",
              "",
              "none, rolling updates off",
              "this pod's UID (downward API): enables seamless rolling updates"),
          new Flag(
              "provider",
              "NAME",
              "",
              "",
              "the only one on the class path",
              "the DeviceProvider to use when several are on the class path"),
          flag(
              "sysfs-root",
              "DIR",
              ProviderContext.DEFAULT_SYSFS_ROOT.toString(),
              "the host's /sys as this process sees it"),
          flag(
              "dev-root",
              "DIR",
              ProviderContext.DEFAULT_DEV_ROOT.toString(),
              "the host's /dev as this process sees it"),
          flag(
              "health-port",
              "PORT",
              Integer.toString(DEFAULT_HEALTH_PORT),
              "port of /healthz, /readyz, /status and /metrics; 0 picks one, -1 turns them off"),
          new Flag(
              "health-address",
              "IP",
              "HEALTH_ADDRESS",
              "",
              "every local address (IPv4 and IPv6)",
              "the one address that port listens on, e.g. 127.0.0.1 or the pod's IP"),
          flag(
              "extended-resource-conflict",
              "wait|warn|fail",
              ExtendedResourceGuard.DEFAULT_POLICY.name().toLowerCase(Locale.ROOT),
              "what to do while a device plugin still serves this driver's extended resource"),
          flag(
              "health-taint-effect",
              "None|NoSchedule|NoExecute",
              HealthHub.DEFAULT_TAINT_EFFECT.apiName(),
              "the effect of the taint on an unhealthy device"),
          flag(
              "health-recovery-delay",
              "DURATION",
              formatDuration(HealthHub.DEFAULT_RECOVERY_DELAY),
              "how long a device stays healthy before its taint is lifted (500ms, 30s, 2m, 1h)"),
          flag("device-metadata", "", "false", "write KEP-5304 device metadata files"),
          flag(
              "no-warm-up",
              "",
              "false",
              "never warm up the prepare path before registering (otherwise: while another"
                  + " instance serves)"),
          flag(
              "kube-api-qps",
              "N",
              formatNumber(HttpKubeClient.DEFAULT_QPS),
              "API requests per second"),
          flag(
              "kube-api-burst",
              "N",
              Integer.toString(HttpKubeClient.DEFAULT_BURST),
              "API requests allowed in a burst above the rate"),
          new Flag(
              "log-level",
              "error|warn|info|debug|trace",
              LOG_LEVEL_ENV,
              LineLogging.DEFAULT_LEVEL.name().toLowerCase(Locale.ROOT),
              "",
              "the threshold of the log lines on standard error"),
          new Flag(
              "config",
              "KEY=VALUE",
              "",
              "",
              "none",
              "a provider setting (repeatable); any other --KEY VALUE is one too, e.g."
                  + " --devices 8"));

  /**
   * The help of {@code run}: every flag with its default (the launcher's own where it has one) and
   * its environment variable.
   *
   * @param defaults a launcher's own defaults, as for {@link #parse}
   */
  public static String usage(Map<String, String> defaults) {
    List<HelpText.Row> rows = new ArrayList<>();
    rows.add(HelpText.HELP);
    for (Flag f : FLAGS) {
      String shown = defaults.getOrDefault(f.name(), f.defaultValue());
      String name = "    --" + f.name() + (f.isSwitch() ? "[=true|false]" : "=" + f.label());
      rows.add(
          new HelpText.Row(
              name,
              f.help(),
              "default: "
                  + (shown.isEmpty() ? f.absent() : shown)
                  + (f.env().isEmpty() ? "" : "; environment variable " + f.env())));
    }
    return new HelpText(USAGE_WIDTH)
        .line("Usage: run [OPTIONS]")
        .line("The DRA driver, as its DaemonSet runs it.")
        .rows(rows, 2, HelpText.column(rows, 2, 24))
        .line("")
        .line(
            "Any other --KEY VALUE is a provider setting. Exit status: 143 after SIGTERM (a"
                + " graceful stop), 1 when the driver failed or stopped on its own, 2 for a usage"
                + " or configuration error.")
        .toString();
  }

  /**
   * Parses the command line.
   *
   * @param defaults values for flags given neither on the command line nor in the environment, by
   *     flag name without dashes (a launcher's own defaults, e.g. {@code driver-name})
   * @throws HelpRequested for {@code --help}, carrying the usage
   * @throws IllegalArgumentException naming the flag and the rule
   */
  public static DriverOptions parse(
      List<String> args, Map<String, String> defaults, Map<String, String> env) {
    for (String name : defaults.keySet()) {
      if (find(name).isEmpty() || name.equals("config")) {
        throw new IllegalArgumentException("default for unknown flag --" + name);
      }
    }
    Map<String, List<String>> matched = new HashMap<>();
    List<String> unmatched = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (HelpText.isHelp(arg)) {
        throw new HelpRequested(usage(defaults));
      }
      int eq = arg.indexOf('=');
      Optional<Flag> flag =
          arg.startsWith("--")
              ? find(arg.substring(2, eq > 0 ? eq : arg.length()))
              : Optional.empty();
      if (flag.isEmpty()) {
        // A provider setting, or a mistake providerSettings names.
        unmatched.add(arg);
        continue;
      }
      Flag f = flag.get();
      String value;
      if (eq > 0) {
        value = arg.substring(eq + 1);
      } else if (f.isSwitch()) {
        boolean given = i + 1 < args.size() && SWITCH_VALUES.contains(args.get(i + 1));
        value = given ? args.get(++i) : "true";
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        value = args.get(++i);
      } else {
        // A missing value must not swallow the next flag (a typo'd switch would hide it).
        throw new IllegalArgumentException("flag --" + f.name() + " needs a value");
      }
      matched.computeIfAbsent(f.name(), k -> new ArrayList<>()).add(value);
    }
    Map<String, String> given = new TreeMap<>();
    Map<String, String> providerConfig = providerSettings(unmatched);
    for (Flag f : FLAGS) {
      List<String> values = matched.getOrDefault(f.name(), List.of());
      if (f.name().equals("config")) {
        for (String kv : values) {
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException(
                "flag --config \"" + kv + "\" must have the form KEY=VALUE");
          }
          putOnce(providerConfig, kv.substring(0, eq), kv.substring(eq + 1));
        }
      } else if (values.size() > 1) {
        // Last-one-wins would let a stray line in a DaemonSet silently override the intended value.
        throw new IllegalArgumentException(
            "flag --" + f.name() + " is given twice (" + String.join(", ", values) + ")");
      } else if (values.size() == 1) {
        given.put(f.name(), values.get(0));
      }
    }
    Values v = new Values(given, defaults, env);

    String driver =
        v.get("driver-name")
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "flag --driver-name (or DRIVER_NAME) is required: the DRA driver name,"
                            + " e.g. gpu.example.com"));
    String node =
        v.get("node-name")
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "flag --node-name (or NODE_NAME) is required: the node this driver runs"
                            + " on"));
    Optional<Path> kubeconfig = v.get("kubeconfig").map(DriverOptions::kubeconfigPath);
    Path plugin =
        v.get("plugin-dir").map(Path::of).orElse(SocketNames.defaultPluginDataDirectory(driver));
    int port = integer(v, "health-port");
    if (port < -1 || port > 65535) {
      throw new IllegalArgumentException("flag --health-port " + port + " must be -1 or 0..65535");
    }
    Optional<InetAddress> healthAddress = v.get("health-address").map(DriverOptions::ipAddress);
    ExtendedResourceGuard.Policy policy =
        choice(v, "extended-resource-conflict", ExtendedResourceGuard.Policy.values());
    TaintEffect effect;
    try {
      effect = TaintEffect.fromApiName(v.required("health-taint-effect"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("flag --health-taint-effect: " + e.getMessage(), e);
    }
    Duration recovery = duration(v, "health-recovery-delay");
    String qpsText = v.required("kube-api-qps");
    double qps;
    try {
      qps = Double.parseDouble(qpsText);
    } catch (NumberFormatException e) {
      qps = -1;
    }
    if (!(qps > 0)) {
      throw new IllegalArgumentException(
          "flag --kube-api-qps \"" + qpsText + "\" must be a number above 0");
    }
    int burst = integer(v, "kube-api-burst");
    if (burst < 1) {
      throw new IllegalArgumentException("flag --kube-api-burst " + burst + " must be at least 1");
    }
    Level level;
    try {
      level = LineLogging.parseLevel(v.required("log-level"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("flag --log-level: " + e.getMessage(), e);
    }
    return new DriverOptions(
        driver,
        node,
        kubeconfig,
        Path.of(v.required("registrar-dir")),
        plugin,
        Path.of(v.required("cdi-dir")),
        v.get("pod-uid"),
        v.get("provider"),
        Path.of(v.required("sysfs-root")),
        Path.of(v.required("dev-root")),
        port,
        healthAddress,
        policy,
        effect,
        recovery,
        on(v, "device-metadata"),
        !on(v, "no-warm-up"),
        qps,
        burst,
        level,
        providerConfig);
  }

  /**
   * Provider settings given as flags, {@code --KEY VALUE} or {@code --KEY=VALUE}: what is left of a
   * command line once the launcher's own flags are taken.
   *
   * @throws IllegalArgumentException for a word that is not a flag, a flag without its value, or a
   *     setting given twice
   */
  public static Map<String, String> providerSettings(List<String> args) {
    Map<String, String> settings = new TreeMap<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!a.startsWith("--") || a.length() == 2) {
        throw new IllegalArgumentException(
            "unexpected argument \"" + a + "\": flags have the form --NAME VALUE");
      }
      int eq = a.indexOf('=');
      if (eq > 0) {
        putOnce(settings, a.substring(2, eq), a.substring(eq + 1));
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        putOnce(settings, a.substring(2), args.get(++i));
      } else {
        // A missing value must not swallow the next flag (a typo'd switch would hide it).
        throw new IllegalArgumentException("flag " + a + " needs a value");
      }
    }
    return settings;
  }

  /**
   * Sets everything these options say about the driver on {@code builder}; the launcher's own
   * settings (kubeconfig, provider choice, status port, API rate limit) are not the driver's.
   */
  public DraDriver.Builder applyTo(DraDriver.Builder builder) {
    builder
        .driverName(driverName)
        .nodeName(nodeName)
        .registrarDirectory(registrarDirectory)
        .pluginDirectory(pluginDirectory)
        .cdiDirectory(cdiDirectory)
        .sysfsRoot(sysfsRoot)
        .devRoot(devRoot)
        .config(providerConfig)
        .healthTaintEffect(healthTaintEffect)
        .healthRecoveryDelay(healthRecoveryDelay)
        .extendedResourcePolicy(extendedResourceConflict)
        .deviceMetadata(deviceMetadata)
        .warmUp(warmUp);
    podUid.ifPresent(builder::podUid);
    return builder;
  }

  /**
   * Where the health/status endpoint listens: {@link #healthPort} on {@link #healthAddress}, or on
   * every local address (the wildcard) when none is set.
   */
  public InetSocketAddress healthSocketAddress() {
    return healthAddress
        .map(a -> new InetSocketAddress(a, healthPort))
        .orElseGet(() -> new InetSocketAddress(healthPort));
  }

  /**
   * An IP address as written, never a host name: a name would be resolved once, at start, to
   * whichever of its addresses came first, and the port would listen somewhere nobody asked for.
   */
  private static InetAddress ipAddress(String text) {
    return IpLiteral.parse(text.trim())
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "flag --health-address \""
                        + text
                        + "\" must be an IP address such as 127.0.0.1, ::1 or the pod's IP (a host"
                        + " name is not resolved)"));
  }

  private static Optional<Flag> find(String name) {
    return FLAGS.stream().filter(f -> f.name().equals(name)).findFirst();
  }

  /** Flag, else environment (a blank variable counts as unset), else the launcher's default. */
  private record Values(
      Map<String, String> given, Map<String, String> defaults, Map<String, String> env) {
    Optional<String> get(String name) {
      Flag f = find(name).orElseThrow();
      return Optional.ofNullable(given.get(name))
          .or(() -> f.env().isEmpty() ? Optional.empty() : Optional.ofNullable(env.get(f.env())))
          .filter(value -> !value.isBlank())
          .or(() -> Optional.ofNullable(defaults.get(name)))
          .or(() -> Optional.of(f.defaultValue()).filter(d -> !d.isEmpty()));
    }

    String required(String name) {
      return get(name).orElseThrow();
    }
  }

  private static void putOnce(Map<String, String> target, String name, String value) {
    String before = target.putIfAbsent(name, value);
    if (before != null) {
      throw new IllegalArgumentException(
          "flag --" + name + " is given twice (" + before + ", " + value + ")");
    }
  }

  private static boolean on(Values v, String name) {
    String value = v.required(name);
    if (!SWITCH_VALUES.contains(value)) {
      throw new IllegalArgumentException(
          "flag --" + name + "=" + value + ": a switch is true or false");
    }
    return value.equals("true");
  }

  /** KUBECONFIG may list several files (kubectl merges them); this client reads one. */
  private static Path kubeconfigPath(String value) {
    if (value.contains(":")) {
      throw new IllegalArgumentException(
          "KUBECONFIG \""
              + value
              + "\" lists several files; dra4j reads one kubeconfig: pass it with --kubeconfig");
    }
    return Path.of(value);
  }

  private static int integer(Values values, String name) {
    String v = values.required(name);
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("flag --" + name + " \"" + v + "\" must be an integer", e);
    }
  }

  private static <E extends Enum<E>> E choice(Values values, String name, E[] choices) {
    String v = values.required(name);
    List<String> names = new ArrayList<>();
    for (E e : choices) {
      names.add(e.name().toLowerCase(Locale.ROOT));
      if (e.name().equalsIgnoreCase(v.trim())) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "flag --" + name + " \"" + v + "\" must be one of " + String.join("|", names));
  }

  private static Duration duration(Values values, String name) {
    String v = values.required(name);
    try {
      return parseDuration(v);
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          "flag --" + name + " \"" + v + "\" must be a duration such as 500ms, 30s, 2m or 1h", e);
    }
  }

  /** Parses {@code 90s}, {@code 2m}, {@code 1h}, {@code 500ms} or ISO-8601 {@code PT30S}. */
  static Duration parseDuration(String text) {
    String v = text.trim();
    if (v.startsWith("P") || v.startsWith("p")) {
      return Duration.parse(v);
    }
    String[][] units = {{"ms", "MILLIS"}, {"s", "SECONDS"}, {"m", "MINUTES"}, {"h", "HOURS"}};
    for (String[] u : units) {
      if (v.endsWith(u[0])) {
        long n = Long.parseLong(v.substring(0, v.length() - u[0].length()));
        return Duration.of(n, java.time.temporal.ChronoUnit.valueOf(u[1]));
      }
    }
    throw new IllegalArgumentException("no unit");
  }

  /** The form {@link #parseDuration} reads: {@code 60s}, or {@code 1500ms}. */
  static String formatDuration(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static String formatNumber(double n) {
    return n == Math.rint(n) ? Long.toString((long) n) : Double.toString(n);
  }

  /** Thrown by {@link #parse} for {@code --help}; its message is the usage. */
  public static final class HelpRequested extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    HelpRequested(String usage) {
      super(usage);
    }
  }
}
