package io.dra4j.doctor;

import io.dra4j.launcher.Launcher;
import io.dra4j.launcher.LauncherCommand;

/** {@code doctor}, contributed to every launcher whose class path holds dra-doctor. */
public final class DoctorCommand implements LauncherCommand {
  /** For {@link java.util.ServiceLoader}. */
  public DoctorCommand() {}

  @Override
  public String name() {
    return Doctor.COMMAND;
  }

  @Override
  public String description() {
    return "check a cluster's migration from device plugins to DRA, read-only";
  }

  @Override
  public Launcher.Command command() {
    return (args, defaults, env, out, err) -> Doctor.run(args, env, out, err);
  }
}
