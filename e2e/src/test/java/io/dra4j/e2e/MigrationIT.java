package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.e2e.MigrationSampler.PluginGrant;
import io.dra4j.e2e.MigrationSampler.Sample;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ListOptions;
import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The migration of a real node from a device plugin to DRA and back, as the seeds write it, with
 * every pod manifest byte-for-byte unchanged: the v1.37.2 kubelet on containerd ({@code cluster.sh
 * real-node}), the unmodified github.com/squat/generic-device-plugin ({@code cluster.sh
 * device-plugin}) serving {@code /dev/fuse}, {@code /dev/net/tun} and {@code /dev/loop-control},
 * and the host-device driver ({@code examples/hostdev-driver}) reading the same {@code --device}
 * specifications, once per guard mode: {@code devic.es/fuse} under {@code wait}, {@code
 * devic.es/tun} under {@code fail} (restarted with the kubelet's container backoff, as its
 * DaemonSet pod would be), {@code devic.es/loop-control} under {@code warn}. One plugin serves the
 * three names, so the kubelet's 5-minute grace period after the plugin stops is waited for once;
 * the five questions the seeds leave open are settled against the real components while it runs.
 *
 * <p>{@link MigrationSampler} reads the Node and its slices every 100 ms throughout. At no sample
 * may a name be allocatable from the plugin while untainted DRA devices for it are published
 * ({@code wait} and {@code fail}; {@code warn} does exactly that, and the count says how long), and
 * no pod may get a device from both. The timeline per mode and the counts are printed as lines
 * starting with {@code migration:} and written to {@code target/migration-report.json}.
 *
 * <p>Skipped where the machine cannot run a real node, as {@code RealNodeIT}; fails instead under
 * {@code DRA4J_REQUIRE_PEERS} (CI).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MigrationIT {
  static final String NS = "e2e-migration";
  static final String NODE = "mig";
  static final ObjectMapper JSON = new ObjectMapper();

  /** One extended resource name, its device and the guard mode of the driver that takes it over. */
  record Mode(String policy, String name, String path, int count) {
    String resource() {
      return "devic.es/" + name;
    }

    String driver() {
      return policy + ".hostdev";
    }

    String deviceClass() {
      return name + "." + driver();
    }

    /** The same --device for generic-device-plugin and for the driver. */
    String spec() {
      return "{\"name\": \""
          + name
          + "\", \"groups\": [{\"count\": "
          + count
          + ", \"paths\": [{\"path\": \""
          + path
          + "\"}]}]}";
    }

    String pod() {
      return name + "-user";
    }

    /**
     * The pod, the same bytes in every phase: it asks for one {@code devic.es/<name>} and opens the
     * device, printing whether open() worked or why not.
     */
    String manifest() {
      return MigrationIT.manifest(NS, pod(), resource(), path());
    }
  }

  static final Mode WAIT = new Mode("wait", "fuse", "/dev/fuse", 10);
  static final Mode FAIL = new Mode("fail", "tun", "/dev/net/tun", 2);
  static final Mode WARN = new Mode("warn", "loop-control", "/dev/loop-control", 2);
  static final List<Mode> MODES = List.of(WAIT, FAIL, WARN);

  static String manifest(String ns, String name, String resource, String path) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: %s
        spec:
          hostNetwork: true
          automountServiceAccountToken: false
          restartPolicy: Never
          terminationGracePeriodSeconds: 1
          containers:
          - name: main
            image: %s
            imagePullPolicy: Never
            command: [sh, -c, '%s; exec sleep 3600']
            resources:
              limits:
                %s: "1"
        """
        .formatted(name, ns, Cluster.BUSYBOX_IMAGE, probe(path), resource);
  }

  /**
   * A shell line that opens {@code path} read-only (open(2), no O_CREAT) and prints the outcome.
   */
  static String probe(String path) {
    return "r=$( (exec 3<"
        + path
        + ") 2>&1 ) && echo \"OPEN "
        + path
        + " ok\" || echo \"OPEN "
        + path
        + " failed: $r\"";
  }

  /** What a container's open() of {@code path} did: ok, EPERM (device cgroup) or ENOENT. */
  static String openOutcome(String log, String path) {
    Matcher m = Pattern.compile("(?m)^OPEN " + Pattern.quote(path) + " (.*)$").matcher(log);
    if (!m.find()) {
      return "none";
    }
    String r = m.group(1);
    if (r.equals("ok")) {
      return "ok";
    }
    if (r.endsWith("Operation not permitted")) {
      return "EPERM";
    }
    // busybox words ENOENT in its own way: "can't open /dev/absent: no such file".
    return r.toLowerCase(java.util.Locale.ROOT).contains("no such file") ? "ENOENT" : r;
  }

  static Cluster cluster;
  static Path host;
  static Path kubeletRoot;
  static Path kubeconfig;
  static Path work;
  static MigrationSampler sampler;
  static final Map<Mode, DriverProcess> drivers = new ConcurrentHashMap<>();
  static final AtomicBoolean closing = new AtomicBoolean();
  static Thread failRestarts;
  static final List<Integer> failExits = new ArrayList<>();

  /** Pods seen Running, by UID: the names they got through DRA. */
  static final Map<String, Set<String>> draPods = new ConcurrentHashMap<>();

  /** Timeline points in System.nanoTime(). */
  static final Map<String, Long> marks = new ConcurrentHashMap<>();

  static final Map<String, Object> answers = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = Cluster.shared();
    Optional<String> problem = cluster.realNodeProblem();
    if (problem.isPresent() && System.getenv("DRA4J_REQUIRE_PEERS") == null) {
      Assumptions.abort("this machine cannot run a real node: " + problem.get());
    }
    assertThat(problem).as("what keeps this machine from running a real node").isEmpty();
    cluster.buildNode();
    // The host-device example's own ServiceAccount, RBAC and admission policy (deploy/).
    Deployment.ensureApplied(cluster, hostdevJar().getParent().resolveSibling("deploy"));
    cluster.apply(Resources.namespace(NS));
    host = Files.createTempDirectory("mig-");
    work = DriverNode.workDir(NODE);
    kubeletRoot = cluster.realNode(NODE, host.resolve("cdi"));
    kubeconfig = cluster.token(Deployment.NAMESPACE, "hostdev-dra-driver", NODE);
    cluster.devicePlugin(NODE, MODES.stream().map(Mode::spec).toList());
    sampler = MigrationSampler.start(cluster.admin(), NODE);
    await(
        "the plugin's three names allocatable on " + NODE,
        () ->
            sampler
                .last()
                .filter(s -> MODES.stream().allMatch(m -> s.allocatable(m.resource()) == m.count()))
                .isPresent());
  }

  @AfterAll
  static void stop() throws Exception {
    closing.set(true);
    if (failRestarts != null) {
      failRestarts.interrupt();
    }
    drivers.values().forEach(DriverProcess::close);
    if (sampler != null) {
      sampler.close();
      report();
    }
    if (kubeletRoot != null) {
      cluster.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force");
      cluster.stopRealNode(NODE);
      cluster.removeNode(NODE);
      for (Mode m : MODES) {
        cluster.kubectl("delete", "deviceclass", m.deviceClass(), "--ignore-not-found");
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // The migration

  @Test
  @Order(1)
  void podsRunOnTheDevicePluginAndOpenTheirDevice() throws Exception {
    for (Mode m : MODES) {
      cluster.create(m.manifest());
    }
    for (Mode m : MODES) {
      JsonNode pod = awaitOpened(NS, m.pod(), m.path());
      assertThat(openOutcome(log(pod), m.path())).isEqualTo("ok");
      assertThat(pod.path("status").path("extendedResourceClaimStatus").isMissingNode())
          .as("served by the device plugin")
          .isTrue();
      assertThat(MigrationSampler.checkpointGrants())
          .contains(new PluginGrant(uid(pod), m.resource()));
    }
    // The probe tells a device-cgroup refusal from a missing node: the host's /dev/fuse
    // bind-mounted
    // without a device rule is refused (EPERM), a path that is not there is missing (ENOENT).
    cluster.create(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: probe-control, namespace: %s}
        spec:
          hostNetwork: true
          automountServiceAccountToken: false
          restartPolicy: Never
          nodeName: %s
          volumes: [{name: fuse, hostPath: {path: /dev/fuse, type: CharDevice}}]
          containers:
          - name: main
            image: %s
            imagePullPolicy: Never
            command: [sh, -c, '%s; %s; exec sleep 3600']
            volumeMounts: [{name: fuse, mountPath: /dev/fuse}]
        """
            .formatted(NS, NODE, Cluster.BUSYBOX_IMAGE, probe("/dev/fuse"), probe("/dev/absent")));
    JsonNode control = awaitOpened(NS, "probe-control", "/dev/absent");
    assertThat(openOutcome(log(control), "/dev/fuse")).isEqualTo("EPERM");
    assertThat(openOutcome(log(control), "/dev/absent")).isEqualTo("ENOENT");
    cluster.deletePod(NS, "probe-control");
  }

  @Test
  @Order(2)
  void theDriversStartBesideThePluginAndEachGuardModeDoesWhatItSays() throws Exception {
    for (Mode m : MODES) {
      // The DeviceClass as the driver's own command prints it, mapping the plugin's name.
      cluster.apply(hostdev("deviceclass", "--driver-name", m.driver(), "--device", m.spec()));
    }
    drivers.put(WAIT, startDriver(WAIT));
    drivers.put(WARN, startDriver(WARN));
    marks.put("fail.firstStart", System.nanoTime());
    DriverProcess fail = startDriver(FAIL);
    drivers.put(FAIL, fail);

    // wait: registered, publishing nothing for the name the node still makes allocatable.
    JsonNode names =
        await(
            "the wait driver's guard holding devic.es/fuse back",
            () -> {
              JsonNode g = status(drivers.get(WAIT)).path("extendedResources");
              return g.path("synced").asBoolean() && g.path("blocking").asBoolean()
                  ? Optional.of(g.path("names"))
                  : Optional.empty();
            });
    assertThat(names.toString()).contains("\"phase\":\"device-plugin\"", "\"published\":false");
    assertThat(sampler.last().orElseThrow().devices(WAIT.driver())).isZero();

    // fail: the driver exits non-zero, naming the conflict.
    assertThat(fail.waitFor(Duration.ofSeconds(120))).isEqualTo(1);
    assertThat(fail.log())
        .contains(
            "extended resource devic.es/tun is mapped by DeviceClass " + FAIL.deviceClass(),
            "still makes it allocatable (capacity 2, allocatable 2)",
            "--extended-resource-conflict=fail");
    restartLikeADaemonSet(FAIL);

    // warn: the devices are out while the plugin serves the name: the double service warn allows.
    await(
        "the warn driver publishing beside the plugin",
        () -> sampler.last().orElseThrow().devices(WARN.driver()) == WARN.count());
    // The warning may reach the log after the slices reach the API server: awaited, not read once.
    await(
        "the warn driver's warning",
        () -> {
          String log = drivers.get(WARN).log();
          return log.contains("Publishing") && log.contains("anyway (policy warn)");
        });

    // The doctor: the plugin serves all three names; beside it, warn's devices are a conflict.
    DoctorRun doctor = doctor();
    assertPhase(doctor, WAIT, "device-plugin", "device-plugin");
    assertPhase(doctor, FAIL, "device-plugin", "device-plugin");
    assertPhase(doctor, WARN, "conflict", "both");
    assertThat(doctor.checks("error")).containsExactly("supply.conflict " + NODE);
    assertThat(doctor.findings("supply.conflict", WARN.resource()).get(0).path("message").asText())
        .contains("capacity 2, allocatable 2", WARN.driver());
    assertThat(doctor.exit()).isEqualTo(2);
  }

  @Test
  @Order(3)
  void cordonDrainAndStopThePluginAndTheWaitGuardLetsTheDevicesOut() throws Exception {
    drain();
    marks.put("plugin.stop", System.nanoTime());
    cluster.stopDevicePlugin(NODE);
    await(
        "the wait driver's 10 devices published",
        Duration.ofSeconds(120),
        () -> sampler.last().orElseThrow().devices(WAIT.driver()) == WAIT.count());
    JsonNode names = status(drivers.get(WAIT)).path("extendedResources").path("names");
    assertThat(names.toString()).contains("\"phase\":\"plugin-stopped\"", "\"published\":true");

    // The doctor: the kubelet still counts the stopped plugin's devices, the scheduler already
    // uses DRA, the wait driver's devices serve the name; no conflict, warn's included.
    DoctorRun doctor = doctor();
    assertPhase(doctor, WAIT, "plugin-stopped", "dra");
    assertPhase(doctor, WARN, "plugin-stopped", "dra");
    assertThat(doctor.supply(NODE, FAIL.resource()).path("phase").asText())
        .isEqualTo("plugin-stopped");
    assertThat(doctor.supply(NODE, WAIT.resource()).path("draDevices").asInt())
        .isEqualTo(WAIT.count());
    assertThat(
            doctor
                .findings("supply.plugin-stopped", WAIT.resource())
                .get(0)
                .path("message")
                .asText())
        .contains(
            "capacity 10, allocatable 0",
            "stopped less than 5 minutes ago",
            "already sends pods asking for it to DRA here");
    assertThat(doctor.checks("error")).isEmpty();
  }

  @Test
  @Order(4)
  void uncordonedTheSamePodsRunThroughDraAndOpenTheDeviceOfOurCdiSpec() throws Exception {
    cluster.kubectl("uncordon", NODE);
    for (Mode m : List.of(WAIT, WARN)) {
      cluster.create(m.manifest());
    }
    for (Mode m : List.of(WAIT, WARN)) {
      assertServedByDra(m, awaitOpened(NS, m.pod(), m.path()));
    }
  }

  // -------------------------------------------------------------------------------------------
  // The five questions, settled while the kubelet's grace period runs

  @Test
  @Order(5)
  void resourceQuotaCountsTheDraServedPodAndTheSchedulersClaim() throws Exception {
    String ns = NS + "-quota";
    cluster.apply(Resources.namespace(ns));
    String classQuota = WAIT.deviceClass() + ".deviceclass.resource.k8s.io/devices";
    cluster.apply(quota(ns, Map.of("requests." + WAIT.resource(), "1", classQuota, "1")));
    awaitQuotaUsed(ns, "requests." + WAIT.resource(), "0");
    cluster.create(manifest(ns, "quota-a", WAIT.resource(), WAIT.path()));
    awaitOpened(ns, "quota-a", WAIT.path());
    // Both count the DRA-served pod: the pod's request, and the scheduler's claim for the class.
    awaitQuotaUsed(ns, "requests." + WAIT.resource(), "1");
    awaitQuotaUsed(ns, classQuota, "1");
    // The pod quota refuses the second pod at admission, as for a device plugin.
    assertThatThrownBy(() -> cluster.create(manifest(ns, "quota-b", WAIT.resource(), WAIT.path())))
        .hasMessageContaining(
            "exceeded quota: migration, requested: requests.devic.es/fuse=1, used:"
                + " requests.devic.es/fuse=1, limited: requests.devic.es/fuse=1");
    // The class quota alone admits the pod; the scheduler's claim is refused in PreBind, and the
    // pod stays Pending with the quota error until the quota allows it.
    cluster.apply(quota(ns, Map.of(classQuota, "1")));
    cluster.create(manifest(ns, "quota-b", WAIT.resource(), WAIT.path()));
    JsonNode pending =
        await(
            "quota-b refused its claim by the class quota",
            () -> {
              JsonNode p = cluster.admin().get(Cluster.PODS, ns, "quota-b");
              return p.path("status").path("conditions").toString().contains("exceeded quota")
                  ? Optional.of(p)
                  : Optional.empty();
            });
    String message = pending.path("status").path("conditions").get(0).path("message").asText();
    assertThat(message)
        .contains("running PreBind plugin", "create claim for extended resources")
        .contains("is forbidden: exceeded quota: migration, requested: " + classQuota + "=1");
    answers.put("resourceQuota", message);
    cluster.kubectl("delete", "namespace", ns, "--wait=false");
  }

  @Test
  @Order(6)
  void aPodAskingOnlyForAnExtendedResourceCannotTolerateADeviceTaintAndNoExecuteEvictsIt()
      throws Exception {
    String ns = NS + "-taint";
    cluster.apply(Resources.namespace(ns));
    cluster.create(manifest(ns, "tainted", WAIT.resource(), WAIT.path()));
    JsonNode tainted = awaitOpened(ns, "tainted", WAIT.path());
    String device = allocatedDevice(ns, tainted);
    cluster.apply(taintRule("all-fuse", "{driver: " + WAIT.driver() + "}", "NoSchedule"));
    // Tolerating every node taint does not reach the scheduler's claim: its requests carry no
    // tolerations, and a pod has no field that would put one there.
    cluster.create(
        manifest(ns, "tolerant", WAIT.resource(), WAIT.path())
            .replace(
                "  restartPolicy: Never\n",
                "  restartPolicy: Never\n  tolerations: [{operator: Exists}]\n"));
    String why = unschedulable(ns, "tolerant");
    assertThat(why).contains("cannot allocate all claims");
    // NoExecute on the device of the running pod: the device-taint-eviction controller deletes it.
    cluster.apply(
        taintRule(
            "tainted-device",
            "{driver: " + WAIT.driver() + ", pool: " + NODE + ", device: " + device + "}",
            "NoExecute"));
    await(
        "the pod on the NoExecute device evicted",
        Duration.ofSeconds(120),
        () -> {
          try {
            JsonNode p = cluster.admin().get(Cluster.PODS, ns, "tainted");
            return !p.path("metadata").path("uid").asText().equals(uid(tainted));
          } catch (KubeException e) {
            return e.isNotFound();
          }
        });
    assertThat(cluster.kubectl("get", "events", "-n", ns, "-o", "json"))
        .contains("DeviceTaintManagerEviction");
    cluster.kubectl("delete", "devicetaintrule", "all-fuse", "tainted-device");
    awaitOpened(ns, "tolerant", WAIT.path());
    answers.put(
        "deviceTaints",
        "NoSchedule: a pod tolerating every node taint stays Pending ("
            + why
            + "); NoExecute: evicted");
    cluster.kubectl("delete", "namespace", ns, "--wait=false");
  }

  @Test
  @Order(7)
  void theKepsSignalsOnTheRealComponentsMetrics() throws Exception {
    // A container that cannot start, for the kubelet's error counter.
    cluster.create(
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: start-error, namespace: %s}
        spec:
          hostNetwork: true
          automountServiceAccountToken: false
          restartPolicy: Never
          nodeName: %s
          containers:
          - {name: main, image: %s, imagePullPolicy: Never, command: [/bin/absent]}
        """
            .formatted(NS, NODE, Cluster.BUSYBOX_IMAGE));
    String scheduler =
        cluster.scrape("https://127.0.0.1:" + cluster.env("SCHEDULER_PORT") + "/metrics", true);
    String kcm = cluster.scrape("https://127.0.0.1:" + cluster.env("KCM_PORT") + "/metrics", true);
    String kubelet =
        await(
            "kubelet_started_containers_errors_total on the kubelet",
            () -> {
              String m = cluster.kubeletMetrics(NODE);
              return m.contains("kubelet_started_containers_errors_total{")
                  ? Optional.of(m)
                  : Optional.empty();
            });
    cluster.deletePod(NS, "start-error");
    Map<String, String> found = new LinkedHashMap<>();
    // The KEP's names, as the components have them (absent: not there at all).
    for (String name :
        List.of(
            "scheduler_resourceclaim_creates_total",
            "dynamic_resource_allocation_resourceclaim_creates_total",
            "scheduler_pending_pods")) {
      found.put("kube-scheduler " + name, series(scheduler, name));
    }
    for (String name :
        List.of(
            "resourceclaim_controller_resource_claims",
            "dynamic_resource_allocation_resource_claims")) {
      found.put("kube-controller-manager " + name, series(kcm, name));
    }
    found.put(
        "kubelet kubelet_started_containers_errors_total",
        series(kubelet, "kubelet_started_containers_errors_total"));
    answers.put("metrics", found);
    assertThat(found)
        .containsEntry("kube-scheduler scheduler_resourceclaim_creates_total", "absent")
        .containsEntry(
            "kube-controller-manager resourceclaim_controller_resource_claims", "absent");
    assertThat(found.get("kube-scheduler dynamic_resource_allocation_resourceclaim_creates_total"))
        .contains(
            "admin_access=\"false\",owner_api_group=\"\",owner_api_kind=\"Pod\",status=\"success\"");
    assertThat(found.get("kube-scheduler scheduler_pending_pods"))
        .contains("queue=\"unschedulable\"");
    assertThat(found.get("kube-controller-manager dynamic_resource_allocation_resource_claims"))
        .contains("admin_access=\"false\",allocated=\"true\",source=\"extended_resource\"");
    assertThat(found.get("kubelet kubelet_started_containers_errors_total"))
        .contains("code=\"RunContainerError\",container_type=\"container\"");
  }

  @Test
  @Order(8)
  void aDuplicateNameOnEqualCreationTimesGoesToTheFirstNameAndDeletingTheOtherUnmapsIt()
      throws Exception {
    String ns = NS + "-tie";
    cluster.apply(Resources.namespace(ns));
    String selector = "{cel: {expression: \"device.driver == '" + WAIT.driver() + "'\"}}";
    String classes = "";
    for (int attempt = 0; attempt < 5; attempt++) {
      cluster.kubectl("delete", "deviceclass", "a-tie", "b-tie", "--ignore-not-found");
      Await.nextSecond();
      // a-tie first: the scheduler then sees b-tie lose the name (created in that order).
      cluster.create(tieClass("a-tie", selector) + "---\n" + tieClass("b-tie", selector));
      classes =
          cluster.kubectl(
              "get",
              "deviceclass",
              "a-tie",
              "b-tie",
              "-o",
              "jsonpath={.items[*].metadata.creationTimestamp}");
      String[] t = classes.split(" ");
      if (t[0].equals(t[1])) {
        break;
      }
    }
    assertThat(classes.split(" ")[0])
        .as("both created in one second")
        .isEqualTo(classes.split(" ")[1]);
    cluster.create(manifest(ns, "tie-1", "devic.es/tie", WAIT.path()));
    JsonNode tie1 = awaitOpened(ns, "tie-1", WAIT.path());
    JsonNode claim = extendedResourceClaim(ns, tie1);
    String winner =
        claim
            .path("spec")
            .path("devices")
            .path("requests")
            .get(0)
            .path("exactly")
            .path("deviceClassName")
            .asText();
    assertThat(winner).isEqualTo("a-tie");
    assertThat(doctor().findings("mapping.duplicate", "devic.es/tie"))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains(
                        "the scheduler uses a-tie", "ignores b-tie", "deleting any of these"));
    // b-tie lost the name when the scheduler saw it, and with it its implicit name: the scheduler
    // returns before mapping that (extendedresourcecache.go:176-187, 204-206).
    String implicitB = "deviceclass.resource.kubernetes.io/b-tie";
    cluster.create(manifest(ns, "tie-implicit", implicitB, WAIT.path()));
    String whyImplicit = unschedulable(ns, "tie-implicit");
    assertThat(whyImplicit).contains("Insufficient " + implicitB);
    assertThat(doctor().findings("mapping.scheduler-unmapped", implicitB))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains(ns + "/tie-implicit", "Ask for devic.es/tie instead"));
    // Deleting the class that lost unmaps the name in the scheduler's cache (extendedresourcecache
    // removes the name whichever class held it): a new pod asking for it is unschedulable
    // ("Insufficient devic.es/tie") until the winner changes.
    cluster.kubectl("delete", "deviceclass", "b-tie");
    cluster.create(manifest(ns, "tie-2", "devic.es/tie", WAIT.path()));
    String why = unschedulable(ns, "tie-2");
    assertThat(why).contains("Insufficient devic.es/tie");
    assertThat(doctor().findings("mapping.scheduler-unmapped", "devic.es/tie"))
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.path("message").asText())
                    .contains(ns + "/tie-2", "Update DeviceClass a-tie"));
    // The doctor's advice: update the class that carries the name; the pending pod is retried.
    cluster.kubectl("label", "deviceclass", "a-tie", "dra4j.io/touched=true");
    awaitOpened(ns, "tie-2", WAIT.path());
    cluster.create(manifest(ns, "tie-3", "devic.es/tie", WAIT.path()));
    awaitOpened(ns, "tie-3", WAIT.path());
    assertThat(doctor().findings("mapping.scheduler-unmapped", "devic.es/tie")).isEmpty();
    answers.put(
        "duplicateTie",
        "a-tie wins over b-tie (same creationTimestamp); b-tie's implicit name: "
            + whyImplicit
            + "; after deleting b-tie: "
            + why);
    cluster.kubectl("delete", "namespace", ns, "--wait=false");
    cluster.kubectl("delete", "deviceclass", "a-tie");
  }

  @Test
  @Order(9)
  void anImplicitNameOfAClassLongerThan63CharactersIsRefusedWithThePod() throws Exception {
    String ns = NS + "-long";
    cluster.apply(Resources.namespace(ns));
    String longName = "fuse-" + "x".repeat(54) + ".hostdev.example.com"; // 79 characters
    String okName = "fuse-" + "x".repeat(40) + ".example.com"; // 57 characters
    for (String n : List.of(longName, okName)) {
      cluster.create(
          tieClass(n, "{cel: {expression: \"device.driver == '" + WAIT.driver() + "'\"}}")
              .replace("  extendedResourceName: devic.es/tie\n", ""));
    }
    String implicitLong = "deviceclass.resource.kubernetes.io/" + longName;
    assertThatThrownBy(() -> cluster.create(manifest(ns, "long", implicitLong, WAIT.path())))
        .hasMessageContaining("name part must be no more than 63 bytes");
    cluster.create(
        manifest(ns, "short", "deviceclass.resource.kubernetes.io/" + okName, WAIT.path()));
    awaitOpened(ns, "short", WAIT.path());
    answers.put(
        "implicitLongName",
        "the API server refuses the pod: spec.containers[0].resources.limits["
            + implicitLong
            + "]: name part must be no more than 63 bytes");
    cluster.kubectl("delete", "namespace", ns, "--wait=false");
    cluster.kubectl("delete", "deviceclass", longName, okName);
  }

  // -------------------------------------------------------------------------------------------
  // The rest of the migration

  @Test
  @Order(10)
  void theFailModeDriverRestartedLikeItsDaemonSetPodServesOnceThePluginIsGone() throws Exception {
    await(
        "the fail driver, restarted with backoff, publishing",
        Duration.ofMinutes(6),
        () -> sampler.last().orElseThrow().devices(FAIL.driver()) == FAIL.count());
    cluster.create(FAIL.manifest());
    assertServedByDra(FAIL, awaitOpened(NS, FAIL.pod(), FAIL.path()));
  }

  @Test
  @Order(11)
  void theKubeletForgetsTheStoppedPluginAfterItsGracePeriod() throws Exception {
    long stop = marks.get("plugin.stop");
    await(
        "capacity 0 for the three names",
        Duration.ofMinutes(7).minusNanos(System.nanoTime() - stop),
        () ->
            sampler
                .last()
                .filter(s -> MODES.stream().allMatch(m -> s.capacity(m.resource()) == 0))
                .isPresent());
    Sample last = sampler.last().orElseThrow();
    for (Mode m : MODES) {
      // The name stays in the status at 0: the kubelet keeps it as a device plugin's.
      assertThat(last.capacity()).containsKey(m.resource());
      long capacity0 = sampler.first(stop, s -> s.capacity(m.resource()) == 0).orElseThrow();
      assertThat(Duration.ofNanos(capacity0 - stop)).isGreaterThanOrEqualTo(Duration.ofMinutes(5));
    }
    assertThat(status(drivers.get(WAIT)).path("extendedResources").path("names").toString())
        .contains("\"phase\":\"dra\"");

    // The doctor: migrated, each name served by its driver's devices only.
    DoctorRun doctor = doctor();
    for (Mode m : MODES) {
      assertPhase(doctor, m, "dra", "dra");
      assertThat(doctor.findings("supply.plugin-stopped", m.resource())).isEmpty();
    }
    assertThat(doctor.checks("error")).isEmpty();
  }

  @Test
  @Order(12)
  void rollbackDrainStopTheDriversTheKubeletWipesTheirSlicesAndThePodsRunOnThePluginAgain()
      throws Exception {
    drain();
    closing.set(true);
    failRestarts.interrupt();
    marks.put("rollback.driversStop", System.nanoTime());
    for (DriverProcess d : drivers.values()) {
      d.stop();
    }
    await(
        "the kubelet wiping the drivers' slices",
        Duration.ofSeconds(120),
        () ->
            cluster
                .admin()
                .list(Cluster.SLICES, "", ListOptions.fields("spec.nodeName=" + NODE))
                .items()
                .isEmpty());
    marks.put("rollback.slicesWiped", System.nanoTime());
    marks.put("rollback.pluginStart", System.nanoTime());
    cluster.devicePlugin(NODE, MODES.stream().map(Mode::spec).toList());
    await(
        "the plugin's names allocatable again",
        () ->
            sampler
                .last()
                .filter(s -> MODES.stream().allMatch(m -> s.allocatable(m.resource()) == m.count()))
                .isPresent());
    // The doctor: back on the plugin, no DRA device left.
    DoctorRun doctor = doctor();
    for (Mode m : MODES) {
      assertPhase(doctor, m, "device-plugin", "device-plugin");
      assertThat(doctor.supply(NODE, m.resource()).path("draDevices").asInt()).isZero();
    }
    assertThat(doctor.checks("error")).isEmpty();
    cluster.kubectl("uncordon", NODE);
    for (Mode m : MODES) {
      cluster.create(m.manifest());
    }
    for (Mode m : MODES) {
      JsonNode pod = awaitOpened(NS, m.pod(), m.path());
      assertThat(openOutcome(log(pod), m.path())).isEqualTo("ok");
      assertThat(pod.path("status").path("extendedResourceClaimStatus").isMissingNode()).isTrue();
      awaitGrant(pod, m);
      marks.putIfAbsent("rollback.firstPluginPodRunning", System.nanoTime());
    }
  }

  @Test
  @Order(13)
  void noSampleServedANameBothWaysUnderWaitOrFailAndNoPodGotADeviceFromBoth() {
    Set<PluginGrant> grants = sampler.grants();
    for (Map.Entry<String, Set<String>> p : draPods.entrySet()) {
      for (String resource : p.getValue()) {
        assertThat(grants)
            .as("pod %s got %s from both", p.getKey(), resource)
            .doesNotContain(new PluginGrant(p.getKey(), resource));
      }
    }
    assertThat(draPods).as("pods served through DRA").hasSizeGreaterThanOrEqualTo(MODES.size());
    assertThat(doubleServed(WAIT)).isZero();
    assertThat(doubleServed(FAIL)).isZero();
    // What warn does: it publishes while the plugin serves the name, until the plugin is gone.
    assertThat(doubleServed(WARN)).isPositive();
    assertThat(sampler.samples()).hasSizeGreaterThan(1000);
  }

  // -------------------------------------------------------------------------------------------

  /**
   * {@code kubectl drain}: cordons the node and evicts its pods, all but the placeholder pod that
   * the drivers' ServiceAccount token is bound to (a DaemonSet pod, in a real cluster).
   */
  static void drain() {
    cluster.kubectl(
        "drain",
        NODE,
        "--pod-selector=dra4j.io/placeholder!=true",
        "--force",
        "--ignore-daemonsets",
        "--grace-period=1",
        "--timeout=120s");
    await(
        "the drained pods gone",
        () -> cluster.admin().list(Cluster.PODS, NS, ListOptions.ALL).items().isEmpty());
  }

  /** The pod's PodScheduled=False message, once the scheduler gave up on it. */
  static String unschedulable(String ns, String name) {
    JsonNode pod =
        await(
            ns + "/" + name + " unschedulable",
            () -> {
              JsonNode p = cluster.admin().get(Cluster.PODS, ns, name);
              return Pods.unschedulable(p) ? Optional.of(p) : Optional.empty();
            });
    return pod.path("status").path("conditions").get(0).path("message").asText();
  }

  /** {@code doctor --node NODE}. */
  static DoctorRun doctor() {
    return DoctorRun.of(cluster, "--node", NODE);
  }

  static void assertPhase(DoctorRun doctor, Mode m, String phase, String servedBy) {
    JsonNode s = doctor.supply(NODE, m.resource());
    assertThat(s.path("phase").asText()).as("%s: %s", m.resource(), s).isEqualTo(phase);
    assertThat(s.path("servedBy").asText()).as("%s: %s", m.resource(), s).isEqualTo(servedBy);
  }

  static DriverProcess startDriver(Mode m) {
    return DriverProcess.builder(work, NODE, kubeconfig)
        .jar(hostdevJar())
        .driverName(m.driver())
        .logName(m.policy())
        .folders(
            kubeletRoot.resolve("plugins_registry"),
            kubeletRoot.resolve("plugins"),
            host.resolve("cdi"))
        .flag("extended-resource-conflict", m.policy())
        .flag("device", m.spec())
        .start();
  }

  /**
   * Restarts the fail-mode driver whenever it exits, after the kubelet's container backoff (10 s,
   * doubling to 5 minutes), as its DaemonSet pod would be restarted.
   */
  static void restartLikeADaemonSet(Mode m) {
    failRestarts =
        new Thread(
            () -> {
              long backoff = 10;
              while (!closing.get()) {
                DriverProcess d = drivers.get(m);
                int rc;
                try {
                  rc = d.waitFor(Duration.ofDays(1));
                } catch (RuntimeException e) {
                  return;
                }
                synchronized (failExits) {
                  failExits.add(rc);
                }
                try {
                  TimeUnit.SECONDS.sleep(backoff);
                } catch (InterruptedException e) {
                  return;
                }
                backoff = Math.min(backoff * 2, 300);
                if (!closing.get()) {
                  drivers.put(m, startDriver(m));
                }
              }
            },
            "fail-driver-restarts");
    failRestarts.setDaemon(true);
    failRestarts.start();
  }

  static Path hostdevJar() {
    return Path.of(System.getProperty("dra4j.hostdev.jar"));
  }

  /** {@code java -jar hostdev-dra-driver.jar ARGS}; its stdout. */
  static String hostdev(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                hostdevJar().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", cmd)).isZero();
    return out;
  }

  static JsonNode status(DriverProcess d) throws Exception {
    return KubeJson.mapper().readTree(d.health("/status").body());
  }

  static void assertServedByDra(Mode m, JsonNode pod) throws Exception {
    assertThat(openOutcome(log(pod), m.path())).isEqualTo("ok");
    JsonNode ercs = pod.path("status").path("extendedResourceClaimStatus");
    assertThat(ercs.path("requestMappings").toString())
        .contains("\"resourceName\":\"" + m.resource() + "\"", "\"containerName\":\"main\"");
    JsonNode claim = extendedResourceClaim(NS, pod);
    assertThat(
            claim
                .path("metadata")
                .path("annotations")
                .path("resource.kubernetes.io/extended-resource-claim")
                .asText())
        .isEqualTo("true");
    assertThat(
            claim
                .path("status")
                .path("allocation")
                .path("devices")
                .path("results")
                .get(0)
                .path("driver")
                .asText())
        .isEqualTo(m.driver());
    // The CDI spec our driver wrote for the claim, with the host's node of the device.
    String spec = cdiSpecs();
    assertThat(spec)
        .contains(claim.path("metadata").path("uid").asText(), "\"path\" : \"" + m.path() + "\"");
    assertThat(MigrationSampler.checkpointGrants()).noneMatch(g -> g.podUid().equals(uid(pod)));
    marks.putIfAbsent(m.policy() + ".firstDraPodRunning", System.nanoTime());
  }

  static JsonNode extendedResourceClaim(String ns, JsonNode pod) throws Exception {
    String name =
        pod.path("status").path("extendedResourceClaimStatus").path("resourceClaimName").asText();
    assertThat(name).as("the pod's extendedResourceClaimStatus").isNotEmpty();
    return cluster.admin().get(Cluster.CLAIMS, ns, name);
  }

  static String allocatedDevice(String ns, JsonNode pod) throws Exception {
    return extendedResourceClaim(ns, pod)
        .path("status")
        .path("allocation")
        .path("devices")
        .path("results")
        .get(0)
        .path("device")
        .asText();
  }

  /** The pod once Running and its container printed the outcome of opening {@code path}. */
  static JsonNode awaitOpened(String ns, String name, String path) {
    JsonNode pod =
        await(
            "pod " + ns + "/" + name + " Running, its open() of " + path + " printed",
            () -> {
              JsonNode p = cluster.admin().get(Cluster.PODS, ns, name);
              return p.path("status").path("phase").asText().equals("Running")
                      && !openOutcome(log(p), path).equals("none")
                  ? Optional.of(p)
                  : Optional.empty();
            });
    Set<String> viaDra = new HashSet<>();
    pod.path("status")
        .path("extendedResourceClaimStatus")
        .path("requestMappings")
        .forEach(r -> viaDra.add(r.path("resourceName").asText()));
    draPods.merge(
        uid(pod),
        viaDra,
        (a, b) -> {
          Set<String> s = new HashSet<>(a);
          s.addAll(b);
          return s;
        });
    return pod;
  }

  static void awaitGrant(JsonNode pod, Mode m) {
    await(
        "the kubelet's checkpoint giving "
            + m.resource()
            + " to "
            + pod.path("metadata").path("name").asText(),
        () ->
            MigrationSampler.checkpointGrants().contains(new PluginGrant(uid(pod), m.resource())));
  }

  static String uid(JsonNode pod) {
    return pod.path("metadata").path("uid").asText();
  }

  /** The container's log, read from the kubelet's pod log folder (see RealNodeIT). */
  static String log(JsonNode pod) {
    JsonNode meta = pod.path("metadata");
    Path file =
        kubeletRoot
            .resolveSibling("pod-logs")
            .resolve(
                meta.path("namespace").asText() + "_" + meta.path("name").asText() + "_" + uid(pod))
            .resolve("main")
            .resolve("0.log");
    try {
      if (!Files.exists(file)) {
        return "";
      }
      StringBuilder out = new StringBuilder();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String[] parts = line.split(" ", 4);
        out.append(parts.length == 4 ? parts[3] : "").append('\n');
      }
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String cdiSpecs() throws IOException {
    StringBuilder out = new StringBuilder();
    try (var files = Files.list(host.resolve("cdi"))) {
      for (Path p : files.filter(f -> !f.getFileName().toString().startsWith(".")).toList()) {
        out.append(Files.readString(p)).append('\n');
      }
    }
    return out.toString();
  }

  static String quota(String ns, Map<String, String> hard) {
    return """
        apiVersion: v1
        kind: ResourceQuota
        metadata: {name: migration, namespace: %s}
        spec:
          hard:
        %s"""
        .formatted(
            ns,
            hard.entrySet().stream()
                .map(e -> "    " + e.getKey() + ": \"" + e.getValue() + "\"\n")
                .collect(Collectors.joining()));
  }

  static void awaitQuotaUsed(String ns, String resource, String value) {
    await(
        "quota " + resource + " used " + value,
        () ->
            cluster
                .kubectl("get", "resourcequota", "migration", "-n", ns, "-o", "json")
                .contains("\"" + resource + "\": \"" + value + "\""));
  }

  static String taintRule(String name, String selector, String effect) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: DeviceTaintRule
        metadata: {name: %s}
        spec:
          deviceSelector: %s
          taint: {key: example.com/maintenance, value: "true", effect: %s}
        """
        .formatted(name, selector, effect);
  }

  static String tieClass(String name, String selector) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: %s}
        spec:
          selectors: [%s]
          extendedResourceName: devic.es/tie
        """
        .formatted(name, selector);
  }

  /** A metric's series lines (name and labels), or {@code absent}. */
  static String series(String metrics, String name) {
    List<String> lines =
        metrics
            .lines()
            .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
            .map(l -> l.substring(0, l.lastIndexOf(' ')))
            .toList();
    return lines.isEmpty() ? "absent" : String.join("; ", lines);
  }

  static long doubleServed(Mode m) {
    return sampler.samples().stream().filter(s -> s.doubleServed(m.resource(), m.driver())).count();
  }

  /** The timeline per mode, in ms from the plugin's stop, and the counts; printed and written. */
  static void report() throws IOException {
    ObjectNode out = JSON.createObjectNode();
    List<Sample> samples = sampler.samples();
    out.put("samples", samples.size());
    out.put("samplerErrors", sampler.errors().toString());
    Long stop = marks.get("plugin.stop");
    for (Mode m : MODES) {
      ObjectNode t = out.putObject(m.policy());
      t.put("resource", m.resource());
      t.put("doubleServedSamples", doubleServed(m));
      if (stop == null) {
        continue;
      }
      putMs(t, "allocatable0", sampler.first(stop, s -> s.allocatable(m.resource()) == 0), stop);
      putMs(t, "capacity0", sampler.first(stop, s -> s.capacity(m.resource()) == 0), stop);
      putMs(t, "slicesPublished", sampler.first(0, s -> s.devices(m.driver()) > 0), stop);
      putMs(
          t,
          "firstDraPodRunning",
          Optional.ofNullable(marks.get(m.policy() + ".firstDraPodRunning")),
          stop);
    }
    synchronized (failExits) {
      out.put("failDriverExits", failExits.toString());
    }
    Long fromStop = marks.get("rollback.driversStop");
    if (fromStop != null) {
      ObjectNode r = out.putObject("rollback");
      putMs(r, "slicesWiped", Optional.ofNullable(marks.get("rollback.slicesWiped")), fromStop);
      putMs(r, "pluginStart", Optional.ofNullable(marks.get("rollback.pluginStart")), fromStop);
      for (Mode m : MODES) {
        putMs(
            r,
            m.name() + ".allocatable",
            sampler.first(fromStop, s -> s.allocatable(m.resource()) > 0),
            fromStop);
      }
      putMs(
          r,
          "firstPluginPodRunning",
          Optional.ofNullable(marks.get("rollback.firstPluginPodRunning")),
          fromStop);
    }
    long doublePods =
        draPods.entrySet().stream()
            .filter(
                e ->
                    e.getValue().stream()
                        .anyMatch(r -> sampler.grants().contains(new PluginGrant(e.getKey(), r))))
            .count();
    out.put("draPods", draPods.values().stream().filter(v -> !v.isEmpty()).count());
    out.put("pluginGrants", sampler.grants().size());
    out.put("doubleServedPods", doublePods);
    out.set("answers", JSON.valueToTree(answers));
    Files.writeString(
        Path.of("target", "migration-report.json"), out.toPrettyString(), StandardCharsets.UTF_8);
    out.fields()
        .forEachRemaining(e -> System.out.println("migration: " + e.getKey() + " " + e.getValue()));
  }

  private static void putMs(ObjectNode n, String key, OptionalLong nanos, long from) {
    nanos.ifPresent(v -> n.put(key + "Ms", (v - from) / 1_000_000));
  }

  private static void putMs(ObjectNode n, String key, Optional<Long> nanos, long from) {
    nanos.ifPresent(v -> n.put(key + "Ms", (v - from) / 1_000_000));
  }

  static <T> T await(String what, Await.Probe<T> probe) {
    return Await.until(what, Duration.ofSeconds(120), probe, MigrationIT::context);
  }

  static void await(String what, Await.Check check) {
    await(what, Duration.ofSeconds(120), check);
  }

  static void await(String what, Duration timeout, Await.Check check) {
    Await.until(what, timeout, check, MigrationIT::context);
  }

  static String context() {
    StringBuilder s =
        new StringBuilder("kubelet log:\n")
            .append(DriverNode.tail(cluster.log("kubelet-" + NODE)))
            .append("\ndevice plugin log:\n")
            .append(DriverNode.tail(cluster.log("device-plugin-" + NODE)));
    drivers.forEach(
        (m, d) ->
            s.append("\n")
                .append(m.policy())
                .append(" driver log:\n")
                .append(DriverNode.tail(d.log())));
    sampler.last().ifPresent(l -> s.append("\nlast sample: ").append(l));
    return s.toString();
  }
}
