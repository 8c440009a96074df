package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.DRIVER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's DRA manager does what the real kubelet's does in the e2e tests {@code
 * RealKubelet*IT}: checks before any call, one prepare per claim however many pods share it, the
 * unprepare with the last pod, CDI ids per container, a restart that prepares running pods again.
 */
class DraManagerTest {
  private static final ObjectMapper JSON = KubeJson.mapper();

  @TempDir Path tmp;
  Harness h;
  FakeApiServer api;
  HttpKubeClient client;
  DraManager manager;
  final ScriptedNodeService service = new ScriptedNodeService();

  @BeforeEach
  void setUp() throws Exception {
    h = new Harness(tmp);
    api = FakeApiServer.start();
    client = api.newClient();
    h.register(h.server(service));
    manager = h.kubelet.draManager(client);
  }

  @AfterEach
  void tearDown() throws Exception {
    h.close();
    client.close();
    api.close();
  }

  @Test
  void aSharedClaimIsPreparedOnceAndUnpreparedWithItsLastPod() {
    Pod first = pod("first", "claimName: shared", List.of());
    Pod second = pod("second", "claimName: shared", List.of());
    ClaimRef shared = claim("shared", null, first, second);

    DraManager.PodResources a = manager.prepare(first);
    DraManager.PodResources b = manager.prepare(second);
    assertThat(a.cdiDevices("main")).containsExactly("example.com/gpu=shared");
    assertThat(b.cdiDevices()).isEqualTo(a.cdiDevices());
    assertThat(service.prepareCalls).containsExactly(List.of(shared));

    manager.unprepare(first);
    assertThat(service.unprepareCalls).isEmpty();
    manager.unprepare(second);
    manager.unprepare(second);
    assertThat(service.unprepareCalls).containsExactly(List.of(shared));
    assertThat(manager.claims()).isEmpty();
  }

  @Test
  void aPodNotInReservedForIsRefusedBeforeAnyCall() {
    Pod owner = pod("owner", "claimName: taken", List.of());
    Pod intruder = pod("intruder", "claimName: taken", List.of());
    ClaimRef taken = claim("taken", null, owner);

    assertThatThrownBy(() -> manager.prepare(intruder))
        .hasMessage(
            "prepare dynamic resources: pod intruder (%s) is not allowed to use ResourceClaim"
                + " taken (%s)",
            intruder.metadata().uid(), taken.uid());
    assertThat(service.prepareCalls).isEmpty();
    assertThat(manager.claims()).isEmpty();
    manager.unprepare(intruder);
    assertThat(service.unprepareCalls).isEmpty();
  }

  @Test
  void aTemplateClaimMustBeControlledByItsPod() {
    Pod pod = pod("templated", "templateName: gpu", List.of("gpu-claim"));
    claim("gpu-claim", null, pod);

    assertThatThrownBy(() -> manager.prepare(pod))
        .hasMessage(
            "prepare dynamic resources: ResourceClaim ns/gpu-claim was not created for Pod"
                + " ns/templated (Pod is not owner)");

    Pod owned = pod("owned", "templateName: gpu", List.of("owned-claim"));
    claim("owned-claim", owned, owned);
    assertThat(manager.prepare(owned).cdiDevices("main"))
        .containsExactly("example.com/gpu=owned-claim");
  }

  @Test
  void unallocatedClaimsUnknownDriversAndUncreatedClaimsAreRefused() {
    Pod pod = pod("p", "claimName: pending", List.of());
    api.put(ResourceClaim.TYPE, read(claimJson("pending", null, "[]", false)));
    assertThatThrownBy(() -> manager.prepare(pod)).hasMessageContaining("is not allowed to use");

    Pod waiting = pod("waiting", "templateName: gpu", null);
    assertThatThrownBy(() -> manager.prepare(waiting))
        .hasMessage("prepare dynamic resources: pod \"ns/waiting\": ResourceClaim not created yet");

    Pod other = pod("other", "claimName: elsewhere", List.of());
    api.put(
        ResourceClaim.TYPE,
        read(
            claimJson("elsewhere", null, reserved(other), true)
                .replace("\"driver\":\"" + DRIVER + "\"", "\"driver\":\"nic.example.com\"")));
    assertThatThrownBy(() -> manager.prepare(other))
        .hasMessage("prepare dynamic resources: DRA driver nic.example.com is not registered");
    assertThat(service.prepareCalls).isEmpty();
  }

