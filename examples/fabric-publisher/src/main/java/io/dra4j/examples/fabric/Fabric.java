package io.dra4j.examples.fabric;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * A simulated network fabric and the pools that make its devices schedulable. A real driver would
 * ask the fabric manager; the three forms of node selection are what matters here:
 *
 * <ul>
 *   <li>each rack's top-of-rack switch ports, pool {@code rack-<rack>}, usable from the nodes
 *       labelled {@code <rackLabel>=<rack>} (a node selector);
 *   <li>accelerators on the fabric, pool {@code shared}, usable from every node ({@code allNodes});
 *   <li>NVMe namespaces attached to one node each, pool {@code attached}, each device naming its
 *       node (per-device node selection).
 * </ul>
 *
 * <p>Every device has the attribute {@code kind} ({@link #KINDS}), which the {@code deviceclass}
 * command selects on.
 *
 * @param rackLabel the node label that names a node's rack
 * @param racks rack name to its number of switch ports
 * @param accelerators accelerators reachable from every node
 * @param attached node name to its number of NVMe namespaces
 */
record Fabric(
    String rackLabel, Map<String, Integer> racks, int accelerators, Map<String, Integer> attached) {

  static final String DEFAULT_RACK_LABEL = "topology.example.com/rack";

  /** The device kinds, in the order the pools come: a DeviceClass each. */
  static final List<String> KINDS = List.of("switch-port", "accelerator", "nvme");

  /** A rack name is a label value and part of a pool name: a DNS label. */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  Fabric {
    Objects.requireNonNull(rackLabel, "rackLabel");
    racks = new TreeMap<>(racks);
    attached = new TreeMap<>(attached);
    racks.forEach(
        (rack, ports) -> {
          if (!DNS_LABEL.matcher(rack).matches()) {
            throw new IllegalArgumentException(
                "--rack "
                    + rack
                    + ": a rack name must be a DNS label (lower-case letters, digits and '-',"
                    + " at most 63)");
          }
          positive("--rack " + rack, ports);
        });
    attached.forEach((node, count) -> positive("--attached " + node, count));
    if (accelerators < 0) {
      throw new IllegalArgumentException("--accelerators must not be negative: " + accelerators);
    }
    if (racks.isEmpty() && accelerators == 0 && attached.isEmpty()) {
      throw new IllegalArgumentException(
          "no device: give --rack NAME=PORTS, --accelerators N or --attached NODE=COUNT");
    }
  }

  private static void positive(String what, int count) {
    if (count < 1) {
      throw new IllegalArgumentException(what + ": the count must be at least 1, it is " + count);
    }
  }

  /** The pools to publish: one per rack, then {@code shared}, then {@code attached}. */
  List<Pool> pools() {
    List<Pool> pools = new ArrayList<>();
    racks.forEach(
        (rack, ports) ->
            pools.add(
                Pool.builder("rack-" + rack)
                    .devices(IntStream.range(0, ports).mapToObj(i -> port(rack, i)).toList())
                    .scope(PoolScope.nodeSelector(rackSelector(rack)))
                    .build()));
    if (accelerators > 0) {
      pools.add(
          Pool.builder("shared")
              .devices(IntStream.range(0, accelerators).mapToObj(Fabric::accelerator).toList())
              .scope(PoolScope.allNodes())
              .build());
    }
    if (!attached.isEmpty()) {
      List<Device> namespaces = new ArrayList<>();
      attached.forEach(
          (node, count) -> {
            for (int i = 0; i < count; i++) {
              namespaces.add(
                  Device.builder("nvme-" + namespaces.size())
                      .attribute("kind", "nvme")
                      .attribute("node", node)
                      .capacity("size", Quantity.parse("1Ti"))
                      .nodeName(node)
                      .build());
            }
          });
      pools.add(Pool.builder("attached").devices(namespaces).scope(PoolScope.perDevice()).build());
    }
    return pools;
  }

  private NodeSelector rackSelector(String rack) {
    return NodeSelector.of(
        List.of(
            NodeSelector.Term.of(
                List.of(NodeSelector.Requirement.of(rackLabel, "In", List.of(rack))), List.of())));
  }

  private static Device port(String rack, int index) {
    return Device.builder("port-" + index)
        .attribute("kind", "switch-port")
        .attribute("rack", rack)
        .attribute("switch", "tor-" + rack)
        .attribute("port", index)
        .capacity("bandwidth", Quantity.parse("100G"))
        .build();
  }

  private static Device accelerator(int index) {
    return Device.builder("accel-" + index)
        .attribute("kind", "accelerator")
        .attribute("model", "fabric-npu-1")
        .capacity("memory", Quantity.parse("64Gi"))
        .build();
  }
}
