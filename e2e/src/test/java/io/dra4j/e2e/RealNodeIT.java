package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.kube.ListOptions;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.runtime.testsupport.MetadataReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real node: the real kubelet of v1.37.2 on containerd 2.x ({@code cluster.sh real-node}), with
 * Debian's runc, the locally built pause and busybox images, and the fake driver registering in the
 * kubelet's own registry folder. A host-network pod's container prints what our CDI specs injected
 * (the environment, the device node, and the device metadata as upstream's reader, {@code
 * e2e/metadata-reader}, finds and decodes it at its documented path) and the test reads it from the
 * container's log.
 *
 * <p>Skipped, with the reason, where the machine cannot run containers ({@code cluster.sh real-node
 * --check}: no root, no runc, no overlay filesystem); with {@code DRA4J_REQUIRE_PEERS} set (CI) it
 * fails instead.
 */
class RealNodeIT {
  static final String NS = "e2e-real-node";
  static final String NODE = "rn";

  static Cluster cluster;
  static Path host;
  static Path kubeletRoot;
  static DriverProcess driver;

  @BeforeAll
  static void start() throws Exception {
    cluster = Cluster.shared();
    host = Files.createTempDirectory("rn-");
    kubeletRoot = startRealNode(cluster, NS, NODE, host);
    driver =
        driverOn(cluster, NODE, kubeletRoot, host)
            .flag("devices", "1")
            .flag("device-nodes", "/dev/null")
            .flag("device-metadata", "true")
            .start();
    await(
        "the driver's device published for " + NODE,
        () ->
            cluster
                .admin()
                .list(Cluster.SLICES, "", ListOptions.fields("spec.nodeName=" + NODE))
                .items()
                .stream()
                .anyMatch(s -> s.path("spec").path("devices").size() == 1));
  }

  @AfterAll
  static void stop() {
    if (driver != null) {
      driver.close();
    }
    if (kubeletRoot != null) {
      cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
      cluster.stopRealNode(NODE);
      cluster.removeNode(NODE);
    }
  }

