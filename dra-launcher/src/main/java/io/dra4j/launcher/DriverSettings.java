package io.dra4j.launcher;

import static io.dra4j.launcher.DriverFlags.CDI_DIR;
import static io.dra4j.launcher.DriverFlags.CONFIG;
import static io.dra4j.launcher.DriverFlags.DEVICE_METADATA;
import static io.dra4j.launcher.DriverFlags.DEVICE_METADATA_VERSIONS;
import static io.dra4j.launcher.DriverFlags.DEV_ROOT;
import static io.dra4j.launcher.DriverFlags.DRIVER_NAME;
import static io.dra4j.launcher.DriverFlags.EXTENDED_RESOURCE_CONFLICT;
import static io.dra4j.launcher.DriverFlags.HEALTH_ADDRESS;
import static io.dra4j.launcher.DriverFlags.HEALTH_PORT;
import static io.dra4j.launcher.DriverFlags.HEALTH_RECOVERY_DELAY;
import static io.dra4j.launcher.DriverFlags.HEALTH_TAINT_EFFECT;
import static io.dra4j.launcher.DriverFlags.KUBECONFIG;
import static io.dra4j.launcher.DriverFlags.KUBE_API_BURST;
import static io.dra4j.launcher.DriverFlags.KUBE_API_QPS;
import static io.dra4j.launcher.DriverFlags.LOG_LEVEL;
import static io.dra4j.launcher.DriverFlags.NODE_NAME;
import static io.dra4j.launcher.DriverFlags.NO_WARM_UP;
import static io.dra4j.launcher.DriverFlags.PLUGIN_DIR;
import static io.dra4j.launcher.DriverFlags.POD_UID;
import static io.dra4j.launcher.DriverFlags.PROVIDER;
import static io.dra4j.launcher.DriverFlags.REGISTRAR_DIR;
import static io.dra4j.launcher.DriverFlags.SYSFS_ROOT;

