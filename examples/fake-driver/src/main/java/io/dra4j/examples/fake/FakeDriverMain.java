package io.dra4j.examples.fake;

import io.dra4j.runtime.DriverMain;
import io.dra4j.runtime.doctor.Doctor;
import io.dra4j.runtime.extendedresource.DeviceClassGenerator;
import io.dra4j.testkit.dev.DevCommand;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar fake-dra-driver.jar run|demo|deviceclass|doctor ...}: the fake DRA driver, the
 * no-cluster demo, a DeviceClass generator, and the migration doctor.
 */
public final class FakeDriverMain {
  /** The driver name when neither --driver-name nor DRIVER_NAME says otherwise. */
  static final String DEFAULT_DRIVER_NAME = "gpu.example.com";

  static final String USAGE =
      String.join(
          "\n",
          "usage: java -jar fake-dra-driver.jar COMMAND [flags]",
          "",
          "commands:",
          "  run          the DRA driver (flags: run --help)",
          "  dev          the driver on this machine with the test kit's API server and kubelet",
          "               simulator: slices, a kubeconfig, --claim prepares one (flags: dev --help)",
          "  demo         the whole Kubernetes 1.37 story on this machine, no cluster needed",
          "               (--keep leaves everything running and prints the kubeconfig path)",
          "  deviceclass  print a DeviceClass for this driver's devices, e.g.",
          "               deviceclass --extended-resource-name example.com/gpu --match type=gpu",
          "               (flags: deviceclass --help)",
          "  doctor       check a cluster's migration from device plugins to DRA, read-only",
          "               (flags: doctor --help)");

  private FakeDriverMain() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), System.getenv(), System.out, System.err));
  }

  static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    if (args.isEmpty()) {
      err.println(USAGE);
      return 2;
    }
    List<String> rest = args.subList(1, args.size());
    switch (args.get(0)) {
      case "run":
        return DriverMain.run(
            rest, Map.of("provider", "fake", "driver-name", DEFAULT_DRIVER_NAME), env, err);
      case "dev":
        return DevCommand.run(
            rest, Map.of("provider", "fake", "driver-name", DEFAULT_DRIVER_NAME), env, out, err);
      case "demo":
        return FakeDemo.run(rest, out, err);
      case DeviceClassGenerator.COMMAND:
        return DeviceClassGenerator.run(
            rest, Map.of("driver-name", DEFAULT_DRIVER_NAME), env, out, err);
      case Doctor.COMMAND:
        return Doctor.run(rest, env, out, err);
      case "-h":
      case "--help":
      case "help":
        out.println(USAGE);
        return 0;
      default:
        err.println("unknown command \"" + args.get(0) + "\"\n" + USAGE);
        return 2;
    }
  }
}
