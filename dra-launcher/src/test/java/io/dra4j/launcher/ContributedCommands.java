package io.dra4j.launcher;

/** Commands found through META-INF/services, as an optional artifact contributes them. */
final class ContributedCommands {
  private ContributedCommands() {}

  /** {@code greet}: prints its arguments and the launcher's defaults. */
  public static final class Greet implements LauncherCommand {
    @Override
    public String name() {
      return "greet";
    }

    @Override
    public String description() {
      return "a command an artifact on the class path contributes";
    }

    @Override
    public Launcher.Command command() {
      return (args, defaults, env, out, err) -> {
        out.println("greet " + args + " " + defaults);
        return 3;
      };
    }
  }

  /** Names the built-in {@code run}: the launcher keeps its own. */
  public static final class OtherRun implements LauncherCommand {
    @Override
    public String name() {
      return "run";
    }

    @Override
    public String description() {
      return "not the driver";
    }

    @Override
    public Launcher.Command command() {
      return (args, defaults, env, out, err) -> {
        throw new AssertionError("a contributed command replaced the built-in run");
      };
    }
  }
}
