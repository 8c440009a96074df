package io.dra4j.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClients;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The real control plane of {@code e2e/cluster.sh}: etcd, kube-apiserver, kube-scheduler and
 * kube-controller-manager v1.37.2 on loopback. One cluster serves the whole test run: it is started
 * on first use and stopped (every process by its PID) when the test JVM exits. Set {@code
 * DRA4J_CLUSTER_DIR} to a cluster already started with {@code e2e/cluster.sh up} to reuse it; that
 * one is left running.
 */
public final class Cluster {
  static final ResourceType<JsonNode> PODS =
      new ResourceType<>("", "v1", "pods", "Pod", true, JsonNode.class);
  static final ResourceType<JsonNode> NODES =
      new ResourceType<>("", "v1", "nodes", "Node", false, JsonNode.class);
  static final ResourceType<JsonNode> CLAIMS =
      new ResourceType<>(
          "resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true, JsonNode.class);
  static final ResourceType<JsonNode> DEVICE_TAINT_RULES =
      new ResourceType<>(
          "resource.k8s.io", "v1", "devicetaintrules", "DeviceTaintRule", false, JsonNode.class);
  static final ResourceType<JsonNode> SLICES =
      new ResourceType<>(
          "resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false, JsonNode.class);

  private static Cluster shared;

  private final Path script;
  private final Path dir;
  private final boolean owned;
  private final HttpKubeClient admin;

  private Cluster(Path script, Path dir, boolean owned) {
    this.script = script;
    this.dir = dir;
    this.owned = owned;
    this.admin = KubeClients.fromKubeconfig(adminKubeconfig());
  }

  /** The run's cluster, started (and built, if its binaries are missing) on first use. */
  public static synchronized Cluster shared() {
    if (shared == null) {
      Path script = Path.of(System.getProperty("dra4j.cluster.script", "cluster.sh"));
      String external = System.getenv("DRA4J_CLUSTER_DIR");
      if (external != null && Files.exists(Path.of(external, "cluster.env"))) {
        shared = new Cluster(script, Path.of(external), false);
      } else {
        Path dir = Path.of(System.getProperty("dra4j.cluster.dir", "target/cluster"));
        shared = start(script, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(shared::down, "e2e-cluster-down"));
      }
    }
    return shared;
  }

  /**
   * A cluster of its own in {@code dir}, for a test that needs other flags (a gate switched off).
   * The caller stops it with {@link #down()}.
   */
  static Cluster start(Path script, Path dir, String... upArgs) {
    // A folder left by a test JVM that was killed: stop its processes first.
    run(script, List.of("down", "--dir", dir.toString()));
    run(script, List.of("build"));
    List<String> up = new ArrayList<>(List.of("up", "--dir", dir.toString()));
    up.addAll(List.of(upArgs));
    run(script, up);
    return new Cluster(script, dir, true);
  }

  Path script() {
    return script;
  }

  Path dir() {
    return dir;
  }

  public Path adminKubeconfig() {
    return dir.resolve("admin.kubeconfig");
  }

  /** Our own client with the cluster-admin certificate. */
  HttpKubeClient admin() {
    return admin;
  }

  /** The built kubectl as cluster admin; returns stdout and fails with stderr. */
  public String kubectl(String... args) {
    List<String> cmd = new ArrayList<>(List.of("kubectl"));
    cmd.addAll(List.of(args));
    return script(cmd);
  }

  /** {@code kubectl apply} of a YAML or JSON document. */
  public String apply(String yaml) {
    return run(List.of("kubectl", "apply", "-f", "-"), yaml);
  }

  /**
   * {@code kubectl create --dry-run=server --validate=strict -o json}: the API server validates and
   * defaults the object as for a create (fieldValidation=Strict: an unknown or duplicate field is
   * an error) and returns it, storing nothing.
   */
  String createDryRunStrict(String yaml) {
    return run(
        List.of(
            "kubectl", "create", "--dry-run=server", "--validate=strict", "-o", "json", "-f", "-"),
        yaml);
  }

  /** {@code kubectl create} of a YAML or JSON document (fails if it exists). */
  String create(String yaml) {
    return run(List.of("kubectl", "create", "-f", "-"), yaml);
  }

  /**
   * Deletes a pod at once: with no kubelet to confirm a graceful deletion, a bound pod would stay
   * terminating.
   */
  void deletePod(String namespace, String name) {
    kubectl(
        "delete",
        "pod",
        name,
        "-n",
        namespace,
        "--grace-period=0",
        "--force",
        "--ignore-not-found");
  }

  /** An API-only Node, Ready and untainted; {@code capacity} like {@code example.com/gpu=4}. */
  void node(String name, String... capacity) {
    List<String> cmd = new ArrayList<>(List.of("node", name));
    for (String c : capacity) {
      cmd.add("--capacity");
      cmd.add(c);
    }
    script(cmd);
  }

  /** A kubeconfig whose credential is a ServiceAccount token bound to a pod on {@code node}. */
  Path token(String namespace, String serviceAccount, String node) {
    String out = script(List.of("token", namespace, serviceAccount, "--node", node));
    String[] lines = out.strip().split("\n");
    return Path.of(lines[lines.length - 1].strip());
  }

  /**
   * Starts the real kubelet's plugin manager and DRA manager for {@code node} ({@code cluster.sh
   * kubelet}) and returns its log file.
   */
  Path kubelet(String node, Path registryDir, Path stateDir) {
    return kubelet(node, registryDir, stateDir, List.of());
  }

  /** As {@link #kubelet(String, Path, Path)}, with extra flags of the harness. */
  Path kubelet(String node, Path registryDir, Path stateDir, List<String> flags) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "kubelet",
            node,
            "--registry-dir",
            registryDir.toString(),
            "--state-dir",
            stateDir.toString()));
    if (!flags.isEmpty()) {
      args.add("--");
      args.addAll(flags);
    }
    String out = script(args);
    String[] lines = out.strip().split("\n");
    return Path.of(lines[lines.length - 1].strip());
  }

  /** Stops one process of the cluster by its PID: SIGTERM, or SIGKILL when {@code crash}. */
  void stop(String process, boolean crash) {
    script(crash ? List.of("stop", "--kill", process) : List.of("stop", process));
  }

  /** Starts a stopped process again with the flags it had. */
  void start(String process) {
    script(List.of("start", process));
  }

  /**
   * The test image every real node has: Debian's busybox, built by {@code cluster.sh build-node}
   * under this name (its {@code BUSYBOX_IMAGE}).
   */
  static final String BUSYBOX_IMAGE = "dra4j.local/e2e/busybox:local";

  /** Why this machine cannot run a real node ({@code cluster.sh real-node --check}), if so. */
  Optional<String> realNodeProblem() {
    ProcessBuilder pb =
        new ProcessBuilder(script.toString(), "real-node", "--check").redirectErrorStream(true);
    try {
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      int exit = p.waitFor();
      if (exit == 0) {
        return Optional.empty();
      }
      return Optional.of(exit == 3 ? out : "real-node --check failed (exit " + exit + "): " + out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Builds the kubelet, containerd and the node images, if not cached yet. */
  void buildNode() {
    script(List.of("build-node"));
  }

  /**
   * Starts containerd and the real kubelet for {@code node} ({@code cluster.sh real-node}), with
   * containerd reading CDI specs from {@code cdiDir}; returns the kubelet's root folder.
   */
  Path realNode(String node, Path cdiDir) {
    String out = script(List.of("real-node", node, "--cdi-dir", cdiDir.toString()));
    String[] lines = out.strip().split("\n");
    return Path.of(lines[lines.length - 1].strip());
  }

  /**
   * Starts the unmodified generic-device-plugin for real node {@code node} ({@code cluster.sh
   * device-plugin}) with these {@code --device} specifications.
   */
  void devicePlugin(String node, List<String> specs) {
    List<String> cmd = new ArrayList<>(List.of("device-plugin", node));
    for (String s : specs) {
      cmd.add("--device");
      cmd.add(s);
    }
    script(cmd);
  }

  /** Stops the device plugin of {@code node} by its PID, as deleting its DaemonSet pod would. */
  void stopDevicePlugin(String node) {
    script(List.of("device-plugin", node, "--stop"));
  }

  /** A value of the cluster's {@code cluster.env} (ports, gates), e.g. {@code SCHEDULER_PORT}. */
  String env(String key) {
    try {
      for (String line : Files.readAllLines(dir.resolve("cluster.env"))) {
        if (line.startsWith(key + "=")) {
          return line.substring(key.length() + 1);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no " + key + " in " + dir.resolve("cluster.env"));
  }

  /** The port of a real node's kubelet API (its {@code kubelet.yaml}). */
  int kubeletPort(String node) {
    try {
      for (String line :
          Files.readAllLines(dir.resolve("nodes").resolve(node).resolve("kubelet.yaml"))) {
        if (line.startsWith("port: ")) {
          return Integer.parseInt(line.substring("port: ".length()).strip());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no port in the configuration of the kubelet of " + node);
  }

  /** A real node's kubelet {@code /metrics}, scraped as Prometheus would (see {@link #scrape}). */
  String kubeletMetrics(String node) {
    return scrape("https://127.0.0.1:" + kubeletPort(node) + "/metrics", false);
  }

  /** The token of a cluster-admin ServiceAccount for {@link #scrape}, made on first use. */
  private String metricsToken;

  /**
   * A component's /metrics over HTTPS with curl: the control plane's with the admin certificate
   * (their delegated authentication trusts the cluster CA), the kubelet's with a ServiceAccount
   * token (its webhook authentication), as Prometheus would scrape them.
   */
  synchronized String scrape(String url, boolean adminCertificate) {
    List<String> cmd = new ArrayList<>(List.of("curl", "-fsS", "-k", "--max-time", "10"));
    Path pki = dir.resolve("pki");
    if (adminCertificate) {
      cmd.addAll(
          List.of(
              "--cert",
              pki.resolve("admin.crt").toString(),
              "--key",
              pki.resolve("admin.key").toString()));
    } else {
      if (metricsToken == null) {
        apply(
            """
            apiVersion: v1
            kind: ServiceAccount
            metadata: {name: e2e-metrics, namespace: %s}
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: e2e-metrics}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
            subjects: [{kind: ServiceAccount, name: e2e-metrics, namespace: %s}]
            """
                .formatted(Deployment.NAMESPACE, Deployment.NAMESPACE));
        metricsToken =
            kubectl("-n", Deployment.NAMESPACE, "create", "token", "e2e-metrics").strip();
      }
      cmd.addAll(List.of("-H", "Authorization: Bearer " + metricsToken));
    }
    cmd.add(url);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException("curl " + url + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: curl " + url, e);
    }
  }

  /** Stops a real node's kubelet, containers and containerd and removes its folder and Node. */
  void stopRealNode(String node) {
    script(List.of("real-node", node, "--stop"));
  }

  /** The log of one process of the cluster, e.g. {@code kubelet-NODE}; empty if it has none. */
  String log(String process) {
    Path file = dir.resolve("logs").resolve(process + ".log");
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  /**
   * Removes what a test left on a node: its pods (the placeholder pods of its tokens too), its
   * ResourceSlices (a stopped driver leaves them, as the kubelet would clean up), and the Node.
   */
  void removeNode(String name) {
    kubectl(
        "delete",
        "pods",
        "--all-namespaces",
        "--field-selector",
        "spec.nodeName=" + name,
        "--grace-period=0",
        "--force",
        "--ignore-not-found");
    try {
      for (ResourceSlice s :
          admin.list(ResourceSlice.TYPE, "", ListOptions.fields("spec.nodeName=" + name)).items()) {
        admin.delete(ResourceSlice.TYPE, "", s.metadata().name(), Preconditions.NONE);
      }
      admin.delete(NODES, "", name, Preconditions.NONE);
    } catch (KubeException e) {
      if (!e.isNotFound()) {
        throw new IllegalStateException("cleaning up node " + name + ": " + e.getMessage(), e);
      }
    }
  }

  /** Stops every process of this cluster by its PID and removes its folder (if we started it). */
  void down() {
    admin.close();
    if (owned) {
      run(script, List.of("down", "--dir", dir.toString()));
    }
  }

  private String script(List<String> args) {
    return run(args, null);
  }

  /** A subcommand of this cluster: the script finds its folder through DRA4J_CLUSTER_DIR. */
  private String run(List<String> args, String stdin) {
    return run(script, args, stdin, dir);
  }

  private static String run(Path script, List<String> args) {
    return run(script, args, null, null);
  }

  private static String run(Path script, List<String> args, String stdin, Path dir) {
    List<String> cmd = new ArrayList<>();
    cmd.add(script.toString());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    if (dir != null) {
      pb.environment().put("DRA4J_CLUSTER_DIR", dir.toString());
    }
    // The build and up progress goes to the test's own output, and into the failure message.
    try {
      Path err = Files.createTempFile("cluster-sh", ".err");
      pb.redirectError(err.toFile());
      Process p = pb.start();
      if (stdin != null) {
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(45, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", cmd) + " did not finish in 45 minutes");
      }
      String stderr = Files.readString(err);
      Files.deleteIfExists(err);
      System.err.print(stderr);
      if (p.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + stderr.strip());
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", cmd), e);
    }
  }
}
