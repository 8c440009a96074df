package io.dra4j.dev;

import io.dra4j.launcher.Launcher;
import io.dra4j.launcher.LauncherCommand;

/** {@code dev} and {@code train}, contributed to every launcher whose class path holds dra-dev. */
public final class DevCommands {
  private DevCommands() {}

  /** {@code dev}: {@link DevCommand}. */
  public static final class Dev implements LauncherCommand {
    /** For {@link java.util.ServiceLoader}. */
    public Dev() {}

    @Override
    public String name() {
      return "dev";
    }

    @Override
    public String description() {
      return "the driver on this machine with the test kit's API server and kubelet simulator:"
          + " slices, a kubeconfig, --claim prepares one";
    }

    @Override
    public Launcher.Command command() {
      return DevCommand::run;
    }
  }

  /** {@code train}: {@link TrainCommand}. */
  public static final class Train implements LauncherCommand {
    /** For {@link java.util.ServiceLoader}. */
    public Train() {}

    @Override
    public String name() {
      return "train";
    }

    @Override
    public String description() {
      return "the JVM's training run for the image: the driver's command line after -- against"
          + " the test kit's API server and kubelet simulator, then SIGTERM";
    }

    @Override
    public Launcher.Command command() {
      return TrainCommand::run;
    }
  }
}
