package io.dra4j.doctor;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.cel.CelSelectors;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.kube.KubeJson;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code doctor}: the extended-resource migration checklist run against a live cluster, read-only
 * (GET and LIST, never a write). Usable as {@code java -jar <driver jar> doctor ...}, as {@code
 * java -jar dra4j-doctor.jar ...} and from code with {@link #run}. The flags are parsed here, so
 * the command moves with this class.
 *
 * <p>Exit status: 0 all good, 1 warnings, 2 errors, 3 something could not be read (the verdict
 * would be a guess), 64 a usage error.
 */
public final class Doctor {
  /** The command word launchers dispatch on: {@code java -jar <driver jar> doctor ...}. */
  public static final String COMMAND = "doctor";

  /** Exit status of a usage error (sysexits' EX_USAGE: apart from the verdicts 0 to 3). */
  public static final int EXIT_USAGE = 64;

  static final String USAGE =
      String.join(
          "\n",
          "usage: doctor [--kubeconfig FILE] [--node NAME] [--output table|json]"
              + " [--color auto|always|never]",
          "",
          "Checks the extended-resource migration from device plugins to DRA (Kubernetes 1.37),",
          "read-only: versions, demand, supply per node, DeviceClass mapping, claims, taints,",
          "risky settings.",
          "",
          "  --kubeconfig FILE   [KUBECONFIG] default: in-cluster configuration",
          "  --node NAME         check one node (before and after its migration step)",
          "  --output FORMAT     table (default) or json (schema: doctor-report.schema.json)",
          "  --color WHEN        auto (default: when stdout is a terminal and NO_COLOR is unset),",
          "                      always or never",
          "",
          "exit status: 0 all good, 1 warnings, 2 errors, 3 could not read, 64 usage error");

  private Doctor() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), System.getenv(), System.out, System.err));
  }

  /**
   * Runs the doctor.
   *
   * @param args the flags (without the {@code doctor} command word)
   * @param env the environment ({@code KUBECONFIG}, {@code NO_COLOR}, {@code TERM})
   * @return the exit status
   */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    Options options;
    try {
      options = Options.parse(args, env);
    } catch (HelpRequested h) {
      out.println(USAGE);
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(USAGE);
      return EXIT_USAGE;
    }
    KubeConfig config;
    try {
      config =
          options.kubeconfig().map(KubeConfig::fromKubeconfig).orElseGet(KubeConfig::inCluster);
    } catch (IllegalStateException | IllegalArgumentException e) {
      err.println("error: cannot read the cluster's address and credentials: " + e.getMessage());
      return DoctorReport.EXIT_UNREADABLE;
    }
    DoctorReport report;
    // A shorter deadline per call than a driver's: a doctor that hangs helps nobody.
    try (HttpKubeClient client =
        HttpKubeClient.builder(config)
            .userAgent("dra4j-doctor")
            .callTimeout(Duration.ofSeconds(20))
            .retries(2, Duration.ofMillis(200), Duration.ofSeconds(1))
            .build()) {
      report = Diagnosis.diagnose(ClusterSnapshot.read(client), options.node(), new CelSelectors());
    }
    if (options.json()) {
      try {
        out.println(KubeJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(report));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("the report does not serialize", e);
      }
    } else {
      boolean color =
          switch (options.color()) {
            case "always" -> true;
            case "never" -> false;
            default ->
                System.console() != null
                    && !env.containsKey("NO_COLOR")
                    && !"dumb".equals(env.get("TERM"));
          };
      TableWriter.write(report, out, color);
    }
    return report.exitCode();
  }

  /** {@code --help}. */
  private static final class HelpRequested extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HelpRequested() {
      super(null, null, false, false);
    }
  }

  /** The command line, parsed without help from the launcher's own flag parser. */
  record Options(Optional<Path> kubeconfig, Optional<String> node, boolean json, String color) {
    static Options parse(List<String> args, Map<String, String> env) {
      Optional<Path> kubeconfig =
          Optional.ofNullable(env.get("KUBECONFIG")).filter(s -> !s.isEmpty()).map(Path::of);
      Optional<String> node = Optional.empty();
      String output = "table";
      String color = "auto";
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < args.size(); i++) {
        String a = args.get(i);
        if (a.equals("-h") || a.equals("--help") || a.equals("help")) {
          throw new HelpRequested();
        }
        if (!a.startsWith("--")) {
          throw new IllegalArgumentException("unexpected argument \"" + a + "\"");
        }
        String flag;
        String value;
        int eq = a.indexOf('=');
        if (eq > 0) {
          flag = a.substring(0, eq);
          value = a.substring(eq + 1);
        } else if (i + 1 < args.size()) {
          flag = a;
          value = args.get(++i);
        } else {
          throw new IllegalArgumentException("flag " + a + " needs a value");
        }
        if (!seen.add(flag)) {
          throw new IllegalArgumentException("flag " + flag + " is given twice");
        }
        switch (flag) {
          case "--kubeconfig" -> kubeconfig = Optional.of(Path.of(value));
          case "--node" -> {
            if (value.isEmpty()) {
              throw new IllegalArgumentException("--node needs a node name");
            }
            node = Optional.of(value);
          }
          case "--output", "-o" -> output = value.toLowerCase(Locale.ROOT);
          case "--color" -> color = value.toLowerCase(Locale.ROOT);
          default -> throw new IllegalArgumentException("unknown flag " + flag);
        }
      }
      if (!output.equals("table") && !output.equals("json")) {
        throw new IllegalArgumentException(
            "--output must be table or json, not \"" + output + "\"");
      }
      if (!List.of("auto", "always", "never").contains(color)) {
        throw new IllegalArgumentException(
            "--color must be auto, always or never, not \"" + color + "\"");
      }
      return new Options(kubeconfig, node, output.equals("json"), color);
    }
  }
}