  /**
   * The kubelet's rule (claiminfo.go:86-140 computeDriverStates, state.go:59-62 Skips, v1.37.2):
   * per claim and driver, an operation is skipped only when every device of that driver skips it or
   * skips everything ({@code "*"}, types.go:266); unknown values are ignored.
   */
  @Test
  void aDriverIsNotCalledForAnOperationEveryDeviceOfTheClaimSkips() {
    String all = "[\"*\"]";
    String both = "[\"NodePrepareResources\",\"NodeUnprepareResources\"]";
    String unprepare = "[\"NodeUnprepareResources\",\"NodeDoSomethingNew\"]";
    Map<String, String[]> claims = new LinkedHashMap<>();
    claims.put("wildcard", new String[] {all, all});
    claims.put("both", new String[] {both, all});
    claims.put("mixed", new String[] {all, "[]"});
    claims.put("unprepare-only", new String[] {unprepare, all});
    Map<String, ClaimRef> refs = new LinkedHashMap<>();
    List<Pod> pods = new ArrayList<>();
    claims.forEach(
        (name, skips) -> {
          Pod p = pod(name, "claimName: " + name, List.of());
          pods.add(p);
          refs.put(name, skipping(name, p, skips));
        });

    pods.forEach(manager::prepare);
    assertThat(service.prepareCalls)
        .containsExactly(List.of(refs.get("mixed")), List.of(refs.get("unprepare-only")));
    pods.forEach(manager::unprepare);
    assertThat(service.unprepareCalls).containsExactly(List.of(refs.get("mixed")));
  }

  /** An allocated claim for {@code user}: one device of the driver per entry of {@code skips}. */
  private ClaimRef skipping(String name, Pod user, String... skips) {
    List<String> results = new ArrayList<>();
    for (int i = 0; i < skips.length; i++) {
      results.add(
          "{\"request\":\"gpu\",\"driver\":\"%s\",\"pool\":\"node-1\",\"device\":\"gpu-%d\",\"skipNodeOperations\":%s}"
              .formatted(DRIVER, i, skips[i]));
    }
    String json =
        claimJson(name, null, reserved(user), true)
            .replaceFirst(
                "\"results\":\\[.*?\\]\\}", "\"results\":[" + String.join(",", results) + "]}");
    ResourceClaim stored = api.put(ResourceClaim.TYPE, read(json));
    return ClaimRef.of("ns", name, stored.metadata().uid());
  }

  @Test
  void theExtendedResourceClaimServesTheContainersItWasMappedTo() {
    service.prepare =
        (claims, call) -> {
          Map<String, ClaimPrepareResult> out = new LinkedHashMap<>();
          for (ClaimRef c : claims) {
            out.put(
                c.uid(),
                ClaimPrepareResult.ok(
                    List.of(
                        new CheckpointDevice(
                            "container-1-request-0",
                            "node-1",
                            "gpu-0",
                            Optional.empty(),
                            false,
                            List.of("example.com/gpu=gpu-0"),
                            Map.of(),
                            Optional.empty()))));
          }
          return out;
        };
    Pod pod =
        api.put(
            Pod.TYPE,
            read(
                """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"train","namespace":"ns"},
                 "spec":{"nodeName":"node-1","containers":[
                   {"name":"sidecar","image":"x"},
                   {"name":"main","image":"x","resources":{"requests":{"example.com/gpu":"1"}}}]},
                 "status":{"extendedResourceClaimStatus":{"resourceClaimName":"train-er",
                   "requestMappings":[{"containerName":"main","resourceName":"example.com/gpu",
                     "requestName":"container-1-request-0"}]}}}
                """,
                Pod.class));
    claim("train-er", null, pod);

    DraManager.PodResources r = manager.prepare(pod);
    assertThat(r.cdiDevices("main")).containsExactly("example.com/gpu=gpu-0");
    assertThat(r.cdiDevices("sidecar")).isEmpty();
  }

