package io.dra4j.numa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** Builds a sysfs-like tree with real files and real symbolic links, laid out like the kernel's. */
final class FakeSysfs {
  final Path root;

  FakeSysfs(Path root) {
    this.root = root;
  }

  Sysfs sysfs() {
    return Sysfs.at(root);
  }

  /**
   * A PCI device at {@code /sys/devices/<devicePath>} (its last component must be the BDF for a
   * well-formed device) with the kernel's relative link {@code bus/pci/devices/<bdf>}.
   */
  FakeSysfs pci(String bdf, String devicePath, int numaNode) {
    write("devices/" + devicePath + "/numa_node", numaNode + "\n");
    return link("bus/pci/devices/" + bdf, "../../../devices/" + devicePath);
  }

  /** A PCI device directly under a root complex: {@code /sys/devices/<rootComplex>/<bdf>}. */
  FakeSysfs pci(String bdf, int numaNode) {
    return pci(bdf, "pci" + bdf.substring(0, 7) + "/" + bdf, numaNode);
  }

  FakeSysfs link(String at, String target) {
    try {
      Path p = root.resolve(at);
      Files.createDirectories(p.getParent());
      Files.createSymbolicLink(p, Path.of(target));
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  FakeSysfs write(String at, String content) {
    try {
      Path p = root.resolve(at);
      Files.createDirectories(p.getParent());
      Files.writeString(p, content);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A NUMA node with CPUs on a socket: its {@code cpulist} and {@code distance} row, each CPU's
   * {@code physical_package_id} and {@code node<N>} link.
   */
  FakeSysfs node(int id, List<Integer> cpus, int socket, List<Integer> distances) {
    write("devices/system/node/node" + id + "/cpulist", CpuList.format(cpus) + "\n");
    write(
        "devices/system/node/node" + id + "/distance",
        distances.stream().map(String::valueOf).collect(Collectors.joining(" ")) + "\n");
    for (int cpu : cpus) {
      write("devices/system/cpu/cpu" + cpu + "/topology/physical_package_id", socket + "\n");
      link("devices/system/cpu/cpu" + cpu + "/node" + id, "../../node/node" + id);
    }
    return this;
  }

  FakeSysfs online(String nodes) {
    return write("devices/system/node/online", nodes + "\n");
  }
}
