package io.dra4j.examples.fake;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A tiny sysfs tree for the demo: two NUMA nodes on two sockets, two PCI root complexes, four PCI
 * functions. spi-numa reads it exactly like the host's /sys, so the demo shows the standardized
 * topology attributes on any machine. Public for the e2e tests, which run the shipped driver on it
 * with {@code --sysfs-root}.
 */
public final class SampleSysfs {
  /** The fake devices' PCI addresses: two behind pci0000:00 (node 0), two behind pci0000:80. */
  public static final List<String> BUS_IDS =
      List.of("0000:01:00.0", "0000:02:00.0", "0000:81:00.0", "0000:82:00.0");

  private SampleSysfs() {}

  public static Path write(Path root) throws IOException {
    for (String bdf : BUS_IDS) {
      int bus = Integer.parseInt(bdf.substring(5, 7), 16);
      String complex = bus >= 0x80 ? "pci0000:80" : "pci0000:00";
      String bridge = complex.substring(3) + ":" + String.format("%02x", bus & 0x7f) + ".0";
      Path function = root.resolve("devices").resolve(complex).resolve(bridge).resolve(bdf);
      Files.createDirectories(function);
      Files.writeString(function.resolve("numa_node"), bus >= 0x80 ? "1\n" : "0\n");
      Path link = root.resolve("bus/pci/devices").resolve(bdf);
      Files.createDirectories(link.getParent());
      Files.createSymbolicLink(link, Path.of("../../../devices", complex, bridge, bdf));
    }
    writeNode(root, 0, "0-7", "10 21");
    writeNode(root, 1, "8-15", "21 10");
    Files.writeString(root.resolve("devices/system/node/online"), "0-1\n");
    for (int cpu = 0; cpu < 16; cpu++) {
      Path topology = root.resolve("devices/system/cpu/cpu" + cpu + "/topology");
      Files.createDirectories(topology);
      Files.writeString(topology.resolve("physical_package_id"), (cpu < 8 ? "0" : "1") + "\n");
    }
    return root;
  }

  private static void writeNode(Path root, int node, String cpus, String distances)
      throws IOException {
    Path dir = root.resolve("devices/system/node/node" + node);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("cpulist"), cpus + "\n");
    Files.writeString(dir.resolve("distance"), distances + "\n");
  }
}
