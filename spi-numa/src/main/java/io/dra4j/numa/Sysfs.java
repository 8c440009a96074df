package io.dra4j.numa;

import io.dra4j.api.provider.ProviderContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Reads the host's {@code /sys} through a configurable root, so discovery runs unchanged on a fake
 * tree in tests or on a host mount such as {@code /host/sys} inside a container.
 *
 * <p>Paths are given in their host form ({@code /sys/bus/pci/devices/0000:3b:00.0}) or relative to
 * {@code /sys} ({@code bus/pci/devices/0000:3b:00.0}) and resolved under {@link #root()}. Symbolic
 * links are resolved the way the kernel's sysfs links are meant: a relative target against the
 * link's directory, an absolute {@code /sys/...} target re-rooted under {@link #root()}. A target
 * that leaves the root is an error, never a silent read of the container's own files.
 *
 * <p>Link resolution is lexical (one level, then {@code ..} collapsed), like {@code readlink}
 * followed by a path join. That matches real sysfs, where the directories on the way to a link
 * ({@code bus/pci/devices}) are real directories.
 */
public final class Sysfs {

  /** Config key that overrides {@link ProviderContext#sysfsRoot()} for spi-numa. */
  public static final String CONFIG_SYSFS_ROOT = "sysfs-root";

  private static final String SYS_PREFIX = "/sys";

  private final Path root;

  private Sysfs(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  /**
   * A reader for the tree at {@code root}, which stands for the host's {@code /sys}.
   *
   * @param root the directory where the host's {@code /sys} is visible
   */
  public static Sysfs at(Path root) {
    return new Sysfs(Objects.requireNonNull(root, "sysfs root"));
  }

  /** The host's own {@code /sys}. */
  public static Sysfs host() {
    return at(Path.of(SYS_PREFIX));
  }

  /**
   * The root a provider context asks for: the {@value #CONFIG_SYSFS_ROOT} setting when present,
   * otherwise {@link ProviderContext#sysfsRoot()}.
   *
   * @throws IllegalArgumentException naming the key when the setting is empty
   */
  public static Sysfs from(ProviderContext context) {
    return context
        .config(CONFIG_SYSFS_ROOT)
        .map(
            v -> {
              if (v.isBlank()) {
                throw new IllegalArgumentException(
                    "setting " + CONFIG_SYSFS_ROOT + " must be a directory path, not empty");
              }
              return at(Path.of(v.trim()));
            })
        .orElseGet(() -> at(context.sysfsRoot()));
  }

  /** The directory that stands for {@code /sys}. */
  public Path root() {
    return root;
  }

  /**
   * The file behind a sysfs path.
   *
   * @param sysPath {@code /sys/...} or a path relative to {@code /sys}
   * @throws IllegalArgumentException for an absolute path outside {@code /sys} or one that climbs
   *     out of it with {@code ..}
   */
  public Path path(String sysPath) {
    Path p = root.resolve(relative(sysPath)).normalize();
    if (!p.startsWith(root)) {
      throw new IllegalArgumentException("sysfs path " + sysPath + " leaves the sysfs root");
    }
    return p;
  }

  /**
   * The content of a sysfs attribute file, without surrounding white space.
   *
   * @throws IOException naming the host path when the file cannot be read
   */
  public String read(String sysPath) throws IOException {
    Path p = path(sysPath);
    try {
      return Files.readString(p, StandardCharsets.US_ASCII).strip();
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(hostPath(p), null, "no such file");
    } catch (IOException e) {
      throw new IOException("cannot read " + hostPath(p) + ": " + e, e);
    }
  }

  /**
   * Whether the path exists, following links (a dangling link does not exist).
   *
   * @param sysPath {@code /sys/...} or a path relative to {@code /sys}
   */
  public boolean exists(String sysPath) {
    return Files.exists(path(sysPath));
  }

  /**
   * Resolves one symbolic link like {@code readlink} plus a path join: a relative target against
   * the link's directory, an absolute {@code /sys/...} target under {@link #root()}.
   *
   * @return the target, normalized, under {@link #root()}
   * @throws IOException naming the link when it is not a link, or its target leaves sysfs
   */
  public Path readLink(String sysPath) throws IOException {
    Path link = path(sysPath);
    Path target;
    try {
      target = Files.readSymbolicLink(link);
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(hostPath(link), null, "no such link");
    } catch (IOException | UnsupportedOperationException e) {
      throw new IOException(hostPath(link) + " is not a symbolic link: " + e, e);
    }
    Path resolved;
    if (target.isAbsolute()) {
      String t = target.toString();
      if (!(t.equals(SYS_PREFIX) || t.startsWith(SYS_PREFIX + "/"))) {
        throw new IOException(
            hostPath(link) + " points to " + t + ", outside " + SYS_PREFIX + "; cannot re-root it");
      }
      resolved = root.resolve(relative(t)).normalize();
    } else {
      resolved = link.getParent().resolve(target).normalize();
    }
    if (!resolved.startsWith(root)) {
      throw new IOException(hostPath(link) + " points to " + target + ", which leaves sysfs");
    }
    return resolved;
  }

  /**
   * The path with a symbolic link in its last component resolved by {@link #readLink}; the path
   * itself when that is not a link. Read files under a link through this, never through the
   * operating system: it would follow an absolute target into the container's own {@code /sys}.
   *
   * @throws IOException as {@link #readLink} does
   */
  public Path resolve(String sysPath) throws IOException {
    Path p = path(sysPath);
    return Files.isSymbolicLink(p) ? readLink(sysPath) : p;
  }

  /**
   * The host form ({@code /sys/...}) of a path under {@link #root()}, for messages and for
   * comparing with what a shell on the host would print.
   */
  public String hostPath(Path p) {
    Path abs = p.toAbsolutePath().normalize();
    if (!abs.startsWith(root)) {
      return abs.toString();
    }
    Path rel = root.relativize(abs);
    return rel.toString().isEmpty() ? SYS_PREFIX : SYS_PREFIX + "/" + rel;
  }

  private static String relative(String sysPath) {
    Objects.requireNonNull(sysPath, "sysfs path");
    if (sysPath.equals(SYS_PREFIX)) {
      return "";
    }
    if (sysPath.startsWith(SYS_PREFIX + "/")) {
      return sysPath.substring(SYS_PREFIX.length() + 1);
    }
    if (sysPath.startsWith("/")) {
      throw new IllegalArgumentException("sysfs path " + sysPath + " is not under " + SYS_PREFIX);
    }
    return sysPath;
  }

  @Override
  public String toString() {
    return "sysfs at " + root;
  }
}
