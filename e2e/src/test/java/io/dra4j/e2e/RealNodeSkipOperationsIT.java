package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.ListOptions;
import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code skipNodeOperations} (KEP-5945, issue 35 scope 3) through the real v1.37.2 scheduler and
 * the real kubelet of a real node ({@code cluster.sh real-node}), on a cluster of its own started
 * with {@code --feature-gates DRAOptionalNodeOperations=true} (API server, scheduler,
 * controller-manager and the node's kubelet; {@code NodeDeclaredFeatures}, which it depends on, is
 * GA and locked on in 1.37: k8s.io/kubernetes v1.37.2 pkg/features/kube_features.go:1892-1896,
 * :2605). The fake driver runs with {@code skip-node-operations=*}: besides its pool {@code <node>}
 * it publishes a pool {@code <node>-skip} whose slices carry {@code skipNodeOperations: ["*"]}.
 *
 * <p>One pod holds three claims of the one driver: {@code skipped} (one device of the skipping
 * pool), {@code normal} (one device of the normal pool) and {@code mixed} (one of each). What each
 * assertion shows, with the upstream rule it checks:
 *
 * <ul>
 *   <li>The node declares the feature ({@code status.declaredFeatures}), which the scheduler
 *       requires before it gives such a device to a node (k8s.io/dynamic-resource-allocation
 *       v0.37.2 structured/internal/experimental/allocator_experimental.go:1588-1597).
 *   <li>The scheduler copies the slice's {@code skipNodeOperations} into each allocation result of
 *       a skipping device, and into no other (allocator_experimental.go:397-409).
 *   <li>The kubelet decides per claim and driver, not per device: it skips the driver's call only
 *       when every device of that driver in the claim skips it (kubernetes v1.37.2
 *       pkg/kubelet/cm/dra/claiminfo.go:86-140, manager.go:329-332 and :401-406). So {@code
 *       skipped} never reaches our driver (no prepare, no CDI spec, no device status, nothing in
 *       the container, and the kubelet's {@code dra_node_prepare_skips_total} counts exactly one
 *       skip), while {@code normal} and {@code mixed} are prepared, {@code mixed} with both its
 *       devices, the skipping one included: its variables reach the container.
 *   <li>Unprepare follows the same rule (manager.go:710-715, {@code
 *       dra_node_unprepare_skips_total}): when the pod goes, our driver unprepares two claims and
 *       the kubelet counts one skip.
 * </ul>
 *
 * <p>Skipped, with the reason, where the machine cannot run a real node; with {@code
 * DRA4J_REQUIRE_PEERS} set (CI) it fails instead. Only one real node per machine: run it alone (or
 * under {@code flock /tmp/realnode.lock}) beside other real-node tests.
 */
class RealNodeSkipOperationsIT {
  static final String NS = "e2e-skip-ops";
  static final String NODE = "so";
  static final String SKIP_POOL = NODE + "-skip";
  static final String DRIVER = DriverProcess.DRIVER;

  /** The fake's {@code skip-node-operations} setting, and the list each skipping slice carries. */
  static final String SKIP = "*";

  static final String SKIP_JSON = "[\"" + SKIP + "\"]";

  /** The kubelet's series of the two skip counters for our driver (metrics.go:1184-1202). */
  static final String PREPARE_SKIPS =
      "dra_node_prepare_skips_total{driver_name=\"" + DRIVER + "\"}";

  static final String UNPREPARE_SKIPS =
      "dra_node_unprepare_skips_total{driver_name=\"" + DRIVER + "\"}";

  static final String SKIPPING = "'skipsNodeOperations' in device.attributes['" + DRIVER + "']";
  static final String NOT_SKIPPING = "!(" + SKIPPING + ")";

