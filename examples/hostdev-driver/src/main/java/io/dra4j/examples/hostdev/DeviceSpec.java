package io.dra4j.examples.hostdev;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code --device} of github.com/squat/generic-device-plugin: a name and groups of host paths
 * or USB devices, each group one device (or {@code count} devices many pods may use at once).
 * {@link DeviceSpecs} reads them, with the plugin's defaults applied.
 *
 * @param name the device's name, e.g. {@code fuse}; the extended resource is {@code
 *     <domain>/<name>}
 * @param resourceName {@code <domain>/<name>}, e.g. {@code devic.es/fuse}
 * @param groups its groups, in order
 */
public record DeviceSpec(String name, String resourceName, List<Group> groups) {
  public DeviceSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(resourceName, "resourceName");
    groups = List.copyOf(groups);
  }

  /**
   * Host paths, or USB devices, handed to a container together.
   *
   * @param paths the paths (globs allowed); empty for a USB group
   * @param usb the USB devices by vendor, product and serial; empty for a path group
   * @param count how many devices the group makes (each path set may be used by this many
   *     containers at once); at least 1
   */
  public record Group(List<PathSpec> paths, List<UsbSpec> usb, int count) {
    public Group {
      paths = List.copyOf(paths);
      usb = List.copyOf(usb);
    }
  }

  /** What a path is handed to the container as. */
  public enum PathType {
    /** A device node: a CDI device node with the host's type, major and minor. */
    DEVICE,
    /** Any other file or folder: a bind mount. */
    MOUNT
  }

  /**
   * One path of a group.
   *
   * @param path the host path, absolute; may be a glob ({@code *}, {@code ?}, {@code [...]}), whose
   *     matches are found again on every rescan
   * @param mountPath where the container sees it; empty for the host path; ending in {@code /}:
   *     that folder with the host file's name
   * @param permissions the device cgroup access of a device node, a subset of {@code rwm}
   * @param readOnly whether a mount is read-only
   * @param type device node or mount
   * @param limit how many of the group's devices may share one match of this path when another path
   *     of the group matches more; at least 1
   * @param optional whether the group may do without it
   */
  public record PathSpec(
      String path,
      Optional<String> mountPath,
      String permissions,
      boolean readOnly,
      PathType type,
      int limit,
      boolean optional) {
    public PathSpec {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(mountPath, "mountPath");
      Objects.requireNonNull(permissions, "permissions");
      Objects.requireNonNull(type, "type");
    }

    /** Whether the path is a pattern (its matches may change) rather than one literal path. */
    public boolean isGlob() {
      return Glob.isPattern(path);
    }
  }

  /**
   * A USB device to match: all given fields must be equal.
   *
   * @param vendor {@code idVendor}, 0 to 0xffff
   * @param product {@code idProduct}
   * @param serial {@code serial}; empty matches any
   */
  public record UsbSpec(int vendor, int product, String serial) {
    public UsbSpec {
      Objects.requireNonNull(serial, "serial");
    }
  }
}