  @Test
  void theContainerSeesTheEnvironmentDeviceNodeAndDeviceMetadataOfOurCdiSpecs() throws Exception {
    // Upstream's device metadata reader, run inside the container from a read-only host folder.
    Path reader = MetadataReader.build().binary();
    cluster.create(Resources.claimTemplate(NS, "gpu"));
    cluster.create(
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: probe
          namespace: %s
        spec:
          hostNetwork: true
          automountServiceAccountToken: false
          restartPolicy: Never
          terminationGracePeriodSeconds: 1
          tolerations: [{operator: Exists}]
          resourceClaims:
          - name: gpu
            resourceClaimTemplateName: gpu
          volumes:
          - name: peer
            hostPath: {path: %s, type: Directory}
          containers:
          - name: main
            image: %s
            imagePullPolicy: Never
            command:
            - sh
            - -c
            - >-
              env | grep ^DRA_FAKE_ | sort; ls -l /dev/fake-*;
              echo metadata-begin; /peer/%s read template %s gpu gpu; echo metadata-end;
              echo probe-done; exec sleep 3600
            volumeMounts:
            - {name: peer, mountPath: /peer, readOnly: true}
            resources:
              claims:
              - name: gpu
        """
            .formatted(
                NS,
                reader.getParent(),
                Cluster.BUSYBOX_IMAGE,
                reader.getFileName(),
                DriverProcess.DRIVER));

    // The container stays up after printing, so the claim is still prepared while we compare.
    String log = awaitProbeDone(cluster, kubeletRoot, NS, RealNodeIT::context);

    // What the driver wrote into its CDI spec is what the container got from containerd.
    String spec = cdiSpecText();
    String uuidLine =
        log.lines()
            .filter(l -> l.matches("DRA_FAKE_DEVICE_[A-Z0-9_]+=[0-9a-f-]{36}"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no device variable in the log:\n" + log));
    assertThat(spec).contains(uuidLine.substring(uuidLine.indexOf('=') + 1));
    assertThat(log).contains(uuidLine.substring(0, uuidLine.indexOf('=')) + "_REQUEST=gpu");
    // /dev/null of the host, under the name the spec gives it: a character device 1, 3.
    assertThat(spec).contains("/dev/fake-gpu-0");
    assertThat(log.lines().filter(l -> l.contains("/dev/fake-gpu-0")))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("crw").containsPattern("\\b1,\\s+3\\b"));

    // Upstream's reader finds the metadata file by the pod's name for the claim (it came from a
    // template) and decodes and validates it: what containerd mounted from our metadata CDI spec.
    JsonNode pod = cluster.admin().get(Cluster.PODS, NS, "probe");
    String claimName =
        pod.path("status").path("resourceClaimStatuses").get(0).path("resourceClaimName").asText();
    String json = log.substring(log.indexOf("metadata-begin\n") + 15, log.indexOf("metadata-end"));
    JsonNode read = new ObjectMapper().readTree(json);
    assertThat(read.path("containerPath").asText())
        .isEqualTo(
            "/var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/gpu/gpu/"
                + DriverProcess.DRIVER
                + "-metadata.json");
    assertThat(read.path("gvk").asText())
        .isEqualTo("metadata.resource.k8s.io/v1beta1, Kind=DeviceMetadata");
    assertThat(read.path("validation").isNull()).as(json).isTrue();
    JsonNode metadata = read.path("metadata");
    assertThat(metadata.path("metadata").path("name").asText()).isEqualTo(claimName);
    assertThat(metadata.path("metadata").path("namespace").asText()).isEqualTo(NS);
    assertThat(metadata.path("metadata").path("generation").asLong()).isEqualTo(1);
    assertThat(metadata.path("podClaimName").asText()).isEqualTo("gpu");
    JsonNode request = metadata.path("requests").get(0);
    assertThat(request.path("name").asText()).isEqualTo("gpu");
    assertThat(request.path("devices").get(0).path("driver").asText())
        .isEqualTo(DriverProcess.DRIVER);
    assertThat(request.path("devices").get(0).path("name").asText()).isEqualTo("gpu-0");

    // The pod is deleted: the kubelet stops the container, unprepares the claim, and our driver
    // removes the specs.
    cluster.kubectl("delete", "pod", "probe", "-n", NS, "--wait=false");
    await(
        "pod probe deleted by the kubelet",
        () -> cluster.admin().list(Cluster.PODS, NS, ListOptions.ALL).items().isEmpty());
    await("the CDI specs removed after the pod went", () -> cdiSpecs().isEmpty());
  }

  /**
   * Waits until pod {@code probe} of {@code ns} runs and its container {@code main} has printed
   * {@code probe-done}, and returns that container's log; fails at once if the pod stops.
   */
  static String awaitProbeDone(
      Cluster cluster, Path kubeletRoot, String ns, Supplier<String> context) {
    JsonNode pod =
        Await.until(
            "pod probe Running with its output written",
            Duration.ofSeconds(120),
            () -> {
              JsonNode p = cluster.admin().get(Cluster.PODS, ns, "probe");
              String phase = p.path("status").path("phase").asText();
              assertThat(phase).as(p.path("status").toString()).isIn("Pending", "Running");
              return phase.equals("Running")
                      && containerLog(kubeletRoot, p, "main").contains("probe-done")
                  ? Optional.of(p)
                  : Optional.empty();
            },
            context);
    try {
      return containerLog(kubeletRoot, pod, "main");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The container's log as the kubelet's runtime wrote it, below the kubelet's pod log folder:
   * {@code <namespace>_<pod>_<uid>/<container>/0.log}, one {@code <time> <stream> <tag> <text>}
   * line per line the container printed. {@code kubeletRoot} is what {@link Cluster#realNode}
   * returned.
   */
  static String containerLog(Path kubeletRoot, JsonNode pod, String container) throws IOException {
    JsonNode meta = pod.path("metadata");
    Path file =
        kubeletRoot
            .resolveSibling("pod-logs")
            .resolve(
                meta.path("namespace").asText()
                    + "_"
                    + meta.path("name").asText()
                    + "_"
                    + meta.path("uid").asText())
            .resolve(container)
            .resolve("0.log");
    StringBuilder out = new StringBuilder();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] parts = line.split(" ", 4);
      out.append(parts.length == 4 ? parts[3] : "").append('\n');
    }
    return out.toString();
  }

  /**
   * Starts the real node {@code node} for a test's namespace {@code ns}, with its CDI folder {@code
   * host/cdi}, and returns the kubelet's root folder; first the fake driver's deployment objects,
   * the namespace and the device class. Aborts the test, with the reason, where the machine cannot
   * run a real node; under {@code DRA4J_REQUIRE_PEERS} it fails instead.
   */
  static Path startRealNode(Cluster cluster, String ns, String node, Path host) {
    Optional<String> problem = cluster.realNodeProblem();
    if (problem.isPresent() && System.getenv("DRA4J_REQUIRE_PEERS") == null) {
      Assumptions.abort("this machine cannot run a real node: " + problem.get());
    }
    assertThat(problem).as("what keeps this machine from running a real node").isEmpty();
    cluster.buildNode();
    Deployment.ensureApplied(cluster);
    cluster.apply(Resources.namespace(ns));
    cluster.apply(Deployment.read("deviceclass.yaml"));
    return cluster.realNode(node, host.resolve("cdi"));
  }

  /**
   * The fake driver for a real node, with the pod-bound token of its ServiceAccount and its sockets
   * where a DaemonSet pod puts them: the kubelet's own folders.
   */
  static DriverProcess.Builder driverOn(Cluster cluster, String node, Path kubeletRoot, Path host) {
    Path kubeconfig = cluster.token(Deployment.NAMESPACE, Deployment.SERVICE_ACCOUNT, node);
    return DriverProcess.builder(DriverNode.workDir(node), node, kubeconfig)
        .folders(
            kubeletRoot.resolve("plugins_registry"),
            kubeletRoot.resolve("plugins"),
            host.resolve("cdi"));
  }

  static List<Path> cdiSpecs() throws IOException {
    return cdiSpecs(host);
  }

  /** The CDI spec files the driver wrote in {@code host/cdi}. */
  static List<Path> cdiSpecs(Path host) throws IOException {
    try (Stream<Path> s = Files.list(host.resolve("cdi"))) {
      return s.filter(p -> !p.getFileName().toString().startsWith(".")).toList();
    }
  }

  static String cdiSpecText() throws IOException {
    StringBuilder out = new StringBuilder();
    for (Path p : cdiSpecs()) {
      out.append(Files.readString(p)).append('\n');
    }
    return out.toString();
  }

  static void await(String what, Await.Check check) {
    Await.until(what, Duration.ofSeconds(120), check, RealNodeIT::context);
  }

  static String context() {
    return "kubelet log:\n"
        + DriverNode.tail(cluster.log("kubelet-" + NODE))
        + "\ncontainerd log:\n"
        + DriverNode.tail(cluster.log("containerd-" + NODE))
        + (driver == null ? "" : "\ndriver log:\n" + DriverNode.tail(driver.log()));
  }
}
