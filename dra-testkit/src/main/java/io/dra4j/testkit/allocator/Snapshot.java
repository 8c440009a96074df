package io.dra4j.testkit.allocator;

import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import java.util.List;

/** Everything the scheduler looks at, read once per decision. */
final class Snapshot {
  final List<ResourceSlice> slices;
  final List<DeviceClass> classes;
  final List<ResourceClaim> claims;
  final Node node;

  Snapshot(
      List<ResourceSlice> slices,
      List<DeviceClass> classes,
      List<ResourceClaim> claims,
      Node node) {
    this.slices = slices;
    this.classes = classes;
    this.claims = claims;
    this.node = node;
  }

  static Snapshot read(KubeClient client, String nodeName) throws KubeException {
    List<ResourceSlice> slices = client.list(ResourceSlice.TYPE, "", ListOptions.ALL).items();
    List<DeviceClass> classes = client.list(DeviceClass.TYPE, "", ListOptions.ALL).items();
    List<ResourceClaim> claims = client.list(ResourceClaim.TYPE, "", ListOptions.ALL).items();
    Node node;
    try {
      node = client.get(Node.TYPE, "", nodeName);
    } catch (KubeException e) {
      if (!e.isNotFound()) {
        throw e;
      }
      // No Node object (the usual case with the fake server): the name is all there is.
      node = Allocator.node(nodeName);
    }
    return new Snapshot(slices, classes, claims, node);
  }
}
