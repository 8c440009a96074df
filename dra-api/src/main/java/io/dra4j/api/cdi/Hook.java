package io.dra4j.api.cdi;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An OCI hook the runtime runs for the container.
 *
 * @param hookName one of prestart, createRuntime, createContainer, startContainer, poststart,
 *     poststop
 * @param path executable on the host
 * @param args full argv, including argv[0]
 * @param env environment, {@code KEY=VALUE}
 * @param timeout seconds
 */
public record Hook(
    String hookName, String path, List<String> args, List<String> env, Optional<Integer> timeout) {

  /** Hook names the CDI specification accepts. */
  public static final Set<String> NAMES =
      Set.of(
          "prestart",
          "createRuntime",
          "createContainer",
          "startContainer",
          "poststart",
          "poststop");

  public Hook {
    Objects.requireNonNull(hookName, "hookName");
    Objects.requireNonNull(path, "hook path");
    if (!NAMES.contains(hookName)) {
      throw new IllegalArgumentException(
          "hook name \"" + hookName + "\" is not one of " + new java.util.TreeSet<>(NAMES));
    }
    args = List.copyOf(args);
    env = List.copyOf(env);
    Objects.requireNonNull(timeout, "timeout");
  }

  public static Hook createContainer(String path, List<String> args) {
    return new Hook("createContainer", path, args, List.of(), Optional.empty());
  }
}
