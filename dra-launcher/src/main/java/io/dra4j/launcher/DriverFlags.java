package io.dra4j.launcher;

import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.launcher.logging.LineLogging;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.internal.claims.DeviceMetadataStream;
import io.dra4j.runtime.internal.health.HealthHub;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The flags of a driver's commands, and the one rule by which each gets its value: the flag, else
 * its environment variable (a blank one counts as unset), else the launcher's default ({@link
 * Launcher#defaults}). A flag that is none of these is absent, and the setting keeps its owner's
 * default (the {@code DraDriver} builder's, the API client's, ...), which {@code --help} shows.
 *
 * <p>picocli parses every command line of the launcher. Each command adds the flags it shares with
 * {@code run} as a mixin ({@link #mixin}), so {@code --driver-name} is the same flag, with the same
 * variable and the same rule, in {@code run}, {@code deviceclass}, {@code dev}, {@code train} and a
 * vendor's own commands. The mixins are built from this table rather than from annotations: that
 * costs a driver's cold start the least.
 */
public final class DriverFlags {
  private DriverFlags() {}

  /** What a flag takes. */
  public enum Kind {
    /** One value: {@code --name value} or {@code --name=value}. */
    VALUE,
    /** A switch: {@code --name}, {@code --name=true|false} or {@code --name true|false}. */
    SWITCH,
    /** A value, repeatable. */
    REPEATED
  }

  /**
   * One flag.
   *
   * @param name without the dashes
   * @param label the value's label in the help, e.g. {@code NAME}
   * @param env its environment variable; empty for none
   * @param shownDefault what the help says when the launcher has no default of its own: the owner's
   *     default, or what absence means
   * @param help what it does
   */
  public record Flag(
      String name, String label, String env, Kind kind, String shownDefault, String help) {
    public Flag {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(label, "label");
      Objects.requireNonNull(env, "env");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(shownDefault, "shownDefault");
      Objects.requireNonNull(help, "help");
    }

    /** A flag with one value and no environment variable. */
    public static Flag value(String name, String label, String shownDefault, String help) {
      return new Flag(name, label, "", Kind.VALUE, shownDefault, help);
    }

    /** The same flag with another default shown in the help (a command's own). */
    public Flag showing(String shown) {
      return new Flag(name, label, env, kind, shown, help);
    }

    /** {@code --name}. */
    public String option() {
      return "--" + name;
    }
  }

  public static final Flag DRIVER_NAME =
      new Flag(
          "driver-name",
          "NAME",
          "DRIVER_NAME",
          Kind.VALUE,
          "none, required",
          "DRA driver name, e.g. gpu.example.com");
  public static final Flag NODE_NAME =
      new Flag("node-name", "NAME", "NODE_NAME", Kind.VALUE, "none, required", "this node");
  public static final Flag KUBECONFIG =
      new Flag(
          "kubeconfig",
          "FILE",
          "KUBECONFIG",
          Kind.VALUE,
          "in-cluster configuration",
          "kubeconfig of the API server and the driver's credentials");
  public static final Flag REGISTRAR_DIR =
      Flag.value(
          "registrar-dir",
          "DIR",
          SocketNames.DEFAULT_REGISTRAR_PATH,
          "the kubelet's plugin registry");
  public static final Flag PLUGIN_DIR =
      Flag.value(
          "plugin-dir",
          "DIR",
          SocketNames.defaultPluginDataDirectory("<driver-name>").toString(),
          "this driver's own directory: sockets, checkpoint, lock");
  public static final Flag CDI_DIR =
      Flag.value(
          "cdi-dir", "DIR", CdiSpecWriter.DEFAULT_DIRECTORY.toString(), "where CDI specs go");
  public static final Flag POD_UID =
      new Flag(
          "pod-uid",
          "UID",
          "POD_UID",
          Kind.VALUE,
          "none, rolling updates off",
          "this pod's UID (downward API): enables seamless rolling updates");
  public static final Flag PROVIDER =
      Flag.value(
          "provider",
          "NAME",
          "the only one on the class path",
          "the DeviceProvider to use when several are on the class path");
  public static final Flag SYSFS_ROOT =
      Flag.value(
          "sysfs-root",
          "DIR",
          ProviderContext.DEFAULT_SYSFS_ROOT.toString(),
          "the host's /sys as this process sees it");
  public static final Flag DEV_ROOT =
      Flag.value(
          "dev-root",
          "DIR",
          ProviderContext.DEFAULT_DEV_ROOT.toString(),
          "the host's /dev as this process sees it");
  public static final Flag HEALTH_PORT =
      Flag.value(
          "health-port",
          "PORT",
          Integer.toString(DriverSettings.DEFAULT_HEALTH_PORT),
          "port of /healthz, /readyz, /status and /metrics; 0 picks one, -1 turns them off");
  public static final Flag HEALTH_ADDRESS =
      new Flag(
          "health-address",
          "IP",
          "HEALTH_ADDRESS",
          Kind.VALUE,
          "every local address (IPv4 and IPv6)",
          "the one address that port listens on, e.g. 127.0.0.1 or the pod's IP");
  public static final Flag EXTENDED_RESOURCE_CONFLICT =
      Flag.value(
          "extended-resource-conflict",
          "wait|warn|fail",
          ExtendedResourceGuard.DEFAULT_POLICY.name().toLowerCase(Locale.ROOT),
          "what to do while a device plugin still serves this driver's extended resource");
  public static final Flag HEALTH_TAINT_EFFECT =
      Flag.value(
          "health-taint-effect",
          "None|NoSchedule|NoExecute",
          HealthHub.DEFAULT_TAINT_EFFECT.apiName(),
          "the effect of the taint on an unhealthy device");
  public static final Flag HEALTH_RECOVERY_DELAY =
      Flag.value(
          "health-recovery-delay",
          "DURATION",
          formatDuration(HealthHub.DEFAULT_RECOVERY_DELAY),
          "how long a device stays healthy before its taint is lifted (500ms, 30s, 2m, 1h)");
  public static final Flag DEVICE_METADATA =
      new Flag(
          "device-metadata", "", "", Kind.SWITCH, "false", "write KEP-5304 device metadata files");
  public static final Flag DEVICE_METADATA_VERSIONS =
      Flag.value(
          "device-metadata-versions",
          "VERSION[,VERSION]",
          DeviceMetadataStream.DEFAULT_VERSIONS.stream()
              .map(v -> v.substring(DeviceMetadataStream.GROUP.length() + 1))
              .collect(Collectors.joining(",")),
          "the versions of metadata.resource.k8s.io the device metadata files hold, in this"
              + " order: v1beta1 (required), v1alpha1 for readers of Kubernetes 1.36");
  public static final Flag NO_WARM_UP =
      new Flag(
          "no-warm-up",
          "",
          "",
          Kind.SWITCH,
          "false",
          "never warm up the prepare path before registering (otherwise: while another instance"
              + " serves)");
  public static final Flag KUBE_API_QPS =
      Flag.value(
          "kube-api-qps", "N", formatNumber(HttpKubeClient.DEFAULT_QPS), "API requests per second");
  public static final Flag KUBE_API_BURST =
      Flag.value(
          "kube-api-burst",
          "N",
          Integer.toString(HttpKubeClient.DEFAULT_BURST),
          "API requests allowed in a burst above the rate");
  public static final Flag LOG_LEVEL =
      new Flag(
          "log-level",
          "error|warn|info|debug|trace",
          LineLogging.LEVEL_VARIABLE,
          Kind.VALUE,
          LineLogging.DEFAULT_LEVEL.name().toLowerCase(Locale.ROOT),
          "the threshold of the log lines on standard error");
  public static final Flag CONFIG =
      new Flag(
          "config",
          "KEY=VALUE",
          "",
          Kind.REPEATED,
          "none",
          "a provider setting (repeatable); any other --KEY VALUE is one too, e.g. --devices 8");

  /** The flags of {@code run}, in the order of its help. */
  static final List<Flag> RUN =
      List.of(
          DRIVER_NAME,
          NODE_NAME,
          KUBECONFIG,
          REGISTRAR_DIR,
          PLUGIN_DIR,
          CDI_DIR,
          POD_UID,
          PROVIDER,
          SYSFS_ROOT,
          DEV_ROOT,
          HEALTH_PORT,
          HEALTH_ADDRESS,
          EXTENDED_RESOURCE_CONFLICT,
          HEALTH_TAINT_EFFECT,
          HEALTH_RECOVERY_DELAY,
          DEVICE_METADATA,
          DEVICE_METADATA_VERSIONS,
          NO_WARM_UP,
          KUBE_API_QPS,
          KUBE_API_BURST,
          LOG_LEVEL,
          CONFIG);

  /**
   * The value of {@code flag} when the command line does not give it: its environment variable (a
   * blank one counts as unset), else the launcher's default; empty when neither has one.
   *
   * @param defaults the launcher's defaults, by flag name without dashes
   */
  public static Optional<String> fallback(
      Flag flag, Map<String, String> defaults, Map<String, String> env) {
    return Optional.ofNullable(flag.env().isEmpty() ? null : env.get(flag.env()))
        .filter(v -> !v.isBlank())
        .or(() -> Optional.ofNullable(defaults.get(flag.name())));
  }

  /**
   * A picocli mixin of {@code flags}: each option takes its value from the command line, else by
   * {@link #fallback}; its help says its default (the launcher's, else the flag's own) and its
   * variable. Add it with {@code commandLine.addMixin(name, mixin)} or {@link
   * CommandSpec#addMixin}, and read the values with {@link #value} and {@link #values}.
   *
   * @param defaults the launcher's defaults, by flag name without dashes
   */
  public static CommandSpec mixin(
      Map<String, String> defaults, Map<String, String> env, List<Flag> flags) {
    CommandSpec mixin = CommandSpec.create();
    for (Flag f : flags) {
      String shown = defaults.getOrDefault(f.name(), f.shownDefault());
      OptionSpec.Builder o =
          OptionSpec.builder(f.option())
              // The description says the default; a command that shows defaults must not repeat
              // it (and picocli's would be the environment's value, not the default).
              .showDefaultValue(CommandLine.Help.Visibility.NEVER)
              .description(
                  f.help(),
                  "default: "
                      + shown
                      + (f.env().isEmpty() ? "" : "; environment variable " + f.env()));
      switch (f.kind()) {
        case SWITCH -> o.arity("0..1").paramLabel("true|false").type(Boolean.class);
        case REPEATED -> o.paramLabel(f.label()).type(List.class).auxiliaryTypes(String.class);
        case VALUE -> {
          o.paramLabel(f.label()).type(String.class);
          fallback(f, defaults, env).ifPresent(o::defaultValue);
        }
      }
      mixin.addOption(o.build());
    }
    return mixin;
  }

  /**
   * The value of a {@link Kind#VALUE} flag of a parsed command line, by {@link #mixin}'s rule;
   * empty when there is none, or only a blank one.
   */
  public static Optional<String> value(CommandSpec spec, Flag flag) {
    Object v = option(spec, flag).getValue();
    return Optional.ofNullable(v).map(Object::toString).filter(s -> !s.isBlank());
  }

  /** The values of a {@link Kind#REPEATED} flag, in the order given. */
  public static List<String> values(CommandSpec spec, Flag flag) {
    List<?> v = option(spec, flag).getValue();
    List<String> out = new ArrayList<>();
    if (v != null) {
      v.forEach(x -> out.add(x.toString()));
    }
    return out;
  }

  /** A {@link Kind#SWITCH} flag: empty when not given. */
  public static Optional<Boolean> switchValue(CommandSpec spec, Flag flag) {
    return Optional.ofNullable(option(spec, flag).getValue());
  }

  private static OptionSpec option(CommandSpec spec, Flag flag) {
    OptionSpec o = spec.findOption(flag.option());
    if (o == null) {
      throw new IllegalArgumentException("the command has no flag " + flag.option());
    }
    return o;
  }

  /**
   * A picocli command line as the launcher's commands parse: {@code --name value} and {@code
   * --name=value}, a flag given twice is an error (a stray line in a DaemonSet must not silently
   * override the intended value), {@code @file} is a value like any other, and the help goes to
   * {@code out}, errors to {@code err}, at most 100 columns wide.
   *
   * @param unmatched whether words that are not the command's flags are kept (provider settings)
   *     rather than refused
   */
  public static CommandLine commandLine(
      Object command, boolean unmatched, PrintStream out, PrintStream err) {
    CommandLine cli = new CommandLine(command);
    cli.setUnmatchedArgumentsAllowed(unmatched);
    cli.setUnmatchedOptionsArePositionalParams(false);
    cli.setOverwrittenOptionsAllowed(false);
    cli.setExpandAtFiles(false);
    cli.setUsageHelpWidth(100);
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    return cli;
  }

  /**
   * Provider settings given as flags, {@code --KEY VALUE} or {@code --KEY=VALUE}: what is left of a
   * command line once the command's own flags are taken.
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
   * The provider settings of {@code --config KEY=VALUE} and of every other {@code --KEY VALUE}.
   *
   * @throws IllegalArgumentException naming the flag and the rule
   */
  public static Map<String, String> providerSettings(List<String> config, List<String> unmatched) {
    Map<String, String> settings = providerSettings(unmatched);
    for (String kv : config) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "flag --config \"" + kv + "\" must have the form KEY=VALUE");
      }
      putOnce(settings, kv.substring(0, eq), kv.substring(eq + 1));
    }
    return settings;
  }

  private static void putOnce(Map<String, String> target, String name, String value) {
    String before = target.putIfAbsent(name, value);
    if (before != null) {
      throw new IllegalArgumentException(
          "flag --" + name + " is given twice (" + before + ", " + value + ")");
    }
  }

  /** The form {@link DriverSettings} reads: {@code 60s}, or {@code 1500ms}. */
  static String formatDuration(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static String formatNumber(double n) {
    return n == Math.rint(n) ? Long.toString((long) n) : Double.toString(n);
  }
}
