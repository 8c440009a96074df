package ${package};

import io.dra4j.launcher.Launcher;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.testkit.dev.DevCommand;
import io.dra4j.testkit.training.TrainCommand;
import java.util.Map;

/**
 * {@code java -jar ${artifactId}.jar run|dev|train|deviceclass|doctor ...}: the driver (in a
 * DaemonSet), the same driver on this machine against the test kit (no cluster), the image build's
 * training run, its DeviceClass, and the migration doctor. {@code --help} lists the commands,
 * {@code COMMAND --help} their flags.
 */
public final class Main {
  /** The driver name when neither --driver-name nor DRIVER_NAME says otherwise. */
  static final String DRIVER_NAME = "${driverName}";

  private Main() {}

  public static void main(String[] args) {
    Launcher.named("${artifactId}.jar")
        .defaults(Map.of("driver-name", DRIVER_NAME))
        .command(
            "dev",
            "the driver on this machine with the test kit's API server and kubelet simulator;"
                + " --claim prepares one claim",
            DevCommand::run)
        .command(
            "train",
            "the JVM's training run for the image: the driver's command line after -- against"
                + " the test kit's API server and kubelet simulator, then SIGTERM",
            TrainCommand::run)
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
