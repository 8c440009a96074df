package io.dra4j.api.cdi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** A mount to add to the container (a CDI {@code Mount}). */
public final class Mount {
  private final String hostPath;
  private final String containerPath;
  private final Optional<String> type;
  private final List<String> options;

  private Mount(Builder b) {
    this.hostPath = b.hostPath;
    this.containerPath = b.containerPath;
    this.type = b.type;
    this.options = List.copyOf(b.options);
  }

  /** A read-only bind mount, the usual way to hand a file or library to a container. */
  public static Mount readOnlyBind(String hostPath, String containerPath) {
    return builder(hostPath, containerPath)
        .options(List.of("ro", "nosuid", "nodev", "rbind", "rprivate"))
        .build();
  }

  /**
   * A builder: no type, no options unless said.
   *
   * @param hostPath source on the host
   * @param containerPath target in the container
   */
  public static Builder builder(String hostPath, String containerPath) {
    return new Builder(hostPath, containerPath);
  }

  /** Source on the host. */
  public String hostPath() {
    return hostPath;
  }

  /** Target in the container. */
  public String containerPath() {
    return containerPath;
  }

  /** Mount type such as {@code bind}; setting it needs CDI 0.4.0. */
  public Optional<String> type() {
    return type;
  }

  /** Mount options such as {@code ro}, {@code nosuid}, {@code rbind}. */
  public List<String> options() {
    return options;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Mount m
        && hostPath.equals(m.hostPath)
        && containerPath.equals(m.containerPath)
        && type.equals(m.type)
        && options.equals(m.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(hostPath, containerPath, type, options);
  }

  @Override
  public String toString() {
    return "Mount[hostPath="
        + hostPath
        + ", containerPath="
        + containerPath
        + ", type="
        + type
        + ", options="
        + options
        + "]";
  }

  /** Builds a {@link Mount}. */
  public static final class Builder {
    private final String hostPath;
    private final String containerPath;
    private Optional<String> type = Optional.empty();
    private final List<String> options = new ArrayList<>();

    private Builder(String hostPath, String containerPath) {
      this.hostPath = Objects.requireNonNull(hostPath, "hostPath");
      this.containerPath = Objects.requireNonNull(containerPath, "containerPath");
    }

    /** The mount type such as {@code bind}; needs CDI 0.4.0 (the runtime picks the version). */
    public Builder type(String value) {
      type = Optional.of(value);
      return this;
    }

    /** Adds mount options. */
    public Builder options(List<String> values) {
      options.addAll(values);
      return this;
    }

    public Mount build() {
      return new Mount(this);
    }
  }
}
