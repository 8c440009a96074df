package io.dra4j.api.cdi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** An OCI hook the runtime runs for the container (a CDI {@code Hook}). */
public final class Hook {

  /** Hook names the CDI specification accepts. */
  public static final Set<String> NAMES =
      Set.of(
          "prestart",
          "createRuntime",
          "createContainer",
          "startContainer",
          "poststart",
          "poststop");

  private final String hookName;
  private final String path;
  private final List<String> args;
  private final List<String> env;
  private final Optional<Integer> timeout;

  private Hook(Builder b) {
    this.hookName = b.hookName;
    this.path = b.path;
    this.args = List.copyOf(b.args);
    this.env = List.copyOf(b.env);
    this.timeout = b.timeout;
  }

  /** A {@code createContainer} hook. */
  public static Hook createContainer(String path, List<String> args) {
    return builder("createContainer", path).args(args).build();
  }

  /**
   * A builder: no arguments, environment or timeout unless said.
   *
   * @param hookName one of {@link #NAMES}
   * @param path executable on the host
   * @throws IllegalArgumentException when the hook name is not one of {@link #NAMES}
   */
  public static Builder builder(String hookName, String path) {
    return new Builder(hookName, path);
  }

  /** One of prestart, createRuntime, createContainer, startContainer, poststart, poststop. */
  public String hookName() {
    return hookName;
  }

  /** Executable on the host. */
  public String path() {
    return path;
  }

  /** Full argv, including argv[0]. */
  public List<String> args() {
    return args;
  }

  /** Environment, {@code KEY=VALUE}. */
  public List<String> env() {
    return env;
  }

  /** Seconds. */
  public Optional<Integer> timeout() {
    return timeout;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Hook h
        && hookName.equals(h.hookName)
        && path.equals(h.path)
        && args.equals(h.args)
        && env.equals(h.env)
        && timeout.equals(h.timeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(hookName, path, args, env, timeout);
  }

  @Override
  public String toString() {
    return "Hook[hookName="
        + hookName
        + ", path="
        + path
        + ", args="
        + args
        + ", env="
        + env
        + ", timeout="
        + timeout
        + "]";
  }

  /** Builds a {@link Hook}. */
  public static final class Builder {
    private final String hookName;
    private final String path;
    private final List<String> args = new ArrayList<>();
    private final List<String> env = new ArrayList<>();
    private Optional<Integer> timeout = Optional.empty();

    private Builder(String hookName, String path) {
      Objects.requireNonNull(hookName, "hookName");
      Objects.requireNonNull(path, "hook path");
      if (!NAMES.contains(hookName)) {
        throw new IllegalArgumentException(
            "hook name \"" + hookName + "\" is not one of " + new java.util.TreeSet<>(NAMES));
      }
      this.hookName = hookName;
      this.path = path;
    }

    /** Adds arguments (the full argv, including argv[0]). */
    public Builder args(List<String> values) {
      args.addAll(values);
      return this;
    }

    /** Adds environment entries, {@code KEY=VALUE}. */
    public Builder env(List<String> values) {
      env.addAll(values);
      return this;
    }

    /** A timeout in seconds. */
    public Builder timeout(int seconds) {
      timeout = Optional.of(seconds);
      return this;
    }

    public Hook build() {
      return new Hook(this);
    }
  }
}
