package io.dra4j.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.KubeException;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.util.List;
import java.util.Optional;

/**
 * What a scenario waits for and reads in its namespace on the real cluster: claims allocated by the
 * real scheduler, pods bound or unschedulable; and the kubelet's next step, preparing a claim
 * through the simulator with the claim as the API server holds it.
 */
final class Scenario {
  private final Cluster cluster;
  private final DriverNode node;
  private final String ns;

  Scenario(Cluster cluster, DriverNode node, String ns) {
    this.cluster = cluster;
    this.node = node;
    this.ns = ns;
  }

  JsonNode claim(String name) throws KubeException {
    return cluster.admin().get(Cluster.CLAIMS, ns, name);
  }

  JsonNode pod(String name) throws KubeException {
    return cluster.admin().get(Cluster.PODS, ns, name);
  }

  /** Waits until the real scheduler has allocated the claim, and returns it. */
  JsonNode allocated(String claim) {
    return node.await(
        "claim " + claim + " allocated by the real scheduler",
        () -> {
          try {
            JsonNode c = claim(claim);
            return isAllocated(c) ? Optional.of(c) : Optional.empty();
          } catch (KubeException e) {
            if (e.isNotFound()) {
              return Optional.empty();
            }
            throw e;
          }
        });
  }

  void awaitDeallocated(String claim) {
    node.await("claim " + claim + " deallocated", () -> !isAllocated(claim(claim)));
  }

  static boolean isAllocated(JsonNode claim) {
    return !claim.path("status").path("allocation").isMissingNode();
  }

  /** Waits until the pod is bound to this scenario's node, and returns it. */
  JsonNode bound(String pod) {
    return node.await(
        "pod " + pod + " bound to " + node.name,
        () -> {
          JsonNode p = pod(pod);
          String at = p.path("spec").path("nodeName").asText();
          if (!at.isEmpty() && !at.equals(node.name)) {
            throw new AssertionError("pod " + pod + " was bound to " + at + ", not " + node.name);
          }
          return at.isEmpty() ? Optional.empty() : Optional.of(p);
        });
  }

  /** Waits until the scheduler tried and could not place the pod. */
  void awaitUnschedulable(String pod) {
    node.await("pod " + pod + " unschedulable", () -> Pods.unschedulable(pod(pod)));
  }

  static List<String> devices(JsonNode claim) {
    return results(claim).stream().map(r -> r.path("device").asText()).toList();
  }

  static List<JsonNode> results(JsonNode claim) {
    List<JsonNode> out = new java.util.ArrayList<>();
    claim.path("status").path("allocation").path("devices").path("results").forEach(out::add);
    return out;
  }

  ClaimRef ref(String claim) throws KubeException {
    return ClaimRef.of(ns, claim, claim(claim).path("metadata").path("uid").asText());
  }

  /** NodePrepareResources for the claim, as the kubelet calls it once the pod is bound. */
  ClaimResult prepare(PluginInstance plugin, String claim) throws KubeException {
    ClaimRef ref = ref(claim);
    return plugin.prepare(List.of(ref)).get(ref.uid());
  }

  /** NodeUnprepareResources; returns the error, empty on success. */
  Optional<String> unprepare(PluginInstance plugin, String claim) throws KubeException {
    ClaimRef ref = ref(claim);
    return plugin.unprepare(List.of(ref)).get(ref.uid());
  }

  /** Deletes what the scenario made in its namespace; the namespace itself stays for reuse. */
  void cleanUp(String... clusterScoped) {
    cluster.kubectl("delete", "pods", "--all", "-n", ns, "--grace-period=0", "--force");
    cluster.kubectl(
        "delete", "resourceclaims,resourceclaimtemplates", "--all", "-n", ns, "--wait=false");
    for (String object : clusterScoped) {
      cluster.kubectl("delete", object, "--ignore-not-found");
    }
  }
}
