package io.dra4j.runtime;

import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.health.HealthHub;
import io.dra4j.runtime.kube.HttpKubeClient;
import io.dra4j.runtime.kubelet.SocketNames;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The command line of a driver: what {@link DriverMain} parses and turns into a {@link DraDriver}.
 *
 * <p>Flags take {@code --name value} or {@code --name=value}. The flags that deployments set per
 * pod also come from the environment (in brackets): {@code --driver-name} [DRIVER_NAME], {@code
 * --node-name} [NODE_NAME], {@code --kubeconfig} [KUBECONFIG], {@code --pod-uid} [POD_UID]. A flag
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
 * @param extendedResourceConflict what to do when a device plugin still serves a name
 * @param healthTaintEffect the effect of taints on unhealthy devices
 * @param healthRecoveryDelay how long a device must stay healthy before its taint is lifted
 * @param deviceMetadata write KEP-5304 metadata files
 * @param warmUp exercise the prepare path before registering with the kubelet while another
 *     instance serves it (a rolling update)
 * @param kubeApiQps client-side rate limit of API calls per second
 * @param kubeApiBurst burst allowed above the rate
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
    ExtendedResourceGuard.Policy extendedResourceConflict,
    TaintEffect healthTaintEffect,
    Duration healthRecoveryDelay,
    boolean deviceMetadata,
    boolean warmUp,
    double kubeApiQps,
    int kubeApiBurst,
    Map<String, String> providerConfig) {

  public static final int DEFAULT_HEALTH_PORT = 8081;

  public DriverOptions {
    providerConfig = Collections.unmodifiableMap(new TreeMap<>(providerConfig));
  }

  /** Flag reference, printed by {@code --help}. */
  public static final String USAGE =
      String.join(
          "\n",
          "flags (environment variable in brackets):",
          "  --driver-name NAME            DRA driver name [DRIVER_NAME]",
          "  --node-name NAME              this node, required [NODE_NAME]",
          "  --kubeconfig FILE             kubeconfig; in-cluster config when absent [KUBECONFIG]",
          "  --registrar-dir DIR           default " + SocketNames.DEFAULT_REGISTRAR_DIRECTORY,
          "  --plugin-dir DIR              default "
              + SocketNames.defaultPluginDataDirectory("<driver>"),
          "  --cdi-dir DIR                 default " + CdiSpecWriter.DEFAULT_DIRECTORY,
          "  --pod-uid UID                 enables seamless rolling updates [POD_UID]",
          "  --provider NAME               provider to use when several are installed",
          "  --sysfs-root DIR              the host's /sys as seen here (default "
              + ProviderContext.DEFAULT_SYSFS_ROOT
              + ")",
          "  --dev-root DIR                the host's /dev as seen here (default "
              + ProviderContext.DEFAULT_DEV_ROOT
              + ")",
          "  --health-port PORT            /healthz, /readyz, /status, /metrics (default "
              + DEFAULT_HEALTH_PORT
              + "; -1 off)",
          "  --extended-resource-conflict wait|warn|fail   (default "
              + ExtendedResourceGuard.DEFAULT_POLICY.name().toLowerCase(Locale.ROOT)
              + ")",
          "  --health-taint-effect None|NoSchedule|NoExecute   (default "
              + HealthHub.DEFAULT_TAINT_EFFECT.apiName()
              + ")",
          "  --health-recovery-delay DURATION   e.g. 60s, 2m (default "
              + HealthHub.DEFAULT_RECOVERY_DELAY.toSeconds()
              + "s)",
          "  --device-metadata             write KEP-5304 device metadata files",
          "  --no-warm-up                  never warm up before registering (default: while another instance serves)",
          "  --kube-api-qps N              API requests per second (default "
              + (int) HttpKubeClient.DEFAULT_QPS
              + ")",
          "  --kube-api-burst N            API request burst (default "
              + HttpKubeClient.DEFAULT_BURST
              + ")",
          "  --config KEY=VALUE            a provider setting (repeatable)",
          "  --KEY VALUE                   any other flag is a provider setting too, e.g. --devices 8");

  /**
   * Parses the command line.
   *
   * @param defaults values for flags given neither on the command line nor in the environment, by
   *     flag name without dashes (a launcher's own defaults, e.g. {@code driver-name})
   * @throws IllegalArgumentException naming the flag and the rule
   */
  public static DriverOptions parse(
      List<String> args, Map<String, String> defaults, Map<String, String> env) {
    Map<String, String> flags = new TreeMap<>();
    Map<String, String> providerConfig = new TreeMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new IllegalArgumentException(
            "unexpected argument \"" + arg + "\": flags have the form --name value");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (BOOLEANS.contains(name)) {
        value = "true";
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        value = args.get(++i);
      } else {
        // A missing value must not swallow the next flag (a typo'd boolean would hide it).
        throw new IllegalArgumentException("flag --" + name + " needs a value");
      }
      if (BOOLEANS.contains(name) && !value.equals("true") && !value.equals("false")) {
        throw new IllegalArgumentException(
            "flag --" + name + "=" + value + ": a switch is true or false");
      }
      Map<String, String> target = flags;
      if (name.equals("config")) {
        int kv = value.indexOf('=');
        if (kv <= 0) {
          throw new IllegalArgumentException(
              "flag --config \"" + value + "\" must have the form KEY=VALUE");
        }
        name = value.substring(0, kv);
        value = value.substring(kv + 1);
        target = providerConfig;
      } else if (!KNOWN.contains(name)) {
        target = providerConfig;
      }
      // Last-one-wins would let a stray line in a DaemonSet silently override the intended value.
      if (target.putIfAbsent(name, value) != null) {
        throw new IllegalArgumentException(
            "flag --" + name + " is given twice (" + target.get(name) + ", " + value + ")");
      }
    }
    if (on(flags, "help")) {
      throw new HelpRequested();
    }
    for (Map.Entry<String, String> d : defaults.entrySet()) {
      if (!KNOWN.contains(d.getKey())) {
        throw new IllegalArgumentException("default for unknown flag --" + d.getKey());
      }
    }
    String driver =
        flag(flags, env, defaults, "driver-name", "DRIVER_NAME")
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "flag --driver-name (or DRIVER_NAME) is required: the DRA driver name,"
                            + " e.g. gpu.example.com"));
    String node =
        flag(flags, env, defaults, "node-name", "NODE_NAME")
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "flag --node-name (or NODE_NAME) is required: the node this driver runs"
                            + " on"));
    Optional<Path> kubeconfig =
        flag(flags, env, defaults, "kubeconfig", "KUBECONFIG").map(DriverOptions::kubeconfigPath);
    flags.putAll(
        defaults.entrySet().stream()
            .filter(e -> !flags.containsKey(e.getKey()))
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    Path registrar = path(flags, "registrar-dir", SocketNames.DEFAULT_REGISTRAR_DIRECTORY);
    Path plugin = path(flags, "plugin-dir", SocketNames.defaultPluginDataDirectory(driver));
    Path cdi = path(flags, "cdi-dir", CdiSpecWriter.DEFAULT_DIRECTORY);
    Optional<String> podUid = flag(flags, env, defaults, "pod-uid", "POD_UID");
    Optional<String> provider = Optional.ofNullable(flags.get("provider"));
    Path sysfs = path(flags, "sysfs-root", ProviderContext.DEFAULT_SYSFS_ROOT);
    Path dev = path(flags, "dev-root", ProviderContext.DEFAULT_DEV_ROOT);
    int port = integer(flags, "health-port", DEFAULT_HEALTH_PORT);
    if (port < -1 || port > 65535) {
      throw new IllegalArgumentException("flag --health-port " + port + " must be -1 or 0..65535");
    }
    ExtendedResourceGuard.Policy policy =
        choice(
            flags,
            "extended-resource-conflict",
            ExtendedResourceGuard.DEFAULT_POLICY,
            ExtendedResourceGuard.Policy.values());
    TaintEffect effect = HealthHub.DEFAULT_TAINT_EFFECT;
    if (flags.containsKey("health-taint-effect")) {
      try {
        effect = TaintEffect.fromApiName(flags.get("health-taint-effect"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("flag --health-taint-effect: " + e.getMessage(), e);
      }
    }
    Duration recovery = duration(flags, "health-recovery-delay", HealthHub.DEFAULT_RECOVERY_DELAY);
    double qps = HttpKubeClient.DEFAULT_QPS;
    if (flags.containsKey("kube-api-qps")) {
      try {
        qps = Double.parseDouble(flags.get("kube-api-qps"));
      } catch (NumberFormatException e) {
        qps = -1;
      }
      if (!(qps > 0)) {
        throw new IllegalArgumentException(
            "flag --kube-api-qps \"" + flags.get("kube-api-qps") + "\" must be a number above 0");
      }
    }
    int burst = integer(flags, "kube-api-burst", HttpKubeClient.DEFAULT_BURST);
    if (burst < 1) {
      throw new IllegalArgumentException("flag --kube-api-burst " + burst + " must be at least 1");
    }
    return new DriverOptions(
        driver,
        node,
        kubeconfig,
        registrar,
        plugin,
        cdi,
        podUid,
        provider,
        sysfs,
        dev,
        port,
        policy,
        effect,
        recovery,
        on(flags, "device-metadata"),
        !on(flags, "no-warm-up"),
        qps,
        burst,
        providerConfig);
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

  private static final List<String> KNOWN =
      List.of(
          "driver-name",
          "node-name",
          "kubeconfig",
          "registrar-dir",
          "plugin-dir",
          "cdi-dir",
          "pod-uid",
          "provider",
          "sysfs-root",
          "dev-root",
          "health-port",
          "extended-resource-conflict",
          "health-taint-effect",
          "health-recovery-delay",
          "device-metadata",
          "no-warm-up",
          "kube-api-qps",
          "kube-api-burst",
          "help");

  private static final List<String> BOOLEANS = List.of("device-metadata", "no-warm-up", "help");

  private static boolean on(Map<String, String> flags, String name) {
    return "true".equals(flags.get(name));
  }

  /** Flag, else environment (a blank variable counts as unset), else the launcher's default. */
  private static Optional<String> flag(
      Map<String, String> flags,
      Map<String, String> env,
      Map<String, String> defaults,
      String name,
      String envName) {
    return Optional.ofNullable(flags.get(name))
        .or(() -> Optional.ofNullable(env.get(envName)))
        .filter(v -> !v.isBlank())
        .or(() -> Optional.ofNullable(defaults.get(name)));
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

  private static Path path(Map<String, String> flags, String name, Path defaultValue) {
    String v = flags.get(name);
    return v == null ? defaultValue : Path.of(v);
  }

  private static int integer(Map<String, String> flags, String name, int defaultValue) {
    String v = flags.get(name);
    if (v == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("flag --" + name + " \"" + v + "\" must be an integer", e);
    }
  }

  private static <E extends Enum<E>> E choice(
      Map<String, String> flags, String name, E defaultValue, E[] values) {
    String v = flags.get(name);
    if (v == null) {
      return defaultValue;
    }
    List<String> names = new ArrayList<>();
    for (E e : values) {
      names.add(e.name().toLowerCase(Locale.ROOT));
      if (e.name().equalsIgnoreCase(v.trim())) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "flag --" + name + " \"" + v + "\" must be one of " + String.join("|", names));
  }

  /** Parses {@code 90s}, {@code 2m}, {@code 1h}, {@code 500ms} or ISO-8601 {@code PT30S}. */
  static Duration duration(Map<String, String> flags, String name, Duration defaultValue) {
    String v = flags.get(name);
    if (v == null) {
      return defaultValue;
    }
    try {
      return parseDuration(v);
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          "flag --" + name + " \"" + v + "\" must be a duration such as 500ms, 30s, 2m or 1h", e);
    }
  }

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

  /** Thrown by {@link #parse} for {@code --help}. */
  public static final class HelpRequested extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    HelpRequested() {
      super(USAGE);
    }
  }
}