  @Test
  void aRestartedKubeletPreparesRunningPodsAgainAndReconcilesPodsThatWent() {
    Pod pod = pod("survivor", "claimName: kept", List.of());
    ClaimRef kept = claim("kept", null, pod);
    manager.prepare(pod);

    manager.restart();
    manager.prepare(pod);
    assertThat(service.prepareCalls).containsExactly(List.of(kept), List.of(kept));

    manager.restart();
    manager.reconcile(List.of());
    assertThat(service.unprepareCalls).containsExactly(List.of(kept));
    assertThat(manager.claims()).isEmpty();
  }

  @Test
  void aClaimReservedForThePodGroupIsSharedByItsPodsWithTheGateOn() {
    DraManager gated = h.kubelet.draManager(client, true);
    Pod first = inGroup(pod("worker-0", "claimName: group", List.of()), "trainers");
    Pod second = inGroup(pod("worker-1", "claimName: group", List.of()), "trainers");
    Pod stranger = inGroup(pod("other", "claimName: group", List.of()), "evaluators");
    ClaimRef group = groupClaim("group", null, "trainers");

    assertThat(gated.prepare(first).cdiDevices("main")).containsExactly("example.com/gpu=group");
    assertThat(gated.prepare(second).cdiDevices("main")).containsExactly("example.com/gpu=group");
    assertThat(service.prepareCalls).containsExactly(List.of(group));
    // Another group's pod is refused: the entry names the group, not any group.
    assertThatThrownBy(() -> gated.prepare(stranger))
        .hasMessage(
            "prepare dynamic resources: pod other (%s) is not allowed to use ResourceClaim group"
                + " (%s)",
            stranger.metadata().uid(), group.uid());

    gated.unprepare(first);
    assertThat(service.unprepareCalls).isEmpty();
    gated.unprepare(second);
    assertThat(service.unprepareCalls).containsExactly(List.of(group));
    assertThat(gated.claims()).isEmpty();
  }

  @Test
  void withTheGateOffTheKubeletRefusesAClaimReservedOnlyForThePodGroup() {
    Pod pod = inGroup(pod("worker", "claimName: group", List.of()), "trainers");
    ClaimRef group = groupClaim("group", null, "trainers");
    assertThatThrownBy(() -> manager.prepare(pod))
        .hasMessage(
            "prepare dynamic resources: pod worker (%s) is not allowed to use ResourceClaim group"
                + " (%s)",
            pod.metadata().uid(), group.uid());
    assertThat(service.prepareCalls).isEmpty();
  }

  @Test
  void aTemplateClaimOfThePodGroupMayBeControlledByTheGroup() {
    DraManager gated = h.kubelet.draManager(client, true);
    Pod pod = inGroup(pod("worker", "templateName: gpu", List.of("trainers-gpu")), "trainers");
    groupClaim("trainers-gpu", "trainers", "trainers");
    assertThat(gated.prepare(pod).cdiDevices("main"))
        .containsExactly("example.com/gpu=trainers-gpu");

    Pod other = inGroup(pod("other", "templateName: gpu", List.of("evaluators-gpu")), "other");
    groupClaim("evaluators-gpu", "evaluators", "other");
    assertThatThrownBy(() -> gated.prepare(other))
        .hasMessage(
            "prepare dynamic resources: ResourceClaim ns/evaluators-gpu was not created for Pod"
                + " ns/other (neither Pod nor PodGroup other is the owner)");
    // Gate off: only the pod may own it.
    assertThatThrownBy(() -> manager.prepare(pod))
        .hasMessage(
            "prepare dynamic resources: ResourceClaim ns/trainers-gpu was not created for Pod"
                + " ns/worker (Pod is not owner)");
  }

  /** The pod as a member of PodGroup {@code group} (the manager reads the pod it is given). */
  private static Pod inGroup(Pod pod, String group) {
    return pod.withSpec(pod.spec().withSchedulingGroup(Pod.SchedulingGroup.podGroup(group)));
  }

