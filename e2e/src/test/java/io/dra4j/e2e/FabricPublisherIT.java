package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A control-plane driver with no kubelet plugin, {@code examples/fabric-publisher} (the shipped
 * jar, on {@code ResourceSlicePublisher}), publishes network-attached devices with each form of
 * node selection a slice has, and the real v1.37.2 scheduler allocates from those pools for pods on
 * two API-only nodes; the real garbage collector deletes the slices with the owner the driver
 * named.
 */
class FabricPublisherIT {
  static final String NS = "e2e-fabric";
  static final String DRIVER = "fabric.example.com";
  static final String RACK_LABEL = "topology.example.com/rack";
  static final String OWNER = "switch-port." + DRIVER;
  static final List<String> NODES = List.of("fabric-1", "fabric-2");
  static final Duration WAIT = Duration.ofSeconds(60);

  final Cluster cluster = Cluster.shared();
  final Path jar = Path.of(System.getProperty("dra4j.fabric.jar"));
  final Path deploy = Path.of(System.getProperty("dra4j.fabric.deploy"));
  final Path log =
      Path.of(System.getProperty("dra4j.work", "target/work")).resolve("fabric-publisher.log");
  Process publisher;

  @AfterEach
  void cleanUp() throws Exception {
    stopPublisher();
    cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
    cluster.kubectl("delete", "resourceclaims", "--all", "-n", NS, "--wait=false");
    NODES.forEach(cluster::removeNode);
    for (String kind : List.of("switch-port", "accelerator", "nvme")) {
      cluster.kubectl("delete", "deviceclass", kind + "." + DRIVER, "--ignore-not-found");
    }
    // Unowned leftovers of a failed run: what the example's cleanup command is for.
    jar("cleanup");
  }

  @Test
  void theRealSchedulerAllocatesFromPoolsWithoutANodeForPodsOnTwoNodes() throws Exception {
    cluster.apply(Resources.namespace(NS));
    for (String node : NODES) {
      cluster.node(node);
      cluster.kubectl("label", "node", node, RACK_LABEL + "=r1", "--overwrite");
    }
    cluster.apply(jar("deviceclass"));
    // As its Deployment runs it: the ServiceAccount of deploy/rbac.yaml, nothing more.
    cluster.apply(Files.readString(deploy.resolve("rbac.yaml")));
    Path kubeconfig = cluster.token("kube-system", "fabric-publisher", NODES.get(0));

    Files.createDirectories(log.getParent());
    publisher =
        java(
                kubeconfig,
                "run",
                "--rack",
                "r1=2",
                "--accelerators",
                "2",
                "--attached",
                NODES.get(0) + "=1",
                "--attached",
                NODES.get(1) + "=1",
                "--owner-device-class",
                OWNER,
                "--sync-delay",
                "1s")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
            .start();
    await(
        "the three pools published",
        () -> pools().equals(new TreeSet<>(List.of("attached", "rack-r1", "shared"))));

    for (int i = 0; i < NODES.size(); i++) {
      String p = "p" + i;
      for (String kind : List.of("switch-port", "accelerator", "nvme")) {
        cluster.apply(claim(p + "-" + kind, kind + "." + DRIVER));
      }
      cluster.apply(pod(p, NODES.get(i), p + "-switch-port", p + "-accelerator", p + "-nvme"));
    }
    for (int i = 0; i < NODES.size(); i++) {
      String node = NODES.get(i);
      String pod = "p" + i;
      await("pod " + pod + " bound to " + node, () -> boundTo(pod).equals(node));
    }

    // The rack's ports by node selector: one each, and the allocation carries the selector.
    Set<String> ports = new TreeSet<>();
    Set<String> accelerators = new TreeSet<>();
    for (int i = 0; i < NODES.size(); i++) {
      JsonNode port = result("p" + i + "-switch-port");
      assertThat(port.path("pool").asText()).isEqualTo("rack-r1");
      ports.add(port.path("device").asText());
      assertThat(nodeSelector("p" + i + "-switch-port").toString()).contains(RACK_LABEL, "r1");
      JsonNode accelerator = result("p" + i + "-accelerator");
      assertThat(accelerator.path("pool").asText()).isEqualTo("shared");
      accelerators.add(accelerator.path("device").asText());
      assertThat(nodeSelector("p" + i + "-accelerator").isMissingNode())
          .as("allNodes: no node selector in the allocation")
          .isTrue();
      // Per-device node selection: the namespace attached to the pod's node, and only that node.
      JsonNode nvme = result("p" + i + "-nvme");
      assertThat(nvme.path("pool").asText()).isEqualTo("attached");
      assertThat(nvme.path("device").asText()).isEqualTo("nvme-" + i);
      assertThat(nodeSelector("p" + i + "-nvme").toString()).contains(NODES.get(i));
    }
    assertThat(ports).containsExactly("port-0", "port-1");
    assertThat(accelerators).containsExactly("accel-0", "accel-1");

    // Both ports of the rack are taken, by pods on two nodes: a third pod gets none.
    cluster.apply(claim("p2-switch-port", OWNER));
    cluster.apply(pod("p2", NODES.get(0), "p2-switch-port"));
    await(
        "pod p2 unschedulable",
        () -> Pods.unschedulable(cluster.admin().get(Cluster.PODS, NS, "p2")));

    // The owner the driver named: with the driver stopped, deleting the DeviceClass deletes the
    // slices (the real garbage collector).
    assertThat(publisher.isAlive()).as("the publisher still runs").isTrue();
    stopPublisher();
    assertThat(pools()).isNotEmpty();
    cluster.kubectl("delete", "deviceclass", OWNER);
    await("the slices garbage-collected with their owner", () -> pools().isEmpty());
  }

