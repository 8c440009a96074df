package ${package};

import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.launcher.Launcher;
import java.util.Map;

/**
 * {@code java -jar target/${artifactId}.jar run|deviceclass ...}: the driver (in a DaemonSet) and
 * its DeviceClass. {@code target/${artifactId}-dev.jar} is the same launcher with the development
 * commands on its class path (dra-dev): {@code dev}, the driver on this machine against the test
 * kit (no cluster), and {@code train}, the image build's training run. {@code --help} lists the
 * commands, {@code COMMAND --help} their flags.
 */
public final class Main {
  /** The driver name when neither --driver-name nor DRIVER_NAME says otherwise. */
  static final String DRIVER_NAME = "${driverName}";

  private Main() {}

  public static void main(String[] args) {
    Launcher.named("${artifactId}.jar")
        .defaults(Map.of("driver-name", DRIVER_NAME))
        .command(
            DeviceClassGenerator.COMMAND,
            "print the DeviceClass for this driver's devices (extendedResourceName "
                + DRIVER_NAME
                + "/device unless --extended-resource-name says otherwise)",
            // Named apart from main's args: a lambda's parameters may not shadow them.
            (commandArgs, launcherDefaults, env, out, err) ->
                DeviceClassGenerator.run(
                    commandArgs,
                    Map.of(
                        "driver-name", DRIVER_NAME,
                        "extended-resource-name", DRIVER_NAME + "/device"),
                    env,
                    out,
                    err))
        .main(args);
  }
}