  /**
   * An allocated claim reserved for PodGroup {@code group} (with a UID of its own that no pod
   * knows), controlled by PodGroup {@code owner} if not null.
   */
  private ClaimRef groupClaim(String name, String owner, String group) {
    String json =
        claimJson(
            name,
            null,
            "[{\"apiGroup\":\"scheduling.k8s.io\",\"resource\":\"podgroups\",\"name\":\"%s\",\"uid\":\"%s\"}]"
                .formatted(group, java.util.UUID.randomUUID()),
            true);
    if (owner != null) {
      json =
          json.replace(
              "\"namespace\":\"ns\"}",
              ("\"namespace\":\"ns\",\"ownerReferences\":[{\"apiVersion\":\"scheduling.k8s.io/v1beta1\","
                      + "\"kind\":\"PodGroup\",\"name\":\"%s\",\"uid\":\"%s\",\"controller\":true}]}")
                  .formatted(owner, java.util.UUID.randomUUID()));
    }
    ResourceClaim stored = api.put(ResourceClaim.TYPE, read(json));
    return ClaimRef.of("ns", name, stored.metadata().uid());
  }

  // ---- objects ----

  /**
   * A pod bound to node-1 whose container {@code main} uses pod claim {@code gpu}; {@code source}
   * is {@code claimName: X} or {@code templateName: X}; {@code generated} the names in its
   * resourceClaimStatuses (null: none yet).
   */
  private Pod pod(String name, String source, List<String> generated) {
    String[] s = source.split(": ");
    String claimField =
        s[0].equals("claimName") ? "resourceClaimName" : "resourceClaimTemplateName";
    String status =
        generated == null || generated.isEmpty()
            ? "{}"
            : "{\"resourceClaimStatuses\":[{\"name\":\"gpu\",\"resourceClaimName\":\""
                + generated.get(0)
                + "\"}]}";
    return api.put(
        Pod.TYPE,
        read(
            """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"ns"},
             "spec":{"nodeName":"node-1","resourceClaims":[{"name":"gpu","%s":"%s"}],
               "containers":[{"name":"main","image":"x","resources":{"claims":[{"name":"gpu"}]}}]},
             "status":%s}
            """
                .formatted(name, claimField, s[1], status),
            Pod.class));
  }

  /** An allocated claim reserved for {@code users}, controlled by {@code owner} if not null. */
  private ClaimRef claim(String name, Pod owner, Pod... users) {
    ResourceClaim stored =
        api.put(ResourceClaim.TYPE, read(claimJson(name, owner, reserved(users), true)));
    return ClaimRef.of("ns", name, stored.metadata().uid());
  }

  private static String reserved(Pod... users) {
    List<String> refs = new ArrayList<>();
    for (Pod p : users) {
      refs.add(
          "{\"resource\":\"pods\",\"name\":\"%s\",\"uid\":\"%s\"}"
              .formatted(p.metadata().name(), p.metadata().uid()));
    }
    return "[" + String.join(",", refs) + "]";
  }

  private static String claimJson(String name, Pod owner, String reservedFor, boolean allocated) {
    String owners =
        owner == null
            ? ""
            : ",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"%s\",\"uid\":\"%s\",\"controller\":true}]"
                .formatted(owner.metadata().name(), owner.metadata().uid());
    String allocation =
        allocated
            ? "\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\",\"driver\":\""
                + DRIVER
                + "\",\"pool\":\"node-1\",\"device\":\"gpu-0\"}]}},"
            : "";
    return """
        {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
         "metadata":{"name":"%s","namespace":"ns"%s},
         "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}},
         "status":{%s"reservedFor":%s}}
        """
        .formatted(name, owners, allocation, reservedFor);
  }

  private static ResourceClaim read(String json) {
    return read(json, ResourceClaim.class);
  }

  private static <T> T read(String json, Class<T> type) {
    try {
      return JSON.readValue(json, type);
    } catch (Exception e) {
      throw new IllegalArgumentException(json, e);
    }
  }
}