  private Set<String> pools() throws Exception {
    Set<String> pools = new TreeSet<>();
    for (ResourceSlice s :
        cluster
            .admin()
            .list(ResourceSlice.TYPE, "", ListOptions.fields("spec.driver=" + DRIVER))
            .items()) {
      pools.add(s.spec().pool().name());
    }
    return pools;
  }

  private String boundTo(String pod) throws Exception {
    return cluster.admin().get(Cluster.PODS, NS, pod).path("spec").path("nodeName").asText();
  }

  private JsonNode allocation(String claim) throws Exception {
    return cluster.admin().get(Cluster.CLAIMS, NS, claim).path("status").path("allocation");
  }

  private JsonNode result(String claim) throws Exception {
    JsonNode results = allocation(claim).path("devices").path("results");
    assertThat(results).as("claim " + claim + " allocated one device").hasSize(1);
    return results.get(0);
  }

  private JsonNode nodeSelector(String claim) throws Exception {
    return allocation(claim).path("nodeSelector");
  }

  private static String claim(String name, String deviceClass) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s, namespace: %s}
        spec:
          devices:
            requests:
            - name: device
              exactly: {deviceClassName: %s}
        """
        .formatted(name, NS, deviceClass);
  }

  /** A pod for {@code node} (by its hostname label: the scheduler still places it). */
  private static String pod(String name, String node, String... claims) {
    StringBuilder podClaims = new StringBuilder();
    StringBuilder containerClaims = new StringBuilder();
    for (String c : claims) {
      podClaims.append("  - {name: %s, resourceClaimName: %s}\n".formatted(c, c));
      containerClaims.append("        - {name: %s}\n".formatted(c));
    }
    return """
        apiVersion: v1
        kind: Pod
        metadata: {name: %s, namespace: %s}
        spec:
          terminationGracePeriodSeconds: 0
          nodeSelector: {kubernetes.io/hostname: %s}
          resourceClaims:
        %s  containers:
          - name: main
            image: registry.invalid/dra4j/never-pulled
            resources:
              claims:
        %s"""
        .formatted(name, NS, node, podClaims, containerClaims);
  }

  private ProcessBuilder java(Path kubeconfig, String... args) {
    List<String> cmd = new ArrayList<>(List.of("java", "-jar", jar.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    return pb;
  }

  /** One command of the jar as cluster admin, to its end; its standard output. */
  private String jar(String... args) throws Exception {
    Process p =
        java(cluster.adminKubeconfig(), args)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("jar " + List.of(args) + " ended").isTrue();
    assertThat(p.exitValue()).as("jar " + List.of(args) + ": " + out).isZero();
    return out;
  }

  /** SIGTERM, as deleting its Deployment's pod would. */
  private void stopPublisher() throws InterruptedException {
    if (publisher != null && publisher.isAlive()) {
      publisher.destroy();
      if (!publisher.waitFor(30, TimeUnit.SECONDS)) {
        publisher.destroyForcibly().waitFor();
      }
    }
  }

  private void await(String what, Await.Check check) {
    Await.until(what, WAIT, check, this::publisherLog);
  }

  private String publisherLog() {
    try {
      return Files.exists(log) ? "publisher log:\n" + Files.readString(log) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
