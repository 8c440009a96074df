package io.dra4j.doctor;

import io.dra4j.doctor.DoctorReport.NodeVersion;
import io.dra4j.doctor.DoctorReport.Supply;
import io.dra4j.doctor.DoctorReport.Versions;
import io.dra4j.doctor.Finding.Severity;
import io.dra4j.kube.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Section 1: the versions of the API server and of the kubelets that serve an extended resource
 * through DRA, judged by when DRAExtendedResource is on.
 */
final class VersionChecks {
  private final Cluster cluster;
  private final Optional<String> scope;
  private final List<Finding> findings;

  VersionChecks(Cluster cluster, Optional<String> scope, List<Finding> findings) {
    this.cluster = cluster;
    this.scope = scope;
    this.findings = findings;
  }

  Versions versions(List<Supply> supply) {
    Optional<String> api = cluster.snapshot.serverVersion();
    if (api.isPresent()) {
      Optional<KubeVersion> v = KubeVersion.parse(api.get());
      if (v.isPresent() && v.get().below(KubeVersion.V1_37)) {
        findings.add(
            Finding.of(Severity.WARNING, "versions.api-server")
                .message(
                    "the API server is "
                        + api.get()
                        + ", older than 1.37: DRAExtendedResource is "
                        + (v.get().below(KubeVersion.V1_36)
                            ? "alpha and off by default there, so extendedResourceName is dropped"
                            : "beta there")
                        + "; the doctor judges by the 1.37 rules"));
      }
    }
    List<NodeVersion> nodes = new ArrayList<>();
    for (Node n : cluster.nodes.values()) {
      String name = n.metadata().name();
      if (!Cluster.inScope(scope, name)) {
        continue;
      }
      List<String> dra =
          supply.stream()
              .filter(s -> s.node().equals(name))
              .filter(s -> s.servedBy().equals("dra") || s.servedBy().equals("both"))
              .map(Supply::resource)
              .toList();
      Optional<String> kubelet = Cluster.kubeletVersion(n);
      nodes.add(new NodeVersion(name, kubelet, dra));
      if (dra.isEmpty()) {
        continue;
      }
      Optional<KubeVersion> v = kubelet.flatMap(KubeVersion::parse);
      if (v.isEmpty()) {
        findings.add(
            Finding.of(Severity.INFO, "versions.kubelet-unknown")
                .node(name)
                .message(
                    "node "
                        + name
                        + " reports no kubelet version (status.nodeInfo.kubeletVersion): check by"
                        + " hand that its kubelet is 1.37 before it serves "
                        + String.join(", ", dra)
                        + " through DRA"));
      } else if (v.get().below(KubeVersion.V1_37)) {
        boolean off = v.get().below(KubeVersion.V1_36);
        findings.add(
            Finding.of(off ? Severity.ERROR : Severity.WARNING, "versions.kubelet")
                .node(name)
                .message(
                    "node "
                        + name
                        + " runs kubelet "
                        + kubelet.get()
                        + " and serves "
                        + String.join(", ", dra)
                        + " through DRA: "
                        + (off
                            ? "DRAExtendedResource is alpha and off by default before 1.36, so the"
                                + " kubelet does not hand the scheduler's claim to the containers;"
                                + " upgrade the kubelet to 1.37 before migrating this node"
                            : "DRAExtendedResource is beta in 1.36 (on unless switched off);"
                                + " upgrade the kubelet to 1.37, where it is GA")));
      }
    }
    return new Versions(api, nodes);
  }
}
