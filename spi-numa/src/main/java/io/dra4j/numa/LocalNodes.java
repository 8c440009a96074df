package io.dra4j.numa;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The list form of {@code resource.kubernetes.io/numaNode} (KEP-6072): the physical node first,
 * then the other nodes at the minimum SLIT distance from it, except those known to sit on another
 * socket. One rule, used on live sysfs by {@link PciTopology} and on a snapshot by {@link
 * NumaTopology}, so both always agree.
 */
final class LocalNodes {
  private LocalNodes() {}

  /** The socket of a node; empty when unknown (a node without CPUs). */
  @FunctionalInterface
  interface Sockets {
    OptionalInt socketOf(int node) throws IOException;
  }

  /**
   * @param node the physical node
   * @param distances node id to SLIT distance from {@code node}, {@code node} itself included
   * @param sockets socket lookup; consulted only when a candidate must be checked
   * @throws IOException when a socket cannot be read (callers then publish {@code [node]})
   */
  static List<Integer> of(int node, Map<Integer, Integer> distances, Sockets sockets)
      throws IOException {
    Map<Integer, Integer> others = new TreeMap<>(distances);
    others.remove(node);
    OptionalInt min = others.values().stream().mapToInt(Integer::intValue).min();
    List<Integer> out = new ArrayList<>();
    out.add(node);
    if (min.isEmpty()) {
      return List.copyOf(out);
    }
    OptionalInt own = sockets.socketOf(node);
    for (Map.Entry<Integer, Integer> e : others.entrySet()) {
      if (e.getValue() != min.getAsInt()) {
        continue;
      }
      if (own.isPresent()) {
        OptionalInt theirs = sockets.socketOf(e.getKey());
        if (theirs.isPresent() && theirs.getAsInt() != own.getAsInt()) {
          continue;
        }
      }
      out.add(e.getKey());
    }
    return List.copyOf(out);
  }
}
