package io.dra4j.examples.fake;

import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClients;
import io.dra4j.kube.KubeConfig;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceType;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.allocator.PodDecision;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where the demo's Kubernetes lives: the test kit's API server and allocator in this process, or a
 * real control plane (kube-apiserver, kube-scheduler, kube-controller-manager) reached through a
 * kubeconfig, whose scheduler places the pod instead of the allocator.
 */
abstract class DemoCluster implements AutoCloseable {
  final String node;
  final HttpKubeClient client;

  private DemoCluster(String node, HttpKubeClient client) {
    this.node = node;
    this.client = client;
  }

  /** The test kit's API server, serving on loopback; its kubeconfig is written to {@code file}. */
  static DemoCluster embedded(Path kubeconfig, String node) throws IOException {
    FakeApiServer api = FakeApiServer.start();
    api.writeKubeconfig(kubeconfig);
    return new Embedded(api, kubeconfig, node);
  }

  /** A real cluster in which {@code node} exists (e2e/cluster.sh node creates one). */
  static DemoCluster real(Path kubeconfig, String node) {
    return new Real(kubeconfig, node);
  }

  HttpKubeClient client() {
    return client;
  }

  abstract String description();

  abstract String url();

  abstract Path kubeconfig();

  /** Makes sure the node is there, and says so. */
  abstract String nodeReady() throws KubeException;

  abstract String schedulerDescription();

  /**
   * Places the pod, telling each step: returns the allocated claim the scheduler made for its
   * extended resource.
   */
  abstract ResourceClaim schedule(String namespace, String pod, Consumer<String> say)
      throws Exception;

  List<ResourceSlice> slices() {
    try {
      return client
          .list(ResourceSlice.TYPE, "", ListOptions.fields("spec.nodeName=" + node))
          .items();
    } catch (KubeException e) {
      throw new IllegalStateException("listing ResourceSlices: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    client.close();
  }

  private static final class Embedded extends DemoCluster {
    private final FakeApiServer api;
    private final Path kubeconfig;

    Embedded(FakeApiServer api, Path kubeconfig, String node) {
      super(node, api.clientBuilder().rateLimit(1000, 1000).build());
      this.api = api;
      this.kubeconfig = kubeconfig;
    }

    @Override
    String description() {
      return "A Kubernetes API server (the test kit's, in this process)";
    }

    @Override
    String url() {
      return api.url().toString();
    }

    @Override
    Path kubeconfig() {
      return kubeconfig;
    }

    @Override
    String nodeReady() {
      api.putNode(node);
      return "node " + node + " created (a kubelet would register it)";
    }

    @Override
    String schedulerDescription() {
      return "The scheduler's part (the test kit's allocator)";
    }

    @Override
    ResourceClaim schedule(String namespace, String pod, Consumer<String> say) throws Exception {
      PodDecision decision = new ClusterAllocator(client).schedulePod(namespace, pod, node);
      decision.steps().forEach(s -> say.accept(s.toString()));
      if (!decision.scheduled()) {
        throw new IllegalStateException("demo step failed: pod scheduled: " + decision.reason());
      }
      return decision.extendedResourceClaim().orElseThrow();
    }

    @Override
    public void close() {
      super.close();
      api.close();
    }
  }

  private static final class Real extends DemoCluster {
    private final Path kubeconfig;

    Real(Path kubeconfig, String node) {
      super(node, KubeClients.fromKubeconfig(kubeconfig));
      this.kubeconfig = kubeconfig;
    }

    @Override
    String description() {
      String version;
      try {
        version =
            " " + KubeJson.mapper().readTree(client.getRaw("/version")).path("gitVersion").asText();
      } catch (KubeException | IOException e) {
        version = "";
      }
      return "A Kubernetes API server (a real kube-apiserver" + version + ")";
    }

    @Override
    String url() {
      return KubeConfig.fromKubeconfig(kubeconfig).server().toString();
    }

    @Override
    Path kubeconfig() {
      return kubeconfig;
    }

    @Override
    String nodeReady() throws KubeException {
      Node n = client.get(Node.TYPE, "", node);
      return "node " + n.metadata().name() + " is there (e2e/cluster.sh node made it)";
    }

    @Override
    String schedulerDescription() {
      return "The scheduler's part (the real kube-scheduler)";
    }

    @Override
    ResourceClaim schedule(String namespace, String pod, Consumer<String> say) throws Exception {
      Pod bound =
          FakeDemo.await(
              "the real scheduler to bind pod " + pod,
              () -> {
                Pod p = get(Pod.TYPE, namespace, pod).orElseThrow();
                return p.spec().nodeName().isEmpty() ? Optional.empty() : Optional.of(p);
              });
      say.accept("bound to node " + bound.spec().nodeName());
      String claimName =
          bound
              .status()
              .extendedResourceClaimStatus()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "pod " + pod + " has no extendedResourceClaimStatus: not served by DRA"))
              .resourceClaimName();
      say.accept("status.extendedResourceClaimStatus names claim " + claimName);
      ResourceClaim claim =
          FakeDemo.await(
              "claim " + claimName + " allocated",
              () ->
                  get(ResourceClaim.TYPE, namespace, claimName)
                      .filter(c -> c.status().allocation().isPresent()));
      for (DeviceRequestAllocationResult r :
          claim.status().allocation().orElseThrow().devices().results()) {
        say.accept("the scheduler allocated " + r.driver() + "/" + r.pool() + "/" + r.device());
      }
      return claim;
    }

    private <T> Optional<T> get(ResourceType<T> type, String ns, String name) {
      try {
        return Optional.of(client.get(type, ns, name));
      } catch (KubeException e) {
        if (e.isNotFound()) {
          return Optional.empty();
        }
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
  }
}
