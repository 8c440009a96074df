package io.dra4j.examples.hostdev;

import io.dra4j.examples.hostdev.DeviceSpec.Group;
import io.dra4j.examples.hostdev.DeviceSpec.PathSpec;
import io.dra4j.examples.hostdev.DeviceSpec.PathType;
import io.dra4j.examples.hostdev.DeviceSpec.UsbSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Finds the devices of {@link DeviceSpec}s on this host, group by group, as generic-device-plugin's
 * {@code discoverPath} and {@code discoverUSB} do, so that both count the same devices with the
 * same ids:
 *
 * <ul>
 *   <li>Path groups: each path's matches (a glob's, sorted; {@code limit} times over), a path
 *       without matches left out when optional; the group makes as many path sets as its paths'
 *       most matches, capped by the fewest of a path repeated {@code limit} times; each set {@code
 *       count} times. A literal (non-glob) path that is not optional always counts as one match,
 *       present or not: its device exists and is unhealthy while the path is missing (the plugin
 *       would list no device then). A glob's matches are found again on every scan.
 *   <li>USB groups: every device under {@code <sysfs>/bus/usb/devices} whose {@code idVendor},
 *       {@code idProduct} and (when given) {@code serial} match, at {@code
 *       /dev/bus/usb/<busnum>/<devnum>}; all matches of the group form one device, {@code count}
 *       times.
 *   <li>A device's id is the plugin's: the SHA-1 of the instance number and the host paths; its
 *       name is {@code <name>-<first 10 hex digits of the id>}, stable while its paths are.
 * </ul>
 *
 * <p>Device nodes take their type, major and minor from the host ({@code stat}); a device node
 * whose sysfs device ({@code /sys/dev/char/<major>:<minor>}) sits on a PCI function gets that
 * function's address (the first bus device above it; a USB device on a PCI controller is a USB
 * device, not the controller).
 *
 * <p>Host paths are read through the driver's view: {@code /dev/...} under the dev root, {@code
 * /sys/...} under the sysfs root, anything else as it is.
 */
