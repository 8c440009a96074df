package io.dra4j.launcher;

/**
 * A command that an artifact on the class path adds to every {@link Launcher}, found with {@link
 * java.util.ServiceLoader}: list the implementation in {@code
 * META-INF/services/io.dra4j.launcher.LauncherCommand} (and {@code provides} it in a module
 * descriptor). dra-doctor contributes {@code doctor} this way, dra-dev {@code dev} and {@code
 * train}, so a driver's jar has a command exactly when it bundles the artifact, and the launcher
 * needs no dependency on either.
 *
 * <p>The launcher lists contributed commands after its built-in ones, by name. A contributed
 * command never replaces a built-in one of the same name; a vendor's {@link Launcher#command}
 * replaces either.
 */
public interface LauncherCommand {
  /** The word that selects the command: {@code java -jar <driver>.jar NAME ...}. */
  String name();

  /** One line for {@code --help}'s list of commands. */
  String description();

  /** What runs it. */
  Launcher.Command command();
}
