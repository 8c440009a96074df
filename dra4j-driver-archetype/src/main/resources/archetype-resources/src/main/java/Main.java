package ${package};

import io.dra4j.runtime.DriverMain;
import io.dra4j.runtime.extendedresource.DeviceClassGenerator;
import io.dra4j.testkit.dev.DevCommand;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar ${artifactId}.jar run|dev|deviceclass ...}: the driver (in a DaemonSet), the
 * same driver on this machine against the test kit (no cluster), and its DeviceClass.
 */
public final class Main {
  /** The driver name when neither --driver-name nor DRIVER_NAME says otherwise. */
  static final String DRIVER_NAME = "${driverName}";

  static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar ${artifactId}.jar COMMAND [flags]",
          "",
          "commands:",
          "  run          the DRA driver, as its DaemonSet runs it (flags: run --help)",
          "  dev          the driver on this machine with the test kit's API server and kubelet",
          "               simulator; --claim prepares one claim (flags: dev --help)",
          "  deviceclass  print the DeviceClass for this driver's devices",
          "               (extendedResourceName " + DRIVER_NAME + "/device unless",
          "               --extended-resource-name says otherwise; flags: deviceclass --help)");

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), System.getenv(), System.out, System.err));
  }

  static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    if (args.isEmpty()) {
      err.println(USAGE);
      return 2;
    }
    List<String> rest = args.subList(1, args.size());
    Map<String, String> defaults = Map.of("driver-name", DRIVER_NAME);
    switch (args.get(0)) {
      case "run":
        return DriverMain.run(rest, defaults, env, err);
      case "dev":
        return DevCommand.run(rest, defaults, env, out, err);
      case DeviceClassGenerator.COMMAND:
        return DeviceClassGenerator.run(
            rest,
            Map.of("driver-name", DRIVER_NAME, "extended-resource-name", DRIVER_NAME + "/device"),
            env,
            out,
            err);
      case "-h":
      case "--help":
        out.println(USAGE);
        return 0;
      default:
        err.println("unknown command \"" + args.get(0) + "\"\n" + USAGE);
        return 2;
    }
  }
}
