package io.dra4j.api.cdi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What preparing a device changes in a container: environment, device nodes, mounts and hooks. The
 * runtime turns these into a CDI spec, one per claim, and returns the CDI device ids to the
 * kubelet. Build them with {@link #builder()}.
 */
public final class ContainerEdits {

  /** No edits. */
  public static final ContainerEdits NONE =
      new ContainerEdits(List.of(), List.of(), List.of(), List.of());

  private final List<String> env;
  private final List<DeviceNode> deviceNodes;
  private final List<Mount> mounts;
  private final List<Hook> hooks;

  private ContainerEdits(
      List<String> env, List<DeviceNode> deviceNodes, List<Mount> mounts, List<Hook> hooks) {
    this.env = List.copyOf(env);
    this.deviceNodes = List.copyOf(deviceNodes);
    this.mounts = List.copyOf(mounts);
    this.hooks = List.copyOf(hooks);
    for (String e : env) {
      if (e.indexOf('=') <= 0) {
        throw new IllegalArgumentException(
            "environment entry \"" + e + "\" must have the form KEY=VALUE with a non-empty key");
      }
    }
  }

  /** {@code KEY=VALUE} entries. */
  public List<String> env() {
    return env;
  }

  /** Device nodes; required ones are checked on the host at prepare time. */
  public List<DeviceNode> deviceNodes() {
    return deviceNodes;
  }

  /** Mounts. */
  public List<Mount> mounts() {
    return mounts;
  }

  /** OCI hooks. */
  public List<Hook> hooks() {
    return hooks;
  }

  public boolean isEmpty() {
    return env.isEmpty() && deviceNodes.isEmpty() && mounts.isEmpty() && hooks.isEmpty();
  }

  /** These edits with other device nodes. */
  public ContainerEdits withDeviceNodes(List<DeviceNode> value) {
    return new ContainerEdits(env, value, mounts, hooks);
  }

  /** These edits followed by {@code other}'s. */
  public ContainerEdits plus(ContainerEdits other) {
    return builder().add(this).add(other).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ContainerEdits e
        && env.equals(e.env)
        && deviceNodes.equals(e.deviceNodes)
        && mounts.equals(e.mounts)
        && hooks.equals(e.hooks);
  }

  @Override
  public int hashCode() {
    return Objects.hash(env, deviceNodes, mounts, hooks);
  }

  @Override
  public String toString() {
    return "ContainerEdits[env="
        + env
        + ", deviceNodes="
        + deviceNodes
        + ", mounts="
        + mounts
        + ", hooks="
        + hooks
        + "]";
  }

  /** Builds {@link ContainerEdits}. */
  public static final class Builder {
    private final List<String> env = new ArrayList<>();
    private final List<DeviceNode> deviceNodes = new ArrayList<>();
    private final List<Mount> mounts = new ArrayList<>();
    private final List<Hook> hooks = new ArrayList<>();

    private Builder() {}

    public Builder env(String key, String value) {
      env.add(key + "=" + value);
      return this;
    }

    public Builder deviceNode(DeviceNode node) {
      deviceNodes.add(node);
      return this;
    }

    public Builder mount(Mount mount) {
      mounts.add(mount);
      return this;
    }

    public Builder hook(Hook hook) {
      hooks.add(hook);
      return this;
    }

    public Builder add(ContainerEdits edits) {
      env.addAll(edits.env());
      deviceNodes.addAll(edits.deviceNodes());
      mounts.addAll(edits.mounts());
      hooks.addAll(edits.hooks());
      return this;
    }

    public ContainerEdits build() {
      return new ContainerEdits(env, deviceNodes, mounts, hooks);
    }
  }
}