import io.dra4j.api.device.TaintEffect;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.internal.IpLiteral;
import io.dra4j.launcher.DriverFlags.Flag;
import io.dra4j.launcher.logging.LineLogging;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.internal.claims.DeviceMetadataStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.event.Level;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The settings of {@code run}, read once from its command line ({@link DriverFlags}: flag, else
 * environment variable, else the launcher's default) and handed down: to the API client, to the
 * {@link DraDriver.Builder} ({@link #applyTo}), to the status endpoint. A setting the command line
 * leaves out is empty here and keeps its owner's default, which the owner states once: the driver's
 * on {@link DraDriver.Builder}'s setters, the API client's on {@link HttpKubeClient.Builder}, the
 * status port here ({@link #DEFAULT_HEALTH_PORT}), the log level on {@link LineLogging}.
 *
 * <p>A flag {@code run} does not know is a provider setting: {@code --devices 8} reaches the
 * provider as {@code devices=8} (see each provider's documentation); {@code --config key=value}
 * does the same explicitly.
 *
 * <p>The settings, each an accessor:
 *
 * <ul>
 *   <li>{@code driverName}: DRA driver name
 *   <li>{@code nodeName}: this node
 *   <li>{@code kubeconfig}: kubeconfig file; empty for in-cluster configuration
 *   <li>{@code provider}: which provider to use when several are on the class path
 *   <li>{@code podUid}: enables rolling updates when set
 *   <li>{@code healthPort}: port of the health/status endpoint; 0 picks one, -1 disables it
 *   <li>{@code healthAddress}: the one address the health/status endpoint listens on; empty for
 *       every local address (IPv4 and IPv6)
 *   <li>{@code kubeApiQps}: client-side rate limit of API calls per second
 *   <li>{@code kubeApiBurst}: burst allowed above the rate
 *   <li>{@code logLevel}: the threshold of the launcher's log lines ({@link LineLogging})
 *   <li>{@code registrarDirectory}: the kubelet's plugin registry
 *   <li>{@code pluginDirectory}: this driver's private directory (sockets, checkpoints, lock)
 *   <li>{@code cdiDirectory}: where CDI specs are written
 *   <li>{@code sysfsRoot}: the host's /sys as this process sees it
 *   <li>{@code devRoot}: the host's /dev as this process sees it
 *   <li>{@code extendedResourceConflict}: what to do when a device plugin still serves a name
 *   <li>{@code healthTaintEffect}: the effect of taints on unhealthy devices
 *   <li>{@code healthRecoveryDelay}: how long a device must stay healthy before its taint is lifted
 *   <li>{@code deviceMetadata}: write KEP-5304 metadata files
 *   <li>{@code deviceMetadataVersions}: the versions those files hold, in this order, each as
 *       {@code metadata.resource.k8s.io/<version>}
 *   <li>{@code warmUp}: exercise the prepare path before registering with the kubelet while another
 *       instance serves it (a rolling update)
 *   <li>{@code providerConfig}: provider settings
 * </ul>
 */
public final class DriverSettings {
  // A final class, not a record: a flag added in a later release is an added accessor, never a
  // changed public constructor.
  private final String driverName;
  private final String nodeName;
  private final Optional<Path> kubeconfig;
  private final Optional<String> provider;
  private final Optional<String> podUid;
  private final int healthPort;
  private final Optional<InetAddress> healthAddress;
  private final Optional<Double> kubeApiQps;
  private final Optional<Integer> kubeApiBurst;
  private final Level logLevel;
  private final Optional<Path> registrarDirectory;
  private final Optional<Path> pluginDirectory;
  private final Optional<Path> cdiDirectory;
  private final Optional<Path> sysfsRoot;
  private final Optional<Path> devRoot;
  private final Optional<ExtendedResourceGuard.Policy> extendedResourceConflict;
  private final Optional<TaintEffect> healthTaintEffect;
  private final Optional<Duration> healthRecoveryDelay;
  private final Optional<Boolean> deviceMetadata;
  private final Optional<List<String>> deviceMetadataVersions;
  private final Optional<Boolean> warmUp;
  private final Map<String, String> providerConfig;

  /** The port of the health/status endpoint when {@code --health-port} does not say. */
  public static final int DEFAULT_HEALTH_PORT = 8081;

  private DriverSettings(
      String driverName,
      String nodeName,
      Optional<Path> kubeconfig,
      Optional<String> provider,
      Optional<String> podUid,
      int healthPort,
      Optional<InetAddress> healthAddress,
      Optional<Double> kubeApiQps,
      Optional<Integer> kubeApiBurst,
      Level logLevel,
      Optional<Path> registrarDirectory,
      Optional<Path> pluginDirectory,
      Optional<Path> cdiDirectory,
      Optional<Path> sysfsRoot,
      Optional<Path> devRoot,
      Optional<ExtendedResourceGuard.Policy> extendedResourceConflict,
      Optional<TaintEffect> healthTaintEffect,
      Optional<Duration> healthRecoveryDelay,
      Optional<Boolean> deviceMetadata,
      Optional<List<String>> deviceMetadataVersions,
      Optional<Boolean> warmUp,
      Map<String, String> providerConfig) {
    this.driverName = driverName;
    this.nodeName = nodeName;
    this.kubeconfig = kubeconfig;
    this.provider = provider;
    this.podUid = podUid;
    this.healthPort = healthPort;
    this.healthAddress = healthAddress;
    this.kubeApiQps = kubeApiQps;
    this.kubeApiBurst = kubeApiBurst;
    this.logLevel = logLevel;
    this.registrarDirectory = registrarDirectory;
    this.pluginDirectory = pluginDirectory;
    this.cdiDirectory = cdiDirectory;
    this.sysfsRoot = sysfsRoot;
    this.devRoot = devRoot;
    this.extendedResourceConflict = extendedResourceConflict;
    this.healthTaintEffect = healthTaintEffect;
    this.healthRecoveryDelay = healthRecoveryDelay;
    this.deviceMetadata = deviceMetadata;
    this.warmUp = warmUp;
    this.deviceMetadataVersions = deviceMetadataVersions.map(List::copyOf);
    this.providerConfig = Collections.unmodifiableMap(new TreeMap<>(providerConfig));
  }

  public String driverName() {
    return driverName;
  }

  public String nodeName() {
    return nodeName;
  }

  public Optional<Path> kubeconfig() {
    return kubeconfig;
  }

  public Optional<String> provider() {
    return provider;
  }

  public Optional<String> podUid() {
    return podUid;
  }

  public int healthPort() {
    return healthPort;
  }

  public Optional<InetAddress> healthAddress() {
    return healthAddress;
  }

  public Optional<Double> kubeApiQps() {
    return kubeApiQps;
  }

  public Optional<Integer> kubeApiBurst() {
    return kubeApiBurst;
  }

  public Level logLevel() {
    return logLevel;
  }

  public Optional<Path> registrarDirectory() {
    return registrarDirectory;
  }

  public Optional<Path> pluginDirectory() {
    return pluginDirectory;
  }

  public Optional<Path> cdiDirectory() {
    return cdiDirectory;
  }

  public Optional<Path> sysfsRoot() {
    return sysfsRoot;
  }

  public Optional<Path> devRoot() {
    return devRoot;
  }

  public Optional<ExtendedResourceGuard.Policy> extendedResourceConflict() {
    return extendedResourceConflict;
  }

  public Optional<TaintEffect> healthTaintEffect() {
    return healthTaintEffect;
  }

  public Optional<Duration> healthRecoveryDelay() {
    return healthRecoveryDelay;
  }

  public Optional<Boolean> deviceMetadata() {
    return deviceMetadata;
  }

  public Optional<List<String>> deviceMetadataVersions() {
    return deviceMetadataVersions;
  }

  public Optional<Boolean> warmUp() {
    return warmUp;
  }

  public Map<String, String> providerConfig() {
    return providerConfig;
  }

  /**
   * The help of {@code run}: every flag with its default (the launcher's own where it has one) and
   * its environment variable.
   *
   * @param defaults a launcher's own defaults, as for {@link #parse}
   */
  public static String usage(Map<String, String> defaults) {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
    command(defaults, Map.of(), out, out).usage(out);
    return text.toString(StandardCharsets.UTF_8).stripTrailing();
  }

  /**
   * Parses {@code run}'s command line.
   *
   * @param defaults values for flags given neither on the command line nor in the environment, by
   *     flag name without dashes (a launcher's own defaults, e.g. {@code driver-name})
   * @throws HelpRequested for {@code --help}, carrying the usage
   * @throws IllegalArgumentException naming the flag and the rule
   */
  public static DriverSettings parse(
      List<String> args, Map<String, String> defaults, Map<String, String> env) {
    for (String name : defaults.keySet()) {
      if (DriverFlags.RUN.stream().noneMatch(f -> f.name().equals(name))
          || name.equals(CONFIG.name())) {
        throw new IllegalArgumentException("default for unknown flag --" + name);
      }
    }
    PrintStream none = new PrintStream(PrintStream.nullOutputStream());
    CommandLine cli = command(defaults, env, none, none);
    CommandLine.ParseResult parsed;
    try {
      parsed = cli.parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    if (parsed.isUsageHelpRequested()) {
      throw new HelpRequested(usage(defaults));
    }
    CommandSpec s = cli.getCommandSpec();
    Map<String, String> providerConfig =
        DriverFlags.providerSettings(DriverFlags.values(s, CONFIG), parsed.unmatched());
    String driver =
        DriverFlags.value(s, DRIVER_NAME)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "flag --driver-name (or DRIVER_NAME) is required: the DRA driver name,"
                            + " e.g. gpu.example.com"));
    String node =
        DriverFlags.value(s, NODE_NAME)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "flag --node-name (or NODE_NAME) is required: the node this driver runs"
                            + " on"));
    int port =
        DriverFlags.value(s, HEALTH_PORT)
            .map(v -> integer(HEALTH_PORT, v))
            .orElse(DEFAULT_HEALTH_PORT);
    if (port < -1 || port > 65535) {
      throw new IllegalArgumentException("flag --health-port " + port + " must be -1 or 0..65535");
    }
    Optional<Double> qps = DriverFlags.value(s, KUBE_API_QPS).map(DriverSettings::qps);
    Optional<Integer> burst =
        DriverFlags.value(s, KUBE_API_BURST).map(v -> integer(KUBE_API_BURST, v));
    if (burst.isPresent() && burst.get() < 1) {
      throw new IllegalArgumentException(
          "flag --kube-api-burst " + burst.get() + " must be at least 1");
    }
    Level level =
        DriverFlags.value(s, LOG_LEVEL)
            .map(v -> checked(LOG_LEVEL, v, LineLogging::parseLevel))
            .orElse(LineLogging.DEFAULT_LEVEL);
    return new DriverSettings(
        driver,
        node,
        DriverFlags.value(s, KUBECONFIG).map(DriverSettings::kubeconfigPath),
        DriverFlags.value(s, PROVIDER),
        DriverFlags.value(s, POD_UID),
        port,
        DriverFlags.value(s, HEALTH_ADDRESS).map(DriverSettings::ipAddress),
        qps,
        burst,
        level,
        DriverFlags.value(s, REGISTRAR_DIR).map(Path::of),
        DriverFlags.value(s, PLUGIN_DIR).map(Path::of),
        DriverFlags.value(s, CDI_DIR).map(Path::of),
        DriverFlags.value(s, SYSFS_ROOT).map(Path::of),
        DriverFlags.value(s, DEV_ROOT).map(Path::of),
        DriverFlags.value(s, EXTENDED_RESOURCE_CONFLICT).map(DriverSettings::policy),
        DriverFlags.value(s, HEALTH_TAINT_EFFECT)
            .map(v -> checked(HEALTH_TAINT_EFFECT, v, TaintEffect::fromApiName)),
        DriverFlags.value(s, HEALTH_RECOVERY_DELAY).map(DriverSettings::duration),
        DriverFlags.switchValue(s, DEVICE_METADATA),
        DriverFlags.value(s, DEVICE_METADATA_VERSIONS).map(DriverSettings::metadataVersions),
        DriverFlags.switchValue(s, NO_WARM_UP).map(noWarmUp -> !noWarmUp),
        providerConfig);
  }

  /** {@code run}'s picocli command: its flags, each by {@link DriverFlags}'s rule. */
  private static CommandLine command(
      Map<String, String> defaults, Map<String, String> env, PrintStream out, PrintStream err) {
    CommandSpec spec = CommandSpec.create().name("run");
    spec.addOption(
        OptionSpec.builder("-h", "--help").usageHelp(true).description("print this help").build());
    spec.addMixin("driver", DriverFlags.mixin(defaults, env, DriverFlags.RUN));
    spec.usageMessage()
        .customSynopsis("run [OPTIONS]")
        .description("The DRA driver, as its DaemonSet runs it.")
        .sortOptions(false)
        .footer(
            "",
            "Any other --KEY VALUE is a provider setting. Exit status: 143 after SIGTERM (a"
                + " graceful stop), 1 when the driver failed or stopped on its own, 2 for a usage"
                + " or configuration error.");
    return DriverFlags.commandLine(spec, true, out, err);
  }

  /**
   * Sets what these settings say about the driver on {@code builder}, and nothing else: a setting
   * not given keeps the builder's default. The launcher's own settings (kubeconfig, provider
   * choice, status port, API rate limit, log level) are not the driver's.
   */
  public DraDriver.Builder applyTo(DraDriver.Builder builder) {
    builder.driverName(driverName).nodeName(nodeName).config(providerConfig);
    registrarDirectory().ifPresent(builder::registrarDirectory);
    pluginDirectory().ifPresent(builder::pluginDirectory);
    cdiDirectory().ifPresent(builder::cdiDirectory);
    sysfsRoot().ifPresent(builder::sysfsRoot);
    devRoot().ifPresent(builder::devRoot);
    extendedResourceConflict().ifPresent(builder::extendedResourcePolicy);
    healthTaintEffect().ifPresent(builder::healthTaintEffect);
    healthRecoveryDelay().ifPresent(builder::healthRecoveryDelay);
    deviceMetadata().ifPresent(builder::deviceMetadata);
    deviceMetadataVersions().ifPresent(builder::deviceMetadataVersions);
    warmUp().ifPresent(builder::warmUp);
    podUid.ifPresent(builder::podUid);
    return builder;
  }

  /** The API client's settings from these: the rate limit where one was given. */
  public HttpKubeClient.Builder applyTo(HttpKubeClient.Builder builder) {
    if (kubeApiQps.isPresent() || kubeApiBurst.isPresent()) {
      builder.rateLimit(
          kubeApiQps.orElse(HttpKubeClient.DEFAULT_QPS),
          kubeApiBurst.orElse(HttpKubeClient.DEFAULT_BURST));
    }
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

  private static double qps(String text) {
    double qps;
    try {
      qps = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      qps = -1;
    }
    if (!(qps > 0)) {
      throw new IllegalArgumentException(
          "flag --kube-api-qps \"" + text + "\" must be a number above 0");
    }
    return qps;
  }

  private static int integer(Flag flag, String v) {
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "flag " + flag.option() + " \"" + v + "\" must be an integer", e);
    }
  }

  private static <T> T checked(Flag flag, String v, Function<String, T> parse) {
    try {
      return parse.apply(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("flag " + flag.option() + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code v1beta1,v1alpha1}: versions of {@code metadata.resource.k8s.io}, each bare or with its
   * group, checked by the runtime's rule ({@link DeviceMetadataStream#checkVersions}).
   */
  private static List<String> metadataVersions(String text) {
    List<String> versions = new ArrayList<>();
    for (String v : text.split(",", -1)) {
      String version = v.trim();
      versions.add(version.contains("/") ? version : DeviceMetadataStream.GROUP + "/" + version);
    }
    try {
      return DeviceMetadataStream.checkVersions(versions);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "flag " + DEVICE_METADATA_VERSIONS.option() + " \"" + text + "\": " + e.getMessage(), e);
    }
  }

  private static ExtendedResourceGuard.Policy policy(String v) {
    List<String> names = new ArrayList<>();
    for (ExtendedResourceGuard.Policy p : ExtendedResourceGuard.Policy.values()) {
      names.add(p.name().toLowerCase(Locale.ROOT));
      if (p.name().equalsIgnoreCase(v.trim())) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "flag --extended-resource-conflict \""
            + v
            + "\" must be one of "
            + String.join("|", names));
  }

  private static Duration duration(String v) {
    try {
      return parseDuration(v);
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          "flag --health-recovery-delay \""
              + v
              + "\" must be a duration such as 500ms, 30s, 2m or 1h",
          e);
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
        return Duration.of(n, ChronoUnit.valueOf(u[1]));
      }
    }
    throw new IllegalArgumentException("no unit");
  }

  /** Thrown by {@link #parse} for {@code --help}; its message is the usage. */
  public static final class HelpRequested extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    HelpRequested(String usage) {
      super(usage);
    }
  }
}
