package io.dra4j.api.cdi;

import java.util.ArrayList;
import java.util.List;

/**
 * What preparing a device changes in a container: environment, device nodes, mounts and hooks. The
 * runtime turns these into a CDI spec, one per claim, and returns the CDI device ids to the
 * kubelet.
 *
 * @param env {@code KEY=VALUE} entries
 * @param deviceNodes device nodes; required ones are checked on the host at prepare time
 * @param mounts mounts
 * @param hooks OCI hooks
 */
public record ContainerEdits(
    List<String> env, List<DeviceNode> deviceNodes, List<Mount> mounts, List<Hook> hooks) {

  /** No edits. */
  public static final ContainerEdits NONE =
      new ContainerEdits(List.of(), List.of(), List.of(), List.of());

  public ContainerEdits {
    env = List.copyOf(env);
    deviceNodes = List.copyOf(deviceNodes);
    mounts = List.copyOf(mounts);
    hooks = List.copyOf(hooks);
    for (String e : env) {
      if (e.indexOf('=') <= 0) {
        throw new IllegalArgumentException(
            "environment entry \"" + e + "\" must have the form KEY=VALUE with a non-empty key");
      }
    }
  }

  public boolean isEmpty() {
    return env.isEmpty() && deviceNodes.isEmpty() && mounts.isEmpty() && hooks.isEmpty();
  }

  /** These edits followed by {@code other}'s. */
  public ContainerEdits plus(ContainerEdits other) {
    return builder().add(this).add(other).build();
  }

  public static Builder builder() {
    return new Builder();
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
