package io.dra4j.numa;

import io.dra4j.api.device.PciBusId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Computes the standardized topology attributes of one PCI device from sysfs, following the
 * algorithms of {@code k8s.io/dynamic-resource-allocation/deviceattribute} so that devices of
 * different drivers line up in {@code matchAttribute} constraints.
 *
 * <p>Every method reads sysfs afresh: a hot-plugged device or a node brought online is seen on the
 * next discovery.
 */
public final class PciTopology {

  /** Nodes at or above this are rejected, as the Go helper does. */
  public static final int MAX_NUMA_NODE = 1023;

  private static final String PCI_DEVICES = "bus/pci/devices/";

  private final Sysfs sysfs;

  public PciTopology(Sysfs sysfs) {
    this.sysfs = Objects.requireNonNull(sysfs, "sysfs");
  }

  /** The sysfs this reads. */
  public Sysfs sysfs() {
    return sysfs;
  }

  /**
   * The PCIe root complex of a device, e.g. {@code pci0000:00}: the first component under {@code
   * /sys/devices/} of the target of {@code /sys/bus/pci/devices/<BDF>}.
   *
   * @throws IOException naming the link when it is missing or dangling, or when its target is not
   *     {@code /sys/devices/pci.../<BDF>}
   */
  public String pcieRoot(PciBusId id) throws IOException {
    String link = PCI_DEVICES + id.value();
    Path target = sysfs.readLink(link);
    Path rel = sysfs.root().relativize(target);
    String shown = sysfs.hostPath(target);
    if (rel.getNameCount() < 3
        || !rel.getName(0).toString().equals("devices")
        || !rel.getName(1).toString().startsWith("pci")) {
      throw new IOException(
          "/sys/" + link + " points to " + shown + ", not into /sys/devices/pci<domain>:<bus>/");
    }
    if (!rel.getFileName().toString().equals(id.value())) {
      throw new IOException(
          "/sys/" + link + " points to " + shown + ", which does not end in " + id);
    }
    // A dangling link means the device is gone (hot-unplug) or the tree is broken; publishing a
    // root for a device that is not there would mislead the scheduler.
    if (!Files.isDirectory(target)) {
      throw new IOException("/sys/" + link + " points to " + shown + ", which does not exist");
    }
    return rel.getName(1).toString();
  }

  /**
   * The device's NUMA node from {@code /sys/bus/pci/devices/<BDF>/numa_node}; empty when the kernel
   * reports no affinity ({@code -1}) or has no NUMA support (no such file).
   *
   * @throws IOException when the device is not in sysfs, the value is not a number, or the node is
   *     above {@value #MAX_NUMA_NODE}
   */
  public OptionalInt numaNode(PciBusId id) throws IOException {
    String link = PCI_DEVICES + id.value();
    Path dir = sysfs.resolve(link);
    if (!Files.isDirectory(dir)) {
      throw new NoSuchFileException(
          "/sys/" + link, null, "no such PCI device (" + sysfs.hostPath(dir) + " does not exist)");
    }
    String file = sysfs.hostPath(dir.resolve("numa_node"));
    String text;
    try {
      text = sysfs.read(file);
    } catch (NoSuchFileException e) {
      return OptionalInt.empty();
    }
    int node;
    try {
      node = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds \"" + text + "\", not a number", e);
    }
    if (node < 0) {
      return OptionalInt.empty();
    }
    if (node > MAX_NUMA_NODE) {
      throw new IOException(file + " is " + node + ", above the maximum " + MAX_NUMA_NODE);
    }
    return OptionalInt.of(node);
  }

  /**
   * The list form of {@code numaNode} for a physical node: {@code node} first, then the nodes at
   * the minimum SLIT distance from it that are not known to sit on another socket, ascending. Any
   * read error, or a single node, gives {@code [node]}.
   */
  public List<Integer> localNodes(int node) {
    try {
      return LocalNodes.of(node, distanceRow(sysfs, node), n -> socketOfNode(sysfs, n));
    } catch (IOException | RuntimeException e) {
      return List.of(node);
    }
  }

  /** Node id to distance, from {@code node<N>/distance} mapped through the online node list. */
  static Map<Integer, Integer> distanceRow(Sysfs sysfs, int node) throws IOException {
    String text = sysfs.read("devices/system/node/node" + node + "/distance");
    String[] parts = text.isEmpty() ? new String[0] : text.split("\\s+");
    // The kernel prints one distance per online node, in node order; with a gap in the node ids
    // (an offline node) the i-th entry is not node i.
    List<Integer> ids;
    try {
      ids = CpuList.parse(sysfs.read("devices/system/node/online"));
    } catch (NoSuchFileException e) {
      ids = null;
    }
    if (ids != null && ids.size() != parts.length) {
      throw new IOException(
          "node"
              + node
              + "/distance has "
              + parts.length
              + " entries but "
              + ids.size()
              + " nodes are online");
    }
    Map<Integer, Integer> row = new LinkedHashMap<>();
    for (int i = 0; i < parts.length; i++) {
      try {
        row.put(ids == null ? i : ids.get(i), Integer.parseInt(parts[i]));
      } catch (NumberFormatException e) {
        throw new IOException("node" + node + "/distance holds \"" + text + "\"", e);
      }
    }
    return row;
  }

  /**
   * The socket of a node: the {@code physical_package_id} of the first CPU in its {@code cpulist};
   * empty for a node without CPUs or a package id of -1.
   */
  static OptionalInt socketOfNode(Sysfs sysfs, int node) throws IOException {
    List<Integer> cpus;
    try {
      cpus = CpuList.parse(sysfs.read("devices/system/node/node" + node + "/cpulist"));
    } catch (IllegalArgumentException e) {
      throw new IOException("node" + node + "/cpulist: " + e.getMessage(), e);
    }
    if (cpus.isEmpty()) {
      return OptionalInt.empty();
    }
    return socketOfCpu(sysfs, cpus.get(0));
  }

  static OptionalInt socketOfCpu(Sysfs sysfs, int cpu) throws IOException {
    String path = "devices/system/cpu/cpu" + cpu + "/topology/physical_package_id";
    String text = sysfs.read(path);
    try {
      int id = Integer.parseInt(text);
      return id < 0 ? OptionalInt.empty() : OptionalInt.of(id);
    } catch (NumberFormatException e) {
      throw new IOException("/sys/" + path + " holds \"" + text + "\", not a number", e);
    }
  }
}
