package io.dra4j.doctor;

import io.dra4j.launcher.LauncherCommand;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

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
  public int run(
      List<String> args,
      Map<String, String> defaults,
      Map<String, String> env,
      PrintStream out,
      PrintStream err) {
    return Doctor.run(args, env, out, err);
  }
}