  static Cluster cluster;
  static Path host;
  static Path kubeletRoot;
  static DriverProcess driver;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        Cluster.start(
            Path.of(System.getProperty("dra4j.cluster.script", "cluster.sh")),
            Path.of(System.getProperty("dra4j.cluster.dir", "target/cluster"))
                .resolveSibling("cluster-so"),
            "--feature-gates",
            "DRAOptionalNodeOperations=true");
    host = Files.createTempDirectory("so-");
    kubeletRoot = RealNodeIT.startRealNode(cluster, NS, NODE, host);
    driver =
        RealNodeIT.driverOn(cluster, NODE, kubeletRoot, host)
            .flag("devices", "2")
            .flag("skip-node-operations", SKIP)
            .start();
    await(
        "both pools of " + NODE + " published, the skipping one with skipNodeOperations stored",
        () -> {
          List<JsonNode> slices =
              cluster
                  .admin()
                  .list(Cluster.SLICES, "", ListOptions.fields("spec.nodeName=" + NODE))
                  .items();
          return slices.stream()
                  .anyMatch(
                      s ->
                          s.path("spec").path("pool").path("name").asText().equals(NODE)
                              && s.path("spec").path("devices").size() == 2
                              && !s.path("spec").has("skipNodeOperations"))
              && slices.stream()
                  .anyMatch(
                      s ->
                          s.path("spec").path("pool").path("name").asText().equals(SKIP_POOL)
                              && s.path("spec").path("devices").size() == 2
                              && s.path("spec")
                                  .path("skipNodeOperations")
                                  .toString()
                                  .equals(SKIP_JSON));
        });
  }

  @AfterAll
  static void stop() {
    if (driver != null) {
      driver.close();
    }
    if (cluster != null) {
      cluster.down();
    }
  }

  @Test
  void theKubeletSkipsPrepareOnlyForAClaimWhoseDevicesOfTheDriverAllSkipIt() throws Exception {
    await(
        "node " + NODE + " declaring DRAOptionalNodeOperations",
        () ->
            cluster
                .admin()
                .get(Cluster.NODES, "", NODE)
                .path("status")
                .path("declaredFeatures")
                .toString()
                .contains("\"DRAOptionalNodeOperations\""));
    cluster.create(Resources.claim(NS, "skipped", DRIVER, 1, SKIPPING, Optional.empty()));
    cluster.create(Resources.claim(NS, "normal", DRIVER, 1, NOT_SKIPPING, Optional.empty()));
    cluster.create(
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: mixed, namespace: %s}
        spec:
          devices:
            requests:
            - name: plain
              exactly:
                deviceClassName: %s
                selectors: [{cel: {expression: "%s"}}]
            - name: skipping
              exactly:
                deviceClassName: %s
                selectors: [{cel: {expression: "%s"}}]
        """
            .formatted(NS, DRIVER, NOT_SKIPPING, DRIVER, SKIPPING));
    cluster.create(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: probe, namespace: %s}
        spec:
          hostNetwork: true
          automountServiceAccountToken: false
          restartPolicy: Never
          terminationGracePeriodSeconds: 1
          tolerations: [{operator: Exists}]
          resourceClaims:
          - {name: skipped, resourceClaimName: skipped}
          - {name: normal, resourceClaimName: normal}
          - {name: mixed, resourceClaimName: mixed}
          containers:
          - name: main
            image: %s
            imagePullPolicy: Never
            command: [sh, -c, "env | grep ^DRA_FAKE_ | sort; echo probe-done; exec sleep 3600"]
            resources:
              claims: [{name: skipped}, {name: normal}, {name: mixed}]
        """
            .formatted(NS, Cluster.BUSYBOX_IMAGE));

    // The container runs: the kubelet did what it had to for all three claims.
    String log =
        RealNodeIT.awaitProbeDone(cluster, kubeletRoot, NS, RealNodeSkipOperationsIT::context);

    // The scheduler copied the slice's list into the skipping device's result, and only there.
    JsonNode skipped = claim("skipped");
    JsonNode normal = claim("normal");
    JsonNode mixed = claim("mixed");
    assertThat(results(skipped)).singleElement().satisfies(r -> assertSkips(r, true));
    assertThat(results(normal)).singleElement().satisfies(r -> assertSkips(r, false));
    assertThat(results(mixed))
        .hasSize(2)
        .allSatisfy(r -> assertSkips(r, r.path("request").asText().equals("skipping")));

    // Per claim and driver: only the claim whose devices all skip was left out.
    String kubelet = cluster.kubeletMetrics(NODE);
    assertThat(sample(kubelet, PREPARE_SKIPS)).as(PREPARE_SKIPS).isEqualTo(1);
    assertThat(driver.metric(DriverProcess.PREPARED)).isEqualTo(2);
    assertThat(cdiSpecsOf(uid(skipped))).isEmpty();
    assertThat(cdiSpecsOf(uid(normal))).isNotEmpty();
    assertThat(cdiSpecsOf(uid(mixed))).isNotEmpty();
    assertThat(skipped.path("status").path("devices")).isEmpty();
    assertThat(normal.path("status").path("devices")).hasSize(1);
    assertThat(mixed.path("status").path("devices")).hasSize(2);
    // The container got the variables of the three prepared devices, the mixed claim's skipping
    // device among them, and none of the skipped claim's device.
    for (JsonNode r : concat(results(normal), results(mixed))) {
      assertThat(log).contains(variable(r) + "_REQUEST=" + r.path("request").asText());
    }
    assertThat(log).doesNotContain(variable(results(skipped).get(0)) + "=");
    assertThat(log.lines().filter(l -> l.matches("DRA_FAKE_DEVICE_[A-Z0-9_]+_REQUEST=.*")))
        .hasSize(3);

    // The pod goes: the same rule for unprepare.
    cluster.kubectl("delete", "pod", "probe", "-n", NS, "--wait=false");
    await(
        "pod probe deleted by the kubelet",
        () -> cluster.admin().list(Cluster.PODS, NS, ListOptions.ALL).items().isEmpty());
    await("the CDI specs removed after the pod went", () -> cdiSpecsOf("").isEmpty());
    assertThat(driver.metric(DriverProcess.UNPREPARED)).isEqualTo(2);
    assertThat(sample(cluster.kubeletMetrics(NODE), UNPREPARE_SKIPS))
        .as(UNPREPARE_SKIPS)
        .isEqualTo(1);
    assertThat(driver.metric(DriverProcess.PREPARE_FAILED)).isZero();
    System.out.printf(
        "skip-ops: allocated skipped=%s normal=%s mixed=%s; kubelet prepare skips 1, our driver"
            + " prepared and unprepared 2 claims%n",
        devices(skipped), devices(normal), devices(mixed));
  }

  /** {@code pool/device[skipNodeOperations]} of each result, for the test's output. */
  static List<String> devices(JsonNode claim) {
    return results(claim).stream()
        .map(
            r ->
                r.path("pool").asText()
                    + "/"
                    + r.path("device").asText()
                    + r.path("skipNodeOperations"))
        .toList();
  }

  /** Whether one allocation result carries the skipping pool's list, and comes from that pool. */
  static void assertSkips(JsonNode result, boolean skips) {
    assertThat(result.path("pool").asText())
        .as(result.toString())
        .isEqualTo(skips ? SKIP_POOL : NODE);
    if (skips) {
      assertThat(result.path("skipNodeOperations").toString()).isEqualTo(SKIP_JSON);
    } else {
      assertThat(result.has("skipNodeOperations")).as(result.toString()).isFalse();
    }
  }

  static JsonNode claim(String name) throws Exception {
    return cluster.admin().get(Cluster.CLAIMS, NS, name);
  }

  static String uid(JsonNode claim) {
    return claim.path("metadata").path("uid").asText();
  }

  static List<JsonNode> results(JsonNode claim) {
    List<JsonNode> out = new ArrayList<>();
    claim.path("status").path("allocation").path("devices").path("results").forEach(out::add);
    return out;
  }

  static List<JsonNode> concat(List<JsonNode> a, List<JsonNode> b) {
    List<JsonNode> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** The fake's variable of an allocated device: {@code gpu-skip-1} gives {@code ..._SKIP_1}. */
  static String variable(JsonNode result) {
    String device = result.path("device").asText();
    return "DRA_FAKE_DEVICE_"
        + device.substring("gpu-".length()).toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** The CDI spec files whose name holds {@code text} (a claim UID; empty: every spec). */
  static List<Path> cdiSpecsOf(String text) throws IOException {
    return RealNodeIT.cdiSpecs(host).stream()
        .filter(p -> p.getFileName().toString().contains(text))
        .toList();
  }

  /** One sample of a Prometheus text scrape, named with its labels; 0 when the series is absent. */
  static long sample(String metrics, String series) {
    return metrics
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(0);
  }

  static void await(String what, Await.Check check) {
    Await.until(what, Duration.ofSeconds(120), check, RealNodeSkipOperationsIT::context);
  }

  static String context() {
    return "kubelet log:\n"
        + DriverNode.tail(cluster.log("kubelet-" + NODE))
        + (driver == null ? "" : "\ndriver log:\n" + DriverNode.tail(driver.log()));
  }
}
