package io.dra4j.api.cdi;

import java.util.Objects;
import java.util.Optional;

/**
 * A device node to create in the container.
 *
 * <p>A node marked {@linkplain #required() required} is checked to exist on the host when the claim
 * is prepared; a missing one fails the claim with a clear error instead of producing a CDI spec
 * that silently drops it (the container would start without its device). Optional nodes are left
 * out of the spec when absent. Build one with {@link #builder(String)}.
 */
public final class DeviceNode {
  private final String path;
  private final Optional<String> hostPath;
  private final Optional<String> type;
  private final Optional<Long> major;
  private final Optional<Long> minor;
  private final Optional<String> permissions;
  private final Optional<Integer> fileMode;
  private final Optional<Integer> uid;
  private final Optional<Integer> gid;
  private final boolean required;

  private DeviceNode(Builder b) {
    this.path = b.path;
    this.hostPath = b.hostPath;
    this.type = b.type;
    this.major = b.major;
    this.minor = b.minor;
    this.permissions = b.permissions;
    this.fileMode = b.fileMode;
    this.uid = b.uid;
    this.gid = b.gid;
    this.required = b.required;
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

  /** Path in the container. */
  public String path() {
    return path;
  }

  /** Path on the host when different from {@link #path()}. */
  public Optional<String> hostPath() {
    return hostPath;
  }

  /** {@code c}, {@code b}, {@code u} or {@code p}; empty to let the runtime stat the node. */
  public Optional<String> type() {
    return type;
  }

  /** Device major number, with {@link #type()}. */
  public Optional<Long> major() {
    return major;
  }

  /** Device minor number, with {@link #type()}. */
  public Optional<Long> minor() {
    return minor;
  }

  /** Cgroup permissions, a subset of {@code rwm}. */
  public Optional<String> permissions() {
    return permissions;
  }

  /** File mode in the container. */
  public Optional<Integer> fileMode() {
    return fileMode;
  }

  /** Owner in the container. */
  public Optional<Integer> uid() {
    return uid;
  }

  /** Group in the container. */
  public Optional<Integer> gid() {
    return gid;
  }

  /** Whether a missing host node fails the prepare. */
  public boolean required() {
    return required;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceNode n
        && path.equals(n.path)
        && hostPath.equals(n.hostPath)
        && type.equals(n.type)
        && major.equals(n.major)
        && minor.equals(n.minor)
        && permissions.equals(n.permissions)
        && fileMode.equals(n.fileMode)
        && uid.equals(n.uid)
        && gid.equals(n.gid)
        && required == n.required;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        path, hostPath, type, major, minor, permissions, fileMode, uid, gid, required);
  }

  @Override
  public String toString() {
    return "DeviceNode[path="
        + path
        + ", hostPath="
        + hostPath
        + ", type="
        + type
        + ", major="
        + major
        + ", minor="
        + minor
        + ", permissions="
        + permissions
        + ", fileMode="
        + fileMode
        + ", uid="
        + uid
        + ", gid="
        + gid
        + ", required="
        + required
        + "]";
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
      this.path = Objects.requireNonNull(path, "device node path");
    }

    public Builder hostPath(String value) {
      hostPath = Optional.of(value);
      return this;
    }

    /** A character device with its numbers: the runtime then need not stat the host node. */
    public Builder character(long majorNumber, long minorNumber) {
      return type("c").major(majorNumber).minor(minorNumber);
    }

    /** {@code c}, {@code b}, {@code u} or {@code p}, set with the numbers. */
    public Builder type(String value) {
      type = Optional.of(value);
      return this;
    }

    public Builder major(long value) {
      major = Optional.of(value);
      return this;
    }

    public Builder minor(long value) {
      minor = Optional.of(value);
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
      return new DeviceNode(this);
    }
  }
}
