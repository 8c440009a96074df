package io.dra4j.api.cdi;

import java.util.Objects;
import java.util.Optional;

/**
 * A device node to create in the container.
 *
 * <p>A node marked {@linkplain #required() required} is checked to exist on the host when the claim
 * is prepared; a missing one fails the claim with a clear error instead of producing a CDI spec
 * that silently drops it (the container would start without its device). Optional nodes are left
 * out of the spec when absent.
 *
 * @param path path in the container
 * @param hostPath path on the host when different from {@code path}
 * @param type {@code c}, {@code b}, {@code u} or {@code p}; empty to let the runtime stat the node
 * @param major device major number, with {@code type}
 * @param minor device minor number, with {@code type}
 * @param permissions cgroup permissions, a subset of {@code rwm}
 * @param fileMode file mode in the container
 * @param uid owner in the container
 * @param gid group in the container
 * @param required whether a missing host node fails the prepare
 */
public record DeviceNode(
    String path,
    Optional<String> hostPath,
    Optional<String> type,
    Optional<Long> major,
    Optional<Long> minor,
    Optional<String> permissions,
    Optional<Integer> fileMode,
    Optional<Integer> uid,
    Optional<Integer> gid,
    boolean required) {

  public DeviceNode {
    Objects.requireNonNull(path, "device node path");
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(major, "major");
    Objects.requireNonNull(minor, "minor");
    Objects.requireNonNull(permissions, "permissions");
    Objects.requireNonNull(fileMode, "fileMode");
    Objects.requireNonNull(uid, "uid");
    Objects.requireNonNull(gid, "gid");
  }

  /** A required node at the same path in the host and the container. */
  public static DeviceNode required(String path) {
    return builder(path).build();
  }

  /** A node that is left out when the host does not have it. */
  public static DeviceNode optional(String path) {
    return builder(path).required(false).build();
  }

  /** The path to check on the host. */
  public String hostPathOrPath() {
    return hostPath.orElse(path);
  }

  public static Builder builder(String path) {
    return new Builder(path);
  }

  /** Builds a {@link DeviceNode}; nodes are required unless said otherwise. */
  public static final class Builder {
    private final String path;
    private Optional<String> hostPath = Optional.empty();
    private Optional<String> type = Optional.empty();
    private Optional<Long> major = Optional.empty();
    private Optional<Long> minor = Optional.empty();
    private Optional<String> permissions = Optional.empty();
    private Optional<Integer> fileMode = Optional.empty();
    private Optional<Integer> uid = Optional.empty();
    private Optional<Integer> gid = Optional.empty();
    private boolean required = true;

    private Builder(String path) {
      this.path = path;
    }

    public Builder hostPath(String value) {
      hostPath = Optional.of(value);
      return this;
    }

    /** Explicit type and numbers: the runtime then need not stat the host node. */
    public Builder character(long majorNumber, long minorNumber) {
      type = Optional.of("c");
      major = Optional.of(majorNumber);
      minor = Optional.of(minorNumber);
      return this;
    }

    public Builder permissions(String value) {
      permissions = Optional.of(value);
      return this;
    }

    public Builder fileMode(int value) {
      fileMode = Optional.of(value);
      return this;
    }

    public Builder owner(int uidValue, int gidValue) {
      uid = Optional.of(uidValue);
      gid = Optional.of(gidValue);
      return this;
    }

    public Builder required(boolean value) {
      required = value;
      return this;
    }

    public DeviceNode build() {
      return new DeviceNode(
          path, hostPath, type, major, minor, permissions, fileMode, uid, gid, required);
    }
  }
}
