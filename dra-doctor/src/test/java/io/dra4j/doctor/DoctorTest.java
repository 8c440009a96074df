package io.dra4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceTaintRule;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Node;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceType;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.DeviceManager;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The doctor against the test kit's API server over real HTTP: one fixture per finding, each
 * checking the verdict, the finding and the exit code, and every JSON report checked against the
 * published schema. One test runs it against a server that refuses every write.
 */
class DoctorTest {
  static final String DRIVER = "gpu.example.com";
  static final String GPU = "example.com/gpu";
  static final String NODE = "node-1";
  static final ObjectMapper YAML = KubeJson.yaml();
  static Schema schema;

  @TempDir Path dir;
  FakeApiServer api;
  Path kubeconfig;

  @BeforeAll
  static void loadSchema() throws Exception {
    try (InputStream in =
        Doctor.class.getResourceAsStream("/io/dra4j/runtime/doctor/doctor-report.schema.json")) {
      assertThat(in).as("schema on the class path next to Doctor").isNotNull();
      schema = SchemaRegistry.withDialect(Dialects.getDraft202012()).getSchema(in);
    }
  }

  @BeforeEach
  void start() {
    api = FakeApiServer.start();
    kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
  }

  @AfterEach
  void stop() {
    api.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Fixtures

  record Run(int exit, JsonNode report, String text) {
    List<JsonNode> findings(String check) {
      return StreamSupport.stream(report.path("findings").spliterator(), false)
          .filter(f -> f.path("check").asText().equals(check))
          .toList();
    }

    JsonNode supply(String node, String resource) {
      for (JsonNode s : report.path("supply")) {
        if (s.path("node").asText().equals(node) && s.path("resource").asText().equals(resource)) {
          return s;
        }
      }
      throw new AssertionError("no supply row for " + node + " " + resource + ": " + report);
    }
  }

  /** Runs the doctor as a user would (flags, kubeconfig file), JSON and table, both checked. */
  Run doctor(String... flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("--kubeconfig", kubeconfig.toString()));
    args.addAll(List.of(flags));
    List<String> json = new ArrayList<>(args);
    json.addAll(List.of("--output", "json"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Doctor.run(json, Map.of(), print(out), print(err));
    String body = out.toString(StandardCharsets.UTF_8);
    JsonNode report = KubeJson.mapper().readTree(body);
    List<Error> errors = schema.validate(report);
    assertThat(errors).as("report against doctor-report.schema.json:\n" + body).isEmpty();
    assertThat(report.path("exitCode").asInt()).isEqualTo(exit);

    ByteArrayOutputStream table = new ByteArrayOutputStream();
    int tableExit = Doctor.run(args, Map.of(), print(table), print(err));
    assertThat(tableExit).as("the table run exits like the JSON run").isEqualTo(exit);
    String text = table.toString(StandardCharsets.UTF_8);
    assertThat(text)
        .contains("verdict: " + report.path("verdict").asText())
        .doesNotContain("\u001b[");
    return new Run(exit, report, text);
  }

  static PrintStream print(ByteArrayOutputStream b) {
    return new PrintStream(b, true, StandardCharsets.UTF_8);
  }

  <T> T put(ResourceType<T> type, String yaml) throws Exception {
    return api.put(type, YAML.readValue(yaml, type.javaType()));
  }

  void node(String name, String extra) throws Exception {
    put(
        Node.TYPE,
        "metadata: {name: "
            + name
            + ", labels: {kubernetes.io/hostname: "
            + name
            + "}}\n"
            + "status:\n"
            + "  nodeInfo: {kubeletVersion: v1.37.2}\n"
            + extra);
  }

  void gpuClass(String name, String selector) throws Exception {
    put(
        DeviceClass.TYPE,
        "metadata: {name: "
            + name
            + "}\nspec:\n  extendedResourceName: "
            + GPU
            + "\n  selectors: [{cel: {expression: \""
            + selector
            + "\"}}]\n");
  }

  void slice(String node, int devices, String deviceExtra) throws Exception {
    StringBuilder b =
        new StringBuilder(
            "metadata: {name: "
                + node
                + "-"
                + DRIVER
                + "}\nspec:\n  driver: "
                + DRIVER
                + "\n  nodeName: "
                + node
                + "\n  pool: {name: "
                + node
                + ", generation: 1, resourceSliceCount: 1}\n  devices:\n");
    for (int i = 0; i < devices; i++) {
      b.append("  - name: gpu-")
          .append(i)
          .append("\n    attributes: {model: {string: fake}}\n")
          .append(deviceExtra);
    }
    put(ResourceSlice.TYPE, b.toString());
  }

  void pod(String ns, String name, String node, String extraStatus) throws Exception {
    put(
        Pod.TYPE,
        "metadata: {name: "
            + name
            + ", namespace: "
            + ns
            + "}\nspec:\n"
            + (node.isEmpty() ? "" : "  nodeName: " + node + "\n")
            + "  containers:\n  - name: main\n    resources: {limits: {"
            + GPU
            + ": 1}}\nstatus:\n  phase: "
            + (node.isEmpty() ? "Pending" : "Running")
            + "\n"
            + extraStatus);
  }

  /** The demo's situation: a node whose GPUs only DRA serves, one pod using one of them. */
  void servedByDra() throws Exception {
    node(NODE, "");
    gpuClass("gpu.example.com", "device.driver == '" + DRIVER + "'");
    slice(NODE, 2, "");
    pod(
        "default",
        "cuda",
        NODE,
        "  extendedResourceClaimStatus:\n"
            + "    resourceClaimName: cuda-extended-resources-abcde\n"
            + "    requestMappings: [{containerName: main, resourceName: "
            + GPU
            + ", requestName: container-0-request-0}]\n");
    String uid = api.object(Pod.TYPE, "default", "cuda").orElseThrow().metadata().uid();
    put(
        ResourceClaim.TYPE,
        "metadata:\n  name: cuda-extended-resources-abcde\n  namespace: default\n"
            + "  annotations: {resource.kubernetes.io/extended-resource-claim: 'true'}\n"
            + "  ownerReferences: [{apiVersion: v1, kind: Pod, name: cuda, uid: "
            + uid
            + ", controller: true}]\n"
            + "spec:\n  devices:\n    requests: [{name: container-0-request-0, exactly:"
            + " {deviceClassName: gpu.example.com, count: 1}}]\n"
            + "status:\n  allocation:\n    devices:\n      results: [{request:"
            + " container-0-request-0, driver: "
            + DRIVER
            + ", pool: "
            + NODE
            + ", device: gpu-0}]\n"
            + "    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name,"
            + " operator: In, values: ["
            + NODE
            + "]}]}]}\n"
            + "  reservedFor: [{resource: pods, name: cuda, uid: "
            + uid
            + "}]\n");
  }

  // ---------------------------------------------------------------------------------------------
  // Supply

  @Test
  void aNodeServedOnlyByDraIsAllGood() throws Exception {
    servedByDra();
    Run r = doctor();
    assertThat(r.exit()).isZero();
    assertThat(r.report().path("verdict").asText()).isEqualTo("ok");
    JsonNode s = r.supply(NODE, GPU);
    assertThat(s.path("servedBy").asText()).isEqualTo("dra");
    assertThat(s.path("phase").asText()).isEqualTo("dra");
    assertThat(s.path("deviceClass").asText()).isEqualTo("gpu.example.com");
    assertThat(s.path("draDevices").asInt()).isEqualTo(2);
    assertThat(s.path("untaintedDraDevices").asInt()).isEqualTo(2);
    assertThat(s.path("podsOnNode").asInt()).isEqualTo(1);
    assertThat(s.has("capacity")).isFalse();
    assertThat(r.report().path("versions").path("nodes").get(0).path("draServedResources"))
        .extracting(JsonNode::asText)
        .containsExactly(GPU);
    JsonNode claim = r.report().path("claims").path("extendedResourceClaims").get(0);
    assertThat(claim.path("pod").asText()).isEqualTo("cuda");
    assertThat(claim.path("podExists").asBoolean()).isTrue();
    assertThat(claim.path("node").asText()).isEqualTo(NODE);
    assertThat(claim.path("devices").get(0).asText()).isEqualTo(DRIVER + "/" + NODE + "/gpu-0");
    JsonNode pod = r.report().path("claims").path("podsWithExtendedResourceClaimStatus").get(0);
    assertThat(pod.path("claimExists").asBoolean()).isTrue();
    assertThat(r.text()).contains("DRA").doesNotContain("conflict");
  }

  @Test
  void aNameServedByADevicePluginAndDraOnOneNodeIsAnError() throws Exception {
    node(NODE, "  capacity: {" + GPU + ": 4}\n  allocatable: {" + GPU + ": 4}\n");
    gpuClass("gpu.example.com", "device.driver == '" + DRIVER + "'");
    slice(NODE, 2, "");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.supply(NODE, GPU).path("servedBy").asText()).isEqualTo("both");
    assertThat(r.supply(NODE, GPU).path("phase").asText()).isEqualTo("conflict");
    assertThat(r.findings("supply.conflict"))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.path("severity").asText()).isEqualTo("error");
              assertThat(f.path("node").asText()).isEqualTo(NODE);
              assertThat(f.path("message").asText())
                  .contains("both ways", "capacity 4, allocatable 4", "gpu.example.com");
            });
    assertThat(r.text()).contains("BOTH (conflict)");
  }

  /**
   * A node through every phase of its migration, its Node status written by the test kit's model of
   * the kubelet's device manager (allocatable 0 at a plugin's stop, capacity kept for the grace
   * period), the DRA driver's slice published beside it.
   */
  @Test
  void everyPhaseOfANodeAsTheKubeletsDeviceManagerWritesIt() throws Exception {
    node(NODE, "");
    gpuClass("gpu.example.com", "device.driver == '" + DRIVER + "'");
    try (HttpKubeClient client = api.newClient();
        DeviceManager kubelet = DeviceManager.start(client, NODE, Duration.ofMillis(500))) {
      kubelet.register(GPU, 4);
      Run serving = doctor("--node", NODE);
      assertPhase(serving, "device-plugin", "device-plugin", "plugin serving");
      assertThat(serving.exit()).isZero();

      // The DRA driver's devices out while the plugin serves (a guard told to only warn).
      slice(NODE, 2, "");
      Run conflict = doctor("--node", NODE);
      assertPhase(conflict, "conflict", "both", "CONFLICT: plugin and DRA");
      assertThat(conflict.exit()).isEqualTo(2);
      assertThat(conflict.findings("supply.conflict").get(0).path("message").asText())
          .contains("capacity 4, allocatable 4", "2 of them untainted");

      // A running plugin with every device unhealthy: allocatable 0, and the scheduler uses DRA.
      kubelet.health(GPU, 0);
      Run unhealthy = doctor("--node", NODE);
      assertPhase(
          unhealthy,
          "plugin-stopped",
          "dra",
          "plugin stopped < 5 min ago or unhealthy; scheduler uses DRA");
      assertThat(unhealthy.exit()).isZero();
      // Its devices healthy again: served both ways again.
      kubelet.health(GPU, 4);
      assertPhase(doctor("--node", NODE), "conflict", "both", "CONFLICT");

      kubelet.stop(GPU);
      Run stopped = doctor("--node", NODE);
      assertPhase(stopped, "plugin-stopped", "dra", "scheduler uses DRA");
      assertThat(stopped.supply(NODE, GPU).path("capacity").asText()).isEqualTo("4");
      assertThat(stopped.supply(NODE, GPU).path("allocatable").asText()).isEqualTo("0");
      assertThat(stopped.findings("supply.plugin-stopped"))
          .singleElement()
          .satisfies(
              f -> {
                assertThat(f.path("severity").asText()).isEqualTo("info");
                assertThat(f.path("message").asText())
                    .contains(
                        "capacity 4, allocatable 0",
                        "stopped less than 5 minutes ago",
                        "all its devices unhealthy",
                        "already sends pods asking for it to DRA here",
                        "2 DRA device(s) of " + DRIVER);
              });
      assertThat(stopped.exit()).isZero();

      // The grace period over, the kubelet writes 0 for good.
      Await.until(
          "capacity 0 after the grace period",
          Duration.ofSeconds(30),
          () -> client.get(Node.TYPE, "", NODE).status().capacity().get(GPU).signum() == 0);
      Run migrated = doctor("--node", NODE);
      assertPhase(migrated, "dra", "dra", "migrated");
      assertThat(migrated.findings("supply.plugin-stopped")).isEmpty();
      assertThat(migrated.exit()).isZero();
    }
  }

  /** The supply row's phase and servedBy, and the phase's words in the table's row. */
  static void assertPhase(Run r, String phase, String servedBy, String words) {
    JsonNode s = r.supply(NODE, GPU);
    assertThat(s.path("phase").asText()).as(r.text()).isEqualTo(phase);
    assertThat(s.path("servedBy").asText()).isEqualTo(servedBy);
    assertThat(r.text().lines().filter(l -> l.matches("  " + NODE + " +" + GPU + " .*")))
        .as(r.text())
        .singleElement()
        .asString()
        .contains(words);
  }

  @Test
  void aStoppedPluginWithoutDraDevicesLeavesTheNameUnservedUntilTheDriverPublishes()
      throws Exception {
    node(NODE, "  capacity: {" + GPU + ": 4}\n  allocatable: {" + GPU + ": 0}\n");
    gpuClass("gpu.example.com", "device.driver == '" + DRIVER + "'");
    Run r = doctor();
    assertThat(r.exit()).isZero();
    assertThat(r.supply(NODE, GPU).path("phase").asText()).isEqualTo("plugin-stopped");
    assertThat(r.supply(NODE, GPU).path("servedBy").asText()).isEqualTo("none");
    assertThat(r.findings("supply.plugin-stopped").get(0).path("message").asText())
        .contains("selects no device published for this node yet");
  }

  @Test
  void taintedDraDevicesBesideAServingPluginAreNoConflict() throws Exception {
    node(NODE, "  capacity: {" + GPU + ": 4}\n  allocatable: {" + GPU + ": 4}\n");
    gpuClass("gpu.example.com", "device.driver == '" + DRIVER + "'");
    slice(NODE, 2, "    taints: [{key: " + DRIVER + "/unhealthy, effect: NoSchedule}]\n");
    Run r = doctor();
    assertThat(r.supply(NODE, GPU).path("phase").asText()).isEqualTo("device-plugin");
    assertThat(r.supply(NODE, GPU).path("servedBy").asText()).isEqualTo("device-plugin");
    assertThat(r.supply(NODE, GPU).path("draDevices").asInt()).isEqualTo(2);
    assertThat(r.findings("supply.conflict")).isEmpty();
  }

  @Test
  void aDevicePluginAloneIsFine() throws Exception {
    node(NODE, "  capacity: {" + GPU + ": 4}\n  allocatable: {" + GPU + ": 4}\n");
    pod("default", "cuda", NODE, "");
    Run r = doctor();
    assertThat(r.exit()).isZero();
    JsonNode s = r.supply(NODE, GPU);
    assertThat(s.path("servedBy").asText()).isEqualTo("device-plugin");
    assertThat(s.path("phase").asText()).isEqualTo("device-plugin");
    assertThat(s.path("capacity").asText()).isEqualTo("4");
  }

  @Test
  void podsOnANodeThatServesTheirNameNeitherWayAreAWarning() throws Exception {
    node(NODE, "");
    gpuClass("gpu.example.com", "device.driver == '" + DRIVER + "'");
    pod("default", "cuda", NODE, "");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.supply(NODE, GPU).path("servedBy").asText()).isEqualTo("none");
    assertThat(r.findings("supply.unserved"))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains("1 pod(s) on node " + NODE, "selects no device"));
  }

  @Test
  void pendingPodsForANameNoNodeServesAreAWarning() throws Exception {
    node(NODE, "");
    pod("ml", "train", "", "");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.findings("demand.unserved"))
        .singleElement()
        .satisfies(f -> assertThat(f.path("message").asText()).contains("no DeviceClass maps it"));
  }

  @Test
  void devicesThatAreAllTaintedServeNobody() throws Exception {
    node(NODE, "");
    gpuClass("gpu.example.com", "device.driver == '" + DRIVER + "'");
    slice(NODE, 2, "    taints: [{key: " + DRIVER + "/unhealthy, effect: NoSchedule}]\n");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.supply(NODE, GPU).path("untaintedDraDevices").asInt()).isZero();
    assertThat(r.findings("supply.all-devices-tainted")).hasSize(1);
    // Section 6 lists them per node, as information.
    assertThat(r.report().path("taints").path("devices")).hasSize(2);
    assertThat(r.findings("taints.device"))
        .allSatisfy(f -> assertThat(f.path("severity").asText()).isEqualTo("info"))
        .hasSize(2);
  }

  @Test
  void selectorsAreEvaluatedWithCel() throws Exception {
    node(NODE, "");
    gpuClass("gpu.example.com", "device.attributes['" + DRIVER + "'].model == 'other'");
    slice(NODE, 2, "");
    Run r = doctor("--node", NODE);
    assertThat(r.supply(NODE, GPU).path("servedBy").asText()).isEqualTo("none");
    assertThat(r.supply(NODE, GPU).path("draDevices").asInt()).isZero();
  }

  // ---------------------------------------------------------------------------------------------
  // Demand

  @Test
  void demandCountsRequestsAndLimitsOfEveryContainerPerNamespace() throws Exception {
    node(NODE, "  capacity: {" + GPU + ": 8}\n  allocatable: {" + GPU + ": 8}\n");
    pod("default", "a", NODE, "");
    pod("ml", "b", "", "");
    put(
        Pod.TYPE,
        "metadata: {name: c, namespace: ml}\nspec:\n  initContainers:\n  - name: init\n"
            + "    resources: {requests: {example.com/nic: 1}}\n  containers:\n  - name: main\n"
            + "    resources: {requests: {cpu: 1}}\n");
    put(
        Pod.TYPE,
        "metadata: {name: done, namespace: ml}\nspec:\n  containers:\n  - name: main\n"
            + "    resources: {limits: {"
            + GPU
            + ": 1}}\nstatus: {phase: Succeeded}\n");
    Run r = doctor();
    JsonNode demand = r.report().path("demand");
    assertThat(demand).hasSize(2);
    JsonNode gpu = demand.get(0);
    assertThat(gpu.path("resource").asText()).isEqualTo(GPU);
    assertThat(gpu.path("pods").asInt()).isEqualTo(2);
    assertThat(gpu.path("pendingPods").asInt()).isEqualTo(1);
    assertThat(gpu.path("namespaces").path("default").asInt()).isEqualTo(1);
    assertThat(gpu.path("namespaces").path("ml").asInt()).isEqualTo(1);
    assertThat(demand.get(1).path("resource").asText()).isEqualTo("example.com/nic");
  }

  // ---------------------------------------------------------------------------------------------
  // Versions

  @Test
  void aKubeletBelow136ServingThroughDraIsAnError() throws Exception {
    servedByDra();
    setKubelet("v1.35.3");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.findings("versions.kubelet"))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.path("severity").asText()).isEqualTo("error");
              assertThat(f.path("message").asText()).contains("v1.35.3", "alpha and off");
            });
    assertThat(r.report().path("versions").path("apiServer").asText()).startsWith("v1.37");
  }

  @Test
  void aKubelet136ServingThroughDraIsAWarning() throws Exception {
    servedByDra();
    setKubelet("v1.36.1");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.findings("versions.kubelet").get(0).path("severity").asText())
        .isEqualTo("warning");
  }

  @Test
  void anOldKubeletThatServesNothingThroughDraIsNotFlagged() throws Exception {
    node(NODE, "  capacity: {" + GPU + ": 4}\n  allocatable: {" + GPU + ": 4}\n");
    setKubelet("v1.34.0");
    assertThat(doctor().exit()).isZero();
  }

  @Test
  void aKubeletThatReportsNoVersionIsANote() throws Exception {
    servedByDra();
    api.putNode("node-2");
    slice("node-2", 1, "");
    Run r = doctor();
    assertThat(r.exit()).isZero();
    assertThat(r.findings("versions.kubelet-unknown"))
        .singleElement()
        .satisfies(f -> assertThat(f.path("node").asText()).isEqualTo("node-2"));
  }

  void setKubelet(String version) throws Exception {
    Node n = api.object(Node.TYPE, "", NODE).orElseThrow();
    Map<String, Object> status = new java.util.TreeMap<>(n.status().unknownFields());
    status.put("nodeInfo", Map.of("kubeletVersion", version));
    try (var client = api.newClient()) {
      client.updateStatus(
          Node.TYPE,
          n.withStatus(new Node.Status(n.status().capacity(), n.status().allocatable(), status)));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Mapping

  @Test
  void duplicateNamesNameTheWinnerAsTheSchedulerPicksIt() throws Exception {
    node(NODE, "");
    gpuClass("gpu-old", "true");
    Await.nextSecond();
    gpuClass("gpu-new", "true");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    JsonNode gpu = null;
    for (JsonNode m : r.report().path("mapping").path("names")) {
      if (m.path("resource").asText().equals(GPU)) {
        gpu = m;
      }
    }
    assertThat(gpu).isNotNull();
    assertThat(gpu.path("deviceClass").asText()).isEqualTo("gpu-new");
    assertThat(gpu.path("ignoredClasses")).extracting(JsonNode::asText).containsExactly("gpu-old");
    assertThat(r.findings("mapping.duplicate"))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains(
                        "uses gpu-new",
                        "ignores gpu-old",
                        "deleting any of these classes",
                        "removes "
                            + GPU
                            + " from the running scheduler even while gpu-new still"
                            + " carries it",
                        "Delete or rename the ones you do not mean, then update gpu-new"));
  }

  /**
   * What {@code MigrationIT} saw on the real scheduler after deleting the class that lost a
   * duplicate name: the pod's condition says {@code Insufficient <name>} although a class maps it.
   */
  @Test
  void aPodRefusedForANameThatAClassMapsMeansTheSchedulerLostTheName() throws Exception {
    node(NODE, "");
    node("node-2", "  capacity: {" + GPU + ": 1}\n  allocatable: {" + GPU + ": 1}\n");
    gpuClass("gpu.example.com", "true");
    slice(NODE, 1, "");
    String refused =
        "  conditions:\n  - type: PodScheduled\n    status: 'False'\n    reason: Unschedulable\n"
            + "    message: '0/2 nodes are available: %s Insufficient "
            + GPU
            + ". preemption: 0/2 nodes are available: 2 No preemption victims found for incoming"
            + " pod.'\n";
    // One node refused it: node-2, whose device plugin may be used up. Nothing to say.
    pod("default", "one", "", refused.formatted("1"));
    assertThat(doctor().findings("mapping.scheduler-unmapped")).isEmpty();
    // Both refused it: node-1, which makes the name not allocatable, did not hand it to DRA.
    pod("default", "two", "", refused.formatted("2"));
    Run r = doctor();
    assertThat(r.findings("mapping.scheduler-unmapped"))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.path("severity").asText()).isEqualTo("warning");
              assertThat(f.path("message").asText())
                  .contains(
                      "1 pending pod(s) asking for " + GPU + " (default/two)",
                      "mapped " + GPU + " to no DeviceClass",
                      "Update DeviceClass gpu.example.com");
            });
  }

  /** A class that lost its extendedResourceName when the scheduler saw it has no implicit name. */
  @Test
  void aPodRefusedForTheImplicitNameOfAClassThatLostItsNameIsToldToAskForTheName()
      throws Exception {
    node(NODE, "");
    gpuClass("gpu-a", "true");
    gpuClass("gpu-b", "true");
    String loser =
        doctor()
                .findings("mapping.duplicate")
                .get(0)
                .path("message")
                .asText()
                .contains("uses gpu-a")
            ? "gpu-b"
            : "gpu-a";
    String implicit = "deviceclass.resource.kubernetes.io/" + loser;
    put(
        Pod.TYPE,
        "metadata: {name: implicit, namespace: default}\nspec:\n  containers:\n  - name: main\n"
            + "    resources: {limits: {"
            + implicit
            + ": 1}}\nstatus:\n  phase: Pending\n  conditions:\n  - type: PodScheduled\n"
            + "    status: 'False'\n    message: '0/1 nodes are available: 1 Insufficient "
            + implicit
            + ".'\n");
    assertThat(doctor().findings("mapping.scheduler-unmapped"))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains(
                        "default/implicit",
                        "also carries extendedResourceName " + GPU,
                        "Ask for " + GPU + " instead"));
  }

  @Test
  void implicitNamesAndClassNamesTooLongForThem() throws Exception {
    String longName = "a".repeat(64) + ".example.com";
    put(DeviceClass.TYPE, "metadata: {name: " + longName + "}\nspec: {}\n");
    put(DeviceClass.TYPE, "metadata: {name: nic}\nspec: {}\n");
    Run r = doctor();
    assertThat(r.exit()).isZero();
    assertThat(r.report().path("mapping").path("names"))
        .anySatisfy(
            m -> {
              assertThat(m.path("resource").asText())
                  .isEqualTo("deviceclass.resource.kubernetes.io/nic");
              assertThat(m.path("form").asText()).isEqualTo("implicit");
            });
    assertThat(r.report().path("mapping").path("unusableImplicitNames"))
        .singleElement()
        .satisfies(u -> assertThat(u.path("deviceClass").asText()).isEqualTo(longName));
    assertThat(r.findings("mapping.implicit-name-unusable")).hasSize(1);
  }

  @Test
  void anExtendedResourceNameTheSchedulerIgnoresIsAWarning() throws Exception {
    // The real API server refuses this name; a class stored before that check still exists.
    put(
        DeviceClass.TYPE,
        "metadata: {name: native}\nspec: {extendedResourceName: kubernetes.io/gpu}\n");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.report().path("mapping").path("invalidNames"))
        .singleElement()
        .satisfies(n -> assertThat(n.path("reason").asText()).contains("kubernetes.io domain"));
    assertThat(r.findings("mapping.invalid-name")).hasSize(1);
  }

  @Test
  void aSelectorTheDoctorCannotEvaluateIsAWarning() throws Exception {
    node(NODE, "");
    gpuClass("gpu.example.com", "device.driver ==");
    slice(NODE, 1, "");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.findings("mapping.selector-not-evaluated"))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains("spec.selectors[0] does not compile"));
    // Counted as accepting, like the guard does: the conflict check errs towards a conflict.
    assertThat(r.supply(NODE, GPU).path("servedBy").asText()).isEqualTo("dra");
  }

  @Test
  void aPodThatAskedBeforeItsClassExistedIsAWarning() throws Exception {
    node(NODE, "");
    pod("default", "early", "", "");
    Await.nextSecond();
    gpuClass("gpu.example.com", "true");
    slice(NODE, 1, "");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.findings("mapping.class-after-pods"))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains("default/early", "1 still pending"));
  }

  // ---------------------------------------------------------------------------------------------
  // Claims

  @Test
  void aPodWhoseExtendedResourceClaimIsGoneIsAnError() throws Exception {
    servedByDra();
    try (var client = api.newClient()) {
      client.delete(
          ResourceClaim.TYPE,
          "default",
          "cuda-extended-resources-abcde",
          io.dra4j.kube.Preconditions.NONE);
    }
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.findings("claims.missing-claim"))
        .singleElement()
        .satisfies(f -> assertThat(f.path("object").asText()).isEqualTo("Pod default/cuda"));
  }

  @Test
  void anExtendedResourceClaimWithoutItsPodIsAWarning() throws Exception {
    servedByDra();
    try (var client = api.newClient()) {
      client.delete(Pod.TYPE, "default", "cuda", io.dra4j.kube.Preconditions.NONE);
    }
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.findings("claims.orphaned")).hasSize(1);
    assertThat(
            r.report()
                .path("claims")
                .path("extendedResourceClaims")
                .get(0)
                .path("podExists")
                .asBoolean(true))
        .isFalse();
  }

  @Test
  void pendingClaims() throws Exception {
    node(NODE, "");
    put(
        ResourceClaim.TYPE,
        "metadata: {name: mine, namespace: default}\nspec:\n  devices:\n    requests: [{name: gpu,"
            + " exactly: {deviceClassName: gpu.example.com}}]\n");
    Run mine = doctor();
    assertThat(mine.exit()).isZero();
    assertThat(mine.findings("claims.pending").get(0).path("severity").asText()).isEqualTo("info");
    put(
        ResourceClaim.TYPE,
        "metadata:\n  name: p-extended-resources-x\n  namespace: default\n"
            + "  annotations: {resource.kubernetes.io/extended-resource-claim: 'true'}\n"
            + "spec:\n  devices:\n    requests: [{name: container-0-request-0, exactly:"
            + " {deviceClassName: gpu.example.com}}]\n");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.report().path("claims").path("pendingAllocation")).hasSize(2);
    assertThat(r.findings("claims.pending"))
        .anySatisfy(f -> assertThat(f.path("severity").asText()).isEqualTo("warning"));
  }

  @Test
  void aClaimOnADeviceTaintedNoExecuteByARuleIsAWarning() throws Exception {
    servedByDra();
    put(
        DeviceTaintRule.TYPE,
        "metadata: {name: drain-gpu-0}\nspec:\n  deviceSelector: {driver: "
            + DRIVER
            + ", device: gpu-0}\n  taint: {key: example.com/maintenance, effect: NoExecute}\n");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    JsonNode t = r.report().path("claims").path("onNoExecuteTaintedDevices").get(0);
    assertThat(t.path("claim").asText()).isEqualTo("cuda-extended-resources-abcde");
    assertThat(t.path("source").asText()).isEqualTo("DeviceTaintRule drain-gpu-0");
    assertThat(t.path("tolerated").asBoolean()).isFalse();
    assertThat(r.findings("claims.on-noexecute-device"))
        .singleElement()
        .satisfies(f -> assertThat(f.path("message").asText()).contains("evicts"));
    assertThat(r.report().path("taints").path("rules").get(0).path("selectedDevices").asInt())
        .isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------------
  // Taints

  @Test
  void anEffectNoneRuleShowsItsDryRun() throws Exception {
    servedByDra();
    DeviceTaintRule rule =
        put(
            DeviceTaintRule.TYPE,
            "metadata: {name: what-if}\nspec:\n  deviceSelector: {driver: "
                + DRIVER
                + "}\n  taint: {key: example.com/what-if, effect: None}\n"
                + "status:\n  conditions:\n  - type: EvictionInProgress\n    status: 'False'\n"
                + "    reason: NoEffect\n    lastTransitionTime: '2026-07-01T00:00:00Z'\n"
                + "    message: 2 published devices selected. 1 allocated device selected. 1 pod"
                + " would be evicted in 1 namespace if the effect was NoExecute. This information"
                + " will not be updated again. Recreate the DeviceTaintRule to trigger an update.\n");
    assertThat(rule.status().conditions()).hasSize(1);
    Run r = doctor();
    assertThat(r.exit()).isZero();
    JsonNode json = r.report().path("taints").path("rules").get(0);
    assertThat(json.path("effect").asText()).isEqualTo("None");
    assertThat(json.path("selectedDevices").asInt()).isEqualTo(2);
    assertThat(json.path("dryRun").path("publishedDevices").asInt()).isEqualTo(2);
    assertThat(json.path("dryRun").path("allocatedDevices").asInt()).isEqualTo(1);
    assertThat(json.path("dryRun").path("pods").asInt()).isEqualTo(1);
    assertThat(json.path("dryRun").path("namespaces").asInt()).isEqualTo(1);
    assertThat(r.report().path("taints").path("ruleApiVersion").asText())
        .isEqualTo("resource.k8s.io/v1");
    assertThat(r.findings("taints.rule"))
        .singleElement()
        .satisfies(f -> assertThat(f.path("message").asText()).contains("evict 1 pod(s)"));
  }

  // ---------------------------------------------------------------------------------------------
  // Settings

  @Test
  void alphaFieldsInStoredObjectsAreWarnings() throws Exception {
    node(NODE, "");
    slice(NODE, 1, "    attributes: {numa: {ints: [0, 1]}}\n");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.report().path("settings").path("alphaFields"))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.path("feature").asText()).isEqualTo("DRAListTypeAttributes");
              assertThat(a.path("field").asText())
                  .isEqualTo("spec.devices[0].attributes[numa].ints");
            });
    assertThat(r.findings("settings.alpha-field")).hasSize(1);
  }

  @Test
  void theSchedulersAlphaGatesAreWarningsWhereItsCommandLineIsReadable() throws Exception {
    node(NODE, "");
    Run unreadable = doctor();
    assertThat(unreadable.exit()).isZero();
    assertThat(unreadable.findings("settings.scheduler-unreadable")).hasSize(1);
    put(
        Pod.TYPE,
        "metadata: {name: kube-scheduler-cp, namespace: kube-system, labels: {component:"
            + " kube-scheduler}}\nspec:\n  containers:\n  - name: kube-scheduler\n"
            + "    command: [kube-scheduler, --kubeconfig=/etc/kubernetes/scheduler.conf,"
            + " '--feature-gates=SchedulerPreQueueingHints=true,DRAConsumableCapacity=true']\n");
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(1);
    JsonNode s = r.report().path("settings").path("scheduler");
    assertThat(s.path("readable").asBoolean()).isTrue();
    assertThat(s.path("source").asText()).isEqualTo("Pod kube-system/kube-scheduler-cp");
    assertThat(s.path("featureGates").path("SchedulerPreQueueingHints").asBoolean()).isTrue();
    assertThat(r.findings("settings.scheduler-gate"))
        .singleElement()
        .satisfies(
            f -> assertThat(f.path("message").asText()).contains("SchedulerPreQueueingHints"));
  }

  // ---------------------------------------------------------------------------------------------
  // Scope, reading, usage

  @Test
  void oneNodeAtATime() throws Exception {
    servedByDra();
    node("node-2", "  capacity: {" + GPU + ": 4}\n  allocatable: {" + GPU + ": 4}\n");
    slice("node-2", 1, "");
    assertThat(doctor().exit()).isEqualTo(2);
    Run one = doctor("--node", NODE);
    assertThat(one.exit()).isZero();
    assertThat(one.report().path("node").asText()).isEqualTo(NODE);
    assertThat(one.report().path("supply"))
        .isNotEmpty()
        .allSatisfy(s -> assertThat(s.path("node").asText()).isEqualTo(NODE));
    Run two = doctor("--node", "node-2");
    assertThat(two.exit()).isEqualTo(2);
    Run missing = doctor("--node", "node-9");
    assertThat(missing.exit()).isEqualTo(3);
    assertThat(missing.report().path("unreadable").get(0).path("error").asText())
        .contains("node-9");
  }

  @Test
  void readsOnlyAndWorksAgainstAServerThatRefusesWrites() throws Exception {
    servedByDra();
    for (String verb : List.of("create", "update", "patch", "delete", "deletecollection")) {
      api.faults().failNext(verb, "*", Integer.MAX_VALUE, 403);
    }
    long before = api.requestCounts().values().stream().mapToLong(Long::longValue).sum();
    Run r = doctor();
    assertThat(r.exit()).isZero();
    assertThat(r.supply(NODE, GPU).path("servedBy").asText()).isEqualTo("dra");
    assertThat(api.requestCounts().values().stream().mapToLong(Long::longValue).sum())
        .isGreaterThan(before);
    assertThat(api.requestCounts().keySet())
        .as("every request the doctor sent")
        .allSatisfy(k -> assertThat(k).matches("(get|list) .*"));
  }

  @Test
  void whatCannotBeReadMakesTheVerdictUnreadable() throws Exception {
    servedByDra();
    api.faults().failNext("list", "pods", Integer.MAX_VALUE, 403);
    Run r = doctor();
    assertThat(r.exit()).isEqualTo(3);
    assertThat(r.report().path("verdict").asText()).isEqualTo("unreadable");
    assertThat(r.report().path("unreadable").get(0).path("what").asText()).isEqualTo("pods");
    assertThat(r.text()).contains("Could not read");
  }

  @Test
  void usageErrorsExit64() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(Doctor.run(List.of("--output", "xml"), Map.of(), print(err), print(err)))
        .isEqualTo(Doctor.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--output must be table or json");
    assertThat(Doctor.run(List.of("--frobnicate", "1"), Map.of(), print(err), print(err)))
        .isEqualTo(Doctor.EXIT_USAGE);
    assertThat(Doctor.run(List.of("--node", "a", "--node", "b"), Map.of(), print(err), print(err)))
        .isEqualTo(Doctor.EXIT_USAGE);
    assertThat(Doctor.run(List.of("--help"), Map.of(), print(err), print(err))).isZero();
    assertThat(
            Doctor.run(
                List.of("--kubeconfig", dir.resolve("missing").toString()),
                Map.of(),
                print(err),
                print(err)))
        .isEqualTo(3);
  }

  @Test
  void theKubeconfigComesFromTheEnvironmentToo() throws Exception {
    servedByDra();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit =
        Doctor.run(
            List.of("--output=json"),
            Map.of("KUBECONFIG", kubeconfig.toString()),
            print(out),
            print(new ByteArrayOutputStream()));
    assertThat(exit).isZero();
    assertThat(Files.exists(kubeconfig)).isTrue();
  }
}
