package io.dra4j.launcher;

import io.dra4j.launcher.logging.LineLogging;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A driver's command line, {@code java -jar <driver>.jar COMMAND [flags]}: the commands every
 * driver has ({@code run}, the driver as its DaemonSet runs it; {@code deviceclass}, its
 * DeviceClass), those the artifacts on the class path contribute ({@link LauncherCommand}: {@code
 * doctor} from dra-doctor, {@code dev} and {@code train} from dra-dev) and those a vendor's {@code
 * main} adds or replaces, each with its own {@code --help}.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *   Launcher.named("acme-driver.jar")
 *       .defaults(Map.of("driver-name", "accel.acme.example"))
 *       .command("discover", "print what this node would publish", Discover::run)
 *       .main(args);
 * }
 * }</pre>
 *
 * <p>Before any command runs, {@link LineLogging} becomes SLF4J's binding (unless the class path
 * brings one), at the level of {@code LOG_LEVEL}; {@code run --log-level} then sets it. gRPC's
 * Netty then records no JFR events unless {@code -Dio.grpc.netty.shaded.io.netty.jfr.enabled=true}.
 */
public final class Launcher {
  /** Usage errors: an unknown command or flag, a bad value. */
  public static final int EXIT_USAGE = 2;

  private static final String NETTY_JFR = "io.grpc.netty.shaded.io.netty.jfr.enabled";

  /** One command: its own flags in, an exit status out. */
  @FunctionalInterface
  public interface Command {
    /**
     * Runs the command.
     *
     * @param args what follows the command's name
     * @param defaults the launcher's defaults by flag name without dashes, for the flags the
     *     command shares with {@code run} (e.g. {@code driver-name})
     * @param env the environment
     * @return the exit status
     */
    int run(
        List<String> args,
        Map<String, String> defaults,
        Map<String, String> env,
        PrintStream out,
        PrintStream err);
  }

  private record Entry(String description, Command command) {}

  private final String name;
  private final Map<String, Entry> commands = new LinkedHashMap<>();
  private Map<String, String> defaults = Map.of();

  private Launcher(String name) {
    this.name = name;
    command("run", "the DRA driver, as its DaemonSet runs it", DriverMain::run);
    command(
        DeviceClassGenerator.COMMAND,
        "print a DeviceClass for this driver's devices",
        DeviceClassGenerator::run);
    List<LauncherCommand> contributed = new ArrayList<>();
    ServiceLoader.load(LauncherCommand.class).forEach(contributed::add);
    contributed.sort(Comparator.comparing(LauncherCommand::name));
    for (LauncherCommand c : contributed) {
      if (!commands.containsKey(c.name())) {
        command(c.name(), c.description(), c.command());
      }
    }
  }

  /**
   * A launcher with the built-in commands and those the class path contributes ({@link
   * LauncherCommand}); {@code name} is how its usage names the program.
   */
  public static Launcher named(String name) {
    return new Launcher(Objects.requireNonNull(name, "name"));
  }

  /**
   * The launcher's own defaults, by flag name without dashes ({@code driver-name}, {@code
   * provider}, ...): used when neither the flag nor its environment variable is given, and shown by
   * {@code run --help}. Default: none.
   */
  public Launcher defaults(Map<String, String> defaults) {
    this.defaults = Map.copyOf(defaults);
    return this;
  }

  /**
   * Adds a command, or replaces the one of that name; listed by {@code --help} in the order added.
   *
   * @param description one line for the list of commands
   */
  public Launcher command(String name, String description, Command command) {
    commands.put(
        Objects.requireNonNull(name, "name"),
        new Entry(Objects.requireNonNull(description), Objects.requireNonNull(command)));
    return this;
  }

  /** Runs the command named by {@code args[0]} and exits the JVM with its status. */
  public void main(String[] args) {
    System.exit(run(Arrays.asList(args), System.getenv(), System.out, System.err));
  }

  /**
   * Runs the command named by {@code args.get(0)}.
   *
   * @return its exit status; 0 for {@code --help}, {@link #EXIT_USAGE} for no or an unknown command
   */
  public int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    // Before anything asks SLF4J for a logger (many classes do when they load).
    LineLogging.install(levelFrom(env));
    // Before gRPC's Netty loads: its JFR events cost the first connection (the kubelet's
    // registration) the initialisation of JFR's event classes and about 4 MB of resident memory,
    // for events only a flight recording with them enabled would keep. Set it to true to have them.
    if (System.getProperty(NETTY_JFR) == null) {
      System.setProperty(NETTY_JFR, "false");
    }
    if (args.isEmpty()) {
      err.println(usage());
      return EXIT_USAGE;
    }
    String first = args.get(0);
    if (first.equals("-h") || first.equals("--help")) {
      out.println(usage());
      return 0;
    }
    Entry command = commands.get(first);
    if (command == null) {
      err.println(
          "error: "
              + (first.startsWith("-") ? "unknown flag \"" : "unknown command \"")
              + first
              + "\": the first word names a command ("
              + String.join(", ", commands.keySet())
              + ")");
      err.println(usage());
      return EXIT_USAGE;
    }
    // The command parses its own flags (and its --help): hand it everything after its name.
    return command.command().run(args.subList(1, args.size()), defaults, env, out, err);
  }

  private String usage() {
    CommandSpec spec = CommandSpec.create().name(name);
    spec.addOption(
        OptionSpec.builder("-h", "--help").usageHelp(true).description("print this help").build());
    commands.forEach(
        (command, entry) -> {
          CommandSpec c = CommandSpec.create().name(command);
          c.usageMessage().description(entry.description());
          spec.addSubcommand(command, c);
        });
    spec.usageMessage()
        .synopsisSubcommandLabel("COMMAND")
        .width(80)
        .footer("", "Each command's flags: " + name + " COMMAND --help");
    return new CommandLine(spec).getUsageMessage().stripTrailing();
  }

  /** {@code LOG_LEVEL}, when it names a level; a bad one is reported by the command's parser. */
  private static org.slf4j.event.Level levelFrom(Map<String, String> env) {
    // Not DriverFlags: loading it loads the classes whose defaults it shows, and they log.
    String value = env.get(LineLogging.LEVEL_VARIABLE);
    try {
      return value == null || value.isBlank()
          ? LineLogging.DEFAULT_LEVEL
          : LineLogging.parseLevel(value);
    } catch (IllegalArgumentException e) {
      return LineLogging.DEFAULT_LEVEL;
    }
  }
}