final class HostDevices {
  private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,3}");
  private static final HexFormat HEX = HexFormat.of();

  /** A device node or mount of a device, with what the host says about it. */
  record HostPath(
      String hostPath,
      String containerPath,
      PathType type,
      String permissions,
      boolean readOnly,
      boolean optional,
      boolean literal,
      Optional<Character> nodeType,
      long major,
      long minor) {}

  /**
   * One device.
   *
   * @param name the DRA device name
   * @param id the plugin's device id
   * @param spec the device specification
   * @param group the group's index in the specification
   * @param instance which of the group's {@code count} devices this is
   * @param paths its device nodes and mounts
   * @param missing the non-optional literal paths the host lacks now
   * @param pciBusId the PCI address of its first device node's function, if any
   * @param usb the USB device when the group matched exactly one
   */
  record HostDevice(
      String name,
      String id,
      DeviceSpec spec,
      int group,
      int instance,
      List<HostPath> paths,
      List<String> missing,
      Optional<String> pciBusId,
      Optional<UsbDevice> usb) {}

  /** A USB device found in sysfs. */
  record UsbDevice(int vendor, int product, String serial, String devicePath) {}

  private final Path devRoot;
  private final Path sysfsRoot;

  HostDevices(Path devRoot, Path sysfsRoot) {
    this.devRoot = devRoot;
    this.sysfsRoot = sysfsRoot;
  }

  /** Where the driver sees a host path. */
  Path view(String hostPath) {
    if (hostPath.equals("/dev") || hostPath.startsWith("/dev/")) {
      return devRoot.resolve(hostPath.substring(Math.min(hostPath.length(), 5)));
    }
    if (hostPath.equals("/sys") || hostPath.startsWith("/sys/")) {
      return sysfsRoot.resolve(hostPath.substring(Math.min(hostPath.length(), 5)));
    }
    return Path.of(hostPath);
  }

  /** The devices of every specification, by name in discovery order. */
  Map<String, HostDevice> scan(List<DeviceSpec> specs) throws IOException {
    Map<String, HostDevice> out = new java.util.LinkedHashMap<>();
    List<UsbDevice> usb = null;
    for (DeviceSpec spec : specs) {
      for (int g = 0; g < spec.groups().size(); g++) {
        Group group = spec.groups().get(g);
        List<List<HostPath>> sets;
        Optional<UsbDevice> single = Optional.empty();
        if (!group.usb().isEmpty()) {
          if (usb == null) {
            usb = usbDevices();
          }
          List<UsbDevice> matched = matchUsb(group.usb(), usb);
          single = matched.size() == 1 ? Optional.of(matched.get(0)) : Optional.empty();
          List<HostPath> nodes = new ArrayList<>();
          for (UsbDevice d : matched) {
            nodes.add(
                node(d.devicePath(), d.devicePath(), PathType.DEVICE, "rw", false, false, false));
          }
          sets = nodes.isEmpty() ? List.of() : List.of(nodes);
        } else {
          sets = pathSets(group);
        }
        for (List<HostPath> set : sets) {
          for (int j = 0; j < group.count(); j++) {
            HostDevice d = device(spec, g, j, set, single);
            out.put(d.name(), d);
          }
        }
      }
    }
    return out;
  }

  private List<List<HostPath>> pathSets(Group group) throws IOException {
    List<PathSpec> used = new ArrayList<>();
    List<List<String>> matches = new ArrayList<>();
    int length = 0;
    int reusable = Integer.MAX_VALUE;
    for (PathSpec p : group.paths()) {
      List<String> found =
          p.isGlob()
              ? Glob.expand(p.path(), this::view)
              : p.optional() && !Files.exists(view(p.path())) ? List.of() : List.of(p.path());
      if (found.isEmpty() && p.optional()) {
        continue;
      }
      List<String> repeated = new ArrayList<>();
      for (int i = 0; i < p.limit(); i++) {
        repeated.addAll(found);
      }
      used.add(p);
      matches.add(repeated);
      reusable = Math.min(reusable, repeated.size());
      length = Math.max(length, found.size());
    }
    length = Math.min(length, reusable);
    List<List<HostPath>> sets = new ArrayList<>();
    for (int i = 0; i < length; i++) {
      List<HostPath> set = new ArrayList<>();
      for (int k = 0; k < used.size(); k++) {
        PathSpec p = used.get(k);
        String host = matches.get(k).get(i);
        String container = p.mountPath().orElse(host);
        if (container.endsWith("/")) {
          container = container + Path.of(host).getFileName();
        }
        set.add(
            node(
                host,
                container,
                p.type(),
                p.permissions(),
                p.readOnly(),
                p.optional(),
                !p.isGlob()));
      }
      sets.add(set);
    }
    return sets;
  }

  private HostPath node(
      String host,
      String container,
      PathType type,
      String permissions,
      boolean readOnly,
      boolean optional,
      boolean literal)
      throws IOException {
    Optional<Character> nodeType = Optional.empty();
    long major = 0;
    long minor = 0;
    if (type == PathType.DEVICE) {
      try {
        Map<String, Object> a = Files.readAttributes(view(host), "unix:mode,rdev");
        int fileType = (Integer) a.get("mode") & 0170000;
        long rdev = (Long) a.get("rdev");
        if (fileType == 0020000 || fileType == 0060000) {
          nodeType = Optional.of(fileType == 0020000 ? 'c' : 'b');
          // glibc's gnu_dev_major / gnu_dev_minor.
          major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL);
          minor = (rdev & 0xff) | ((rdev >>> 12) & ~0xffL);
        }
      } catch (NoSuchFileException e) {
        // Missing: the device is unhealthy (literal) or was not matched (glob).
      }
    }
    return new HostPath(
        host, container, type, permissions, readOnly, optional, literal, nodeType, major, minor);
  }

  private HostDevice device(
      DeviceSpec spec, int group, int instance, List<HostPath> set, Optional<UsbDevice> usb)
      throws IOException {
    MessageDigest sha1;
    try {
      sha1 = MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    sha1.update(Integer.toString(instance).getBytes(StandardCharsets.UTF_8));
    List<String> missing = new ArrayList<>();
    Optional<String> pci = Optional.empty();
    for (HostPath p : set) {
      sha1.update(p.hostPath().getBytes(StandardCharsets.UTF_8));
      if (p.literal() && !p.optional() && !Files.exists(view(p.hostPath()))) {
        missing.add(p.hostPath());
      }
      if (pci.isEmpty() && p.nodeType().isPresent()) {
        pci = pciFunction(p);
      }
    }
    String id = HEX.formatHex(sha1.digest());
    String base = spec.name().length() > 52 ? spec.name().substring(0, 52) : spec.name();
    while (base.endsWith("-")) {
      base = base.substring(0, base.length() - 1);
    }
    return new HostDevice(
        base + "-" + id.substring(0, 10), id, spec, group, instance, set, missing, pci, usb);
  }

  /**
   * The PCI function a device node belongs to: above its sysfs device, class devices (misc, drm,
   * tty...) are passed; the first bus device decides (PCI: its address; another bus: none).
   */
  private Optional<String> pciFunction(HostPath node) throws IOException {
    Path link =
        sysfsRoot
            .resolve("dev")
            .resolve(node.nodeType().get() == 'c' ? "char" : "block")
            .resolve(node.major() + ":" + node.minor());
    if (!Files.exists(link)) {
      return Optional.empty();
    }
    Path devices = sysfsRoot.resolve("devices").toRealPath();
    for (Path d = link.toRealPath(); d != null && d.startsWith(devices); d = d.getParent()) {
      Path subsystem = d.resolve("subsystem");
      if (!Files.exists(subsystem)) {
        continue;
      }
      Path target = subsystem.toRealPath();
      if (target.getParent() != null
          && target.getParent().getFileName() != null
          && target.getParent().getFileName().toString().equals("bus")) {
        return target.getFileName().toString().equals("pci")
            ? Optional.of(d.getFileName().toString())
            : Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** Every USB device in sysfs that has the identifying files; others are skipped. */
  private List<UsbDevice> usbDevices() throws IOException {
    Path dir = sysfsRoot.resolve("bus/usb/devices");
    List<UsbDevice> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    Map<String, Path> sorted = new TreeMap<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path p : s) {
        sorted.put(p.getFileName().toString(), p);
      }
    }
    for (Path p : sorted.values()) {
      Optional<String> vendor = read(p.resolve("idVendor"));
      Optional<String> product = read(p.resolve("idProduct"));
      Optional<String> bus = read(p.resolve("busnum"));
      Optional<String> dev = read(p.resolve("devnum"));
      if (vendor.isEmpty() || product.isEmpty() || bus.isEmpty() || dev.isEmpty()) {
        continue;
      }
      if (!DECIMAL.matcher(bus.get()).matches() || !DECIMAL.matcher(dev.get()).matches()) {
        continue;
      }
      try {
        out.add(
            new UsbDevice(
                Integer.parseInt(vendor.get(), 16),
                Integer.parseInt(product.get(), 16),
                read(p.resolve("serial")).orElse(""),
                String.format(
                    "/dev/bus/usb/%03d/%03d",
                    Integer.parseInt(bus.get()), Integer.parseInt(dev.get()))));
      } catch (NumberFormatException e) {
        // Not a USB device's id files: skipped, as the plugin skips what it cannot read.
      }
    }
    return out;
  }

  private static List<UsbDevice> matchUsb(List<UsbSpec> specs, List<UsbDevice> found) {
    List<UsbDevice> out = new ArrayList<>();
    for (UsbSpec s : specs) {
      for (UsbDevice d : found) {
        if (d.vendor() == s.vendor()
            && d.product() == s.product()
            && (s.serial().isEmpty() || s.serial().equals(d.serial()))) {
          out.add(d);
        }
      }
    }
    return out;
  }

  private static Optional<String> read(Path file) throws IOException {
    try {
      return Optional.of(Files.readString(file).strip());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }
}
