package io.dra4j.runtime.cdi;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.kube.KubeJson;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDI spec directories a container runtime reads (by default {@code /etc/cdi} for static specs
 * and {@code /var/run/cdi} for dynamic ones), as far as the driver sees them: where the CDI device
 * ids a provider manages itself ({@code PreparedDevice.cdiDeviceIds()}, e.g. from the static spec
 * {@code nvidia-ctk cdi generate} writes) are checked before the kubelet gets them. The Go helper
 * passes such ids on unchecked; an id that names no device fails the container's start, long after
 * the claim was reported prepared, so dra4j fails the claim instead.
 *
 * <p>Reads {@code *.json} and {@code *.yaml} files, as the CDI library does, and keeps what it read
 * of each file until the file changes. Thread-safe.
 */
public final class CdiSpecDirectories {

  /** The CDI library's directory of static specs. */
  public static final Path DEFAULT_STATIC_DIRECTORY = Path.of("/etc/cdi");

  /**
   * A qualified device id as the CDI library parses it ({@code
   * tags.cncf.io/container-device-interface@v1.1.1 pkg/parser/parser.go}: {@code
   * ParseQualifiedName}): {@code vendor/class=name}, vendor and class a letter then letters,
   * digits, '_', '.' or '-' ending in a letter or digit, the name likewise starting with a letter
   * or digit and allowing ':'.
   */
  private static final Pattern QUALIFIED =
      Pattern.compile(
          "([A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)/([A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?)"
              + "=([A-Za-z0-9](?:[A-Za-z0-9_.:-]*[A-Za-z0-9])?)");

  private static final Logger LOG = LoggerFactory.getLogger(CdiSpecDirectories.class);

  /** What one spec file declares, and the file's state when it was read. */
  private record Read(FileTime modified, long size, String kind, Set<String> devices) {}

  private final List<Path> directories;
  private final Set<String> reservedKinds;
  private final Map<Path, Read> cache = new HashMap<>(); // guarded by this

  /**
   * @param directories the spec directories, as the driver sees them
   * @param reservedKinds the kinds the runtime writes itself ({@code vendor/class}): a provider's
   *     id of such a kind would name a spec the runtime removes
   */
  public CdiSpecDirectories(List<Path> directories, Set<String> reservedKinds) {
    this.directories = List.copyOf(directories);
    this.reservedKinds = Set.copyOf(reservedKinds);
  }

  public List<Path> directories() {
    return directories;
  }

  /**
   * Checks ids a provider manages itself: each is a qualified CDI device id, of a kind the runtime
   * does not write, naming a device of a spec in these directories.
   *
   * @param owner names the device in messages, e.g. {@code device gpu-0 of claim ns/c (uid)}
   * @throws DeviceException naming the id and what is wrong with it
   * @throws IOException when a directory cannot be listed
   */
  public synchronized void requireDevices(String owner, List<String> ids)
      throws DeviceException, IOException {
    Set<String> seen = new HashSet<>();
    Map<String, Set<String>> devicesByKind = null;
    for (String id : ids) {
      var m = QUALIFIED.matcher(Objects.requireNonNull(id, "CDI device id"));
      if (!m.matches()) {
        throw new DeviceException(
            owner
                + ": CDI device id \""
                + id
                + "\" is not a qualified CDI device name vendor/class=name (vendor and class start"
                + " with a letter; letters, digits, '_', '.', '-'; the name also ':')");
      }
      String kind = m.group(1) + "/" + m.group(2);
      if (reservedKinds.contains(kind)) {
        throw new DeviceException(
            owner
                + ": CDI device id \""
                + id
                + "\" is of kind "
                + kind
                + ", whose specs dra4j writes and removes itself; return container edits instead");
      }
      if (!seen.add(id)) {
        throw new DeviceException(owner + ": CDI device id \"" + id + "\" is returned twice");
      }
      if (devicesByKind == null) {
        devicesByKind = scan();
      }
      if (!devicesByKind.getOrDefault(kind, Set.of()).contains(m.group(3))) {
        throw new DeviceException(
            owner
                + ": CDI device id \""
                + id
                + "\" names no device of a CDI spec of kind "
                + kind
                + " in "
                + directories
                + " (the container runtime could not inject it)");
      }
    }
  }

  /** Every kind's device names across the directories, reading only the files that changed. */
  private Map<String, Set<String>> scan() throws IOException {
    Map<String, Set<String>> out = new HashMap<>();
    Set<Path> present = new HashSet<>();
    for (Path dir : directories) {
      for (Path file : specFiles(dir)) {
        present.add(file);
        Read r = read(file);
        if (r != null) {
          out.computeIfAbsent(r.kind(), k -> new HashSet<>()).addAll(r.devices());
        }
      }
    }
    cache.keySet().retainAll(present);
    return out;
  }

  private static List<Path> specFiles(Path dir) throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.{json,yaml}")) {
      ds.forEach(files::add);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return files;
  }

  /** What the file declares; null when it is not a readable spec (the CDI library skips it too). */
  private Read read(Path file) {
    BasicFileAttributes attrs;
    try {
      // A link to a spec counts: the CDI library follows links as well.
      attrs = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (IOException e) {
      return null;
    }
    if (!attrs.isRegularFile()) {
      return null;
    }
    Read known = cache.get(file);
    if (known != null
        && known.modified().equals(attrs.lastModifiedTime())
        && known.size() == attrs.size()) {
      return known;
    }
    Read r = null;
    try {
      JsonNode root = KubeJson.yaml().readTree(file.toFile());
      JsonNode kind = root == null ? null : root.get("kind");
      if (kind != null && kind.isTextual()) {
        Set<String> names = new HashSet<>();
        for (JsonNode d : root.path("devices")) {
          if (d.path("name").isTextual()) {
            names.add(d.path("name").textValue());
          }
        }
        r = new Read(attrs.lastModifiedTime(), attrs.size(), kind.textValue(), Set.copyOf(names));
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("{} is not a readable CDI spec: {}", file, e.toString());
    }
    if (r != null) {
      cache.put(file, r);
    } else {
      cache.remove(file);
    }
    return r;
  }

  @Override
  public String toString() {
    return "CDI spec directories " + directories;
  }
}
