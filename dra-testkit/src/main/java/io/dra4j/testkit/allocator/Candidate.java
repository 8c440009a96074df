package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Device;
import io.dra4j.cel.CelDevice;
import io.dra4j.kube.NodeSelectors;
import io.dra4j.kube.ResourceSlice;

/** One device of a usable pool, in the order the search tries devices. */
final class Candidate {
  final Pool pool;
  final ResourceSlice slice;
  final Device device;
  final DeviceKey key;
  private CelDevice cel;

  Candidate(Pool pool, ResourceSlice slice, Device device) {
    this.pool = pool;
    this.slice = slice;
    this.device = device;
    this.key = new DeviceKey(pool.driver, pool.name, device.name());
  }

  String driver() {
    return pool.driver;
  }

  /** The CEL view, built once: class and request selectors evaluate against the same view. */
  CelDevice cel() {
    if (cel == null) {
      cel = CelDevice.of(pool.driver, device);
    }
    return cel;
  }

  /** Whether the device can be used on the node (per-device node selection). */
  boolean onNode(io.dra4j.kube.Node node) {
    if (!slice.spec().perDeviceNodeSelection()) {
      return true;
    }
    return NodeSelectors.matches(node, device.nodeName(), device.allNodes(), device.nodeSelector());
  }
}
