package io.dra4j.numa;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A snapshot of the host's NUMA layout, for providers that place CPUs or memory: the online nodes,
 * their CPUs, the SLIT distance matrix and the socket of each node.
 *
 * <p>Read it with {@link #read(Sysfs)}; build one by hand with the canonical constructor for tests.
 * A kernel without NUMA support gives the empty topology.
 *
 * @param nodes the online nodes, ascending by id
 */
public record NumaTopology(List<Node> nodes) {

  private static final Pattern NODE_DIR = Pattern.compile("node([0-9]+)");

  public NumaTopology {
    List<Node> sorted = new ArrayList<>(nodes);
    sorted.sort((a, b) -> Integer.compare(a.id(), b.id()));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).id() == sorted.get(i - 1).id()) {
        throw new IllegalArgumentException("NUMA node " + sorted.get(i).id() + " is listed twice");
      }
    }
    nodes = List.copyOf(sorted);
  }

  /**
   * One NUMA node.
   *
   * @param id the node number
   * @param cpus its CPUs, ascending; empty for a memory-only node
   * @param socket the {@code physical_package_id} of its first CPU; empty without CPUs
   * @param distances node id to SLIT distance from this node (itself included, usually 10)
   */
  public record Node(
      int id, List<Integer> cpus, OptionalInt socket, Map<Integer, Integer> distances) {
    public Node {
      if (id < 0) {
        throw new IllegalArgumentException("NUMA node id " + id + " is negative");
      }
      cpus = List.copyOf(new java.util.TreeSet<>(cpus));
      Objects.requireNonNull(socket, "socket");
      distances = Collections.unmodifiableSortedMap(new TreeMap<>(distances));
    }
  }

  /** No NUMA information (a kernel built without NUMA). */
  public static NumaTopology empty() {
    return new NumaTopology(List.of());
  }

  /**
   * Reads {@code /sys/devices/system/node}: the nodes from {@code online} (or the {@code node<N>}
   * directories when that file is missing), and for each its {@code cpulist}, its {@code distance}
   * row and the {@code physical_package_id} of its first CPU.
   *
   * @throws IOException naming the file that is missing or malformed; a missing {@code
   *     /sys/devices/system/node} is not an error but the empty topology
   */
  public static NumaTopology read(Sysfs sysfs) throws IOException {
    Path dir = sysfs.path("devices/system/node");
    if (!Files.isDirectory(dir)) {
      return empty();
    }
    List<Integer> ids;
    try {
      ids = parse(sysfs, "devices/system/node/online");
    } catch (NoSuchFileException e) {
      ids = new ArrayList<>();
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
        for (Path p : s) {
          Matcher m = NODE_DIR.matcher(p.getFileName().toString());
          if (m.matches()) {
            ids.add(Integer.parseInt(m.group(1)));
          }
        }
      }
    }
    List<Node> nodes = new ArrayList<>();
    for (int id : ids) {
      List<Integer> cpus = parse(sysfs, "devices/system/node/node" + id + "/cpulist");
      OptionalInt socket =
          cpus.isEmpty() ? OptionalInt.empty() : PciTopology.socketOfCpu(sysfs, cpus.get(0));
      nodes.add(new Node(id, cpus, socket, PciTopology.distanceRow(sysfs, id)));
    }
    return new NumaTopology(nodes);
  }

  private static List<Integer> parse(Sysfs sysfs, String path) throws IOException {
    String text = sysfs.read(path);
    try {
      return CpuList.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IOException("/sys/" + path + ": " + e.getMessage(), e);
    }
  }

  /** Whether there is no NUMA information. */
  public boolean isEmpty() {
    return nodes.isEmpty();
  }

  /** The node with this id, if online. */
  public Optional<Node> node(int id) {
    return nodes.stream().filter(n -> n.id() == id).findFirst();
  }

  /** The SLIT distance between two nodes, if both are known. */
  public OptionalInt distance(int from, int to) {
    return node(from)
        .map(n -> n.distances().get(to))
        .map(OptionalInt::of)
        .orElse(OptionalInt.empty());
  }

  /** The node a CPU belongs to, if any. */
  public OptionalInt nodeOfCpu(int cpu) {
    for (Node n : nodes) {
      if (Collections.binarySearch(n.cpus(), cpu) >= 0) {
        return OptionalInt.of(n.id());
      }
    }
    return OptionalInt.empty();
  }

  /** Socket id to its nodes (ascending); nodes without a known socket are left out. */
  public SortedMap<Integer, List<Integer>> sockets() {
    SortedMap<Integer, List<Integer>> out = new TreeMap<>();
    for (Node n : nodes) {
      if (n.socket().isPresent()) {
        out.computeIfAbsent(n.socket().getAsInt(), k -> new ArrayList<>()).add(n.id());
      }
    }
    out.replaceAll((k, v) -> List.copyOf(v));
    return Collections.unmodifiableSortedMap(out);
  }

  /**
   * The list form of {@code numaNode} for a node, by the same rule {@link
   * PciTopology#localNodes(int)} applies to live sysfs: the node first, then the nodes at the
   * minimum distance from it that are not known to sit on another socket.
   *
   * @throws IllegalArgumentException when the node is not in this topology
   */
  public List<Integer> localNodes(int node) {
    Node n =
        node(node)
            .orElseThrow(
                () -> new IllegalArgumentException("NUMA node " + node + " is not online"));
    try {
      return LocalNodes.of(
          node, n.distances(), id -> node(id).map(Node::socket).orElse(OptionalInt.empty()));
    } catch (IOException e) {
      throw new IllegalStateException("unreachable: a snapshot does not read files", e);
    }
  }
}
