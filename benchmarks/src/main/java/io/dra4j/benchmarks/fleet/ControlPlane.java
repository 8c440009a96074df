package io.dra4j.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The real control plane of {@code e2e/cluster.sh} (started by {@code run.sh} or by hand): its
 * folder, the script's subcommands to stop and start a component, and an admin client for the
 * harness's own objects (Nodes, the DeviceClass, the pods of a burst).
 */
final class ControlPlane {
  static final ResourceType<JsonNode> NODES =
      new ResourceType<>("", "v1", "nodes", "Node", false, JsonNode.class);
  static final ResourceType<JsonNode> PODS =
      new ResourceType<>("", "v1", "pods", "Pod", true, JsonNode.class);
  static final ResourceType<JsonNode> NAMESPACES =
      new ResourceType<>("", "v1", "namespaces", "Namespace", false, JsonNode.class);
  static final ResourceType<JsonNode> CLAIMS =
      new ResourceType<>(
          "resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true, JsonNode.class);
  static final ResourceType<JsonNode> DEVICE_CLASSES =
      new ResourceType<>(
          "resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false, JsonNode.class);

  /** The label of the harness's Nodes, so a later run removes what an interrupted one left. */
  static final String FLEET_LABEL = "dra4j.io/fleet";

  private static final ObjectMapper JSON = new ObjectMapper();

  final Path dir;
  final Path script;
  final int apiserverPort;

  ControlPlane(Path dir, Path script) throws IOException {
    this.dir = dir;
    this.script = script;
    Properties env = new Properties();
    Path file = dir.resolve("cluster.env");
    if (!Files.exists(file)) {
      throw new IllegalArgumentException(
          "no cluster in " + dir + " (cluster.env is missing): start one with e2e/cluster.sh up");
    }
    try (var r = Files.newBufferedReader(file)) {
      env.load(r);
    }
    this.apiserverPort = Integer.parseInt(env.getProperty("APISERVER_PORT"));
  }

  Path adminKubeconfig() {
    return dir.resolve("admin.kubeconfig");
  }

  /** An admin client for the harness itself; its rate limit is raised, so it never waits. */
  HttpKubeClient adminClient(String agent) {
    return HttpKubeClient.builder(KubeConfig.fromKubeconfig(adminKubeconfig()))
        .rateLimit(5000, 5000)
        .userAgent(agent)
        .build();
  }

  /** Runs a subcommand of {@code cluster.sh} for this cluster; fails with its output. */
  void script(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(script.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("DRA4J_CLUSTER_DIR", dir.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("cluster.sh " + String.join(" ", args) + " failed:\n" + out);
    }
  }

  /**
   * An API-only Node, Ready and untainted, as {@code cluster.sh node} makes one (status with room
   * for pods, the Ready condition), written with the admin client because 500 kubectl runs would
   * take minutes.
   */
  static void createNode(HttpKubeClient admin, String name) throws KubeException {
    String now = Instant.now().toString().replaceAll("\\.\\d+Z$", "Z");
    ObjectNode node = JSON.createObjectNode();
    node.put("apiVersion", "v1").put("kind", "Node");
    ObjectNode meta = node.putObject("metadata");
    meta.put("name", name);
    meta.putObject("labels").put("kubernetes.io/hostname", name).put(FLEET_LABEL, "true");
    ObjectNode status = node.putObject("status");
    for (String field : List.of("capacity", "allocatable")) {
      status.putObject(field).put("cpu", "100").put("memory", "1000Gi").put("pods", "110");
    }
    status.put("phase", "Running");
    status
        .putObject("nodeInfo")
        .put("kubeletVersion", "v1.37.2")
        .put("operatingSystem", "linux")
        .put("architecture", "amd64")
        .put("machineID", "")
        .put("systemUUID", "")
        .put("bootID", "")
        .put("kernelVersion", "")
        .put("osImage", "")
        .put("containerRuntimeVersion", "")
        .put("kubeProxyVersion", "");
    status
        .putArray("conditions")
        .addObject()
        .put("type", "Ready")
        .put("status", "True")
        .put("reason", "KubeletReady")
        .put("message", "simulated node of the dra4j fleet benchmark")
        .put("lastHeartbeatTime", now)
        .put("lastTransitionTime", now);
    JsonNode created = admin.create(NODES, node);
    // Nodes keep the status they are created with. The TaintNodesByCondition admission adds
    // node.kubernetes.io/not-ready; no node controller runs here to lift it, so lift it now.
    if (!created.path("spec").path("taints").isEmpty()) {
      ObjectNode update = created.deepCopy();
      ((ObjectNode) update.path("spec")).remove("taints");
      admin.update(NODES, update);
    }
  }

  /** Deletes every Node a fleet run created (and the slices the kubelet would wipe with them). */
  static int deleteFleetNodes(HttpKubeClient admin) throws KubeException {
    int n = 0;
    for (JsonNode node : admin.list(NODES, "", ListOptions.labels(FLEET_LABEL)).items()) {
      admin.delete(NODES, "", node.path("metadata").path("name").asText(), Preconditions.NONE);
      n++;
    }
    return n;
  }
}
