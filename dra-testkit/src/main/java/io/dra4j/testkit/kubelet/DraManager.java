package io.dra4j.testkit.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the kubelet's DRA manager ({@code pkg/kubelet/cm/dra}, Kubernetes 1.37) does with a pod's
 * claims, on top of a {@link KubeletSimulator}'s registered plugins: {@link #prepare} before the
 * pod's containers start, {@link #unprepare} after they stopped. The e2e tests {@code
 * RealKubelet*IT} run the same stories against the real manager.
 *
 * <p>{@link #prepare}: the pod's claims are its {@code spec.resourceClaims} (a claim from a
 * template by its name in {@code status.resourceClaimStatuses}) and the scheduler's claim for
 * DRA-backed extended resources ({@code status.extendedResourceClaimStatus}). Before anything is
 * called, each claim is read from the API server and refused, with the kubelet's words, when a
 * template's claim is not controlled by the pod, the pod is not in {@code status.reservedFor}, the
 * claim is not allocated, or a driver of its allocation is not registered. With the gate {@code
 * DRAWorkloadResourceClaims} on ({@link KubeletSimulator#draManager(KubeClient, boolean)}), a claim
 * reserved for the pod's PodGroup ({@code spec.schedulingGroup.podGroupName}, matched by name as
 * the pod does not know the group's UID) is the pod's too, and a template's claim may be controlled
 * by that PodGroup instead of the pod; such a claim is shared by the group's pods like any shared
 * claim: prepared once, unprepared with the last of them. Then one NodePrepareResources per driver
 * carries the pod's claims this node has not prepared yet: a claim shared by several pods is
 * prepared once. The result is what the kubelet hands the container runtime, the CDI device ids per
 * container ({@code GetResources}).
 *
 * <p>{@link #unprepare}: a claim is unprepared (one NodeUnprepareResources per driver) only when
 * the last pod using it goes; until then the pod is just dropped from it.
 *
 * <p>{@link #restart}: the kubelet restarting on its checkpoint keeps every claim with its pods and
 * devices but not the fact that it is prepared, so the next {@link #prepare} of a running pod calls
 * NodePrepareResources again (drivers must answer it idempotently), and {@link #reconcile}
 * unprepares the claims of pods that went while it was down, as its reconcile loop does.
 *
 * <p>Failures are {@link IllegalStateException}s whose message is the kubelet's ({@code prepare
 * dynamic resources: pod p (uid) is not allowed to use ResourceClaim c (uid)}). A refusal changes
 * nothing; once the checks passed, the claim is recorded for the pod before NodePrepareResources,
 * so a later {@link #unprepare} calls NodeUnprepareResources even if that prepare failed (the
 * driver may have done part of it). Claims whose devices all skip a node operation ({@code
 * skipNodeOperations}, 1.37 alpha) are not sent to that driver for it. Thread-safe: calls are
 * serialized, as the kubelet serializes them per claim.
 */
public final class DraManager {
  /** Skips every node operation (resource/v1 types.go:266, SkipNodeOperationAll). */
  private static final String SKIP_ALL = "*";

  private static final String PREPARE = "NodePrepareResources";
  private static final String UNPREPARE = "NodeUnprepareResources";

  private final KubeletSimulator kubelet;
  private final KubeClient client;
  private final Map<String, Entry> claims = new LinkedHashMap<>(); // by namespace/name
  private final boolean workloadResourceClaims;

  /** The CDI device ids the kubelet hands the runtime, per container (init containers too). */
  public record PodResources(Map<String, List<String>> cdiDevices) {
    public PodResources {
      cdiDevices = Map.copyOf(cdiDevices);
    }

    /** The CDI device ids of one container; empty when it uses no device. */
    public List<String> cdiDevices(String container) {
      return cdiDevices.getOrDefault(container, List.of());
    }
  }

  /** One claim as the kubelet's claim info cache (and checkpoint) holds it. */
  private static final class Entry {
    final ClaimRef ref;
    final Set<String> pods = new LinkedHashSet<>();
    final Map<String, Set<String>> skips = new LinkedHashMap<>(); // per driver
    final Map<String, List<DeviceResult>> devices = new LinkedHashMap<>(); // per driver
    boolean prepared;

    Entry(ClaimRef ref, Map<String, Set<String>> skips) {
      this.ref = ref;
      this.skips.putAll(skips);
    }

    boolean skips(String driver, String operation) {
      Set<String> s = skips.getOrDefault(driver, Set.of());
      return s.contains(SKIP_ALL) || s.contains(operation);
    }
  }

  DraManager(KubeletSimulator kubelet, KubeClient client, boolean workloadResourceClaims) {
    this.kubelet = kubelet;
    this.client = client;
    this.workloadResourceClaims = workloadResourceClaims;
  }

  /**
   * Prepares the pod's claims and returns the CDI device ids per container.
   *
   * @throws IllegalStateException with the kubelet's message when it would refuse or a call fails
   */
  public synchronized PodResources prepare(Pod pod) {
    try {
      return doPrepare(pod);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("prepare dynamic resources: " + e.getMessage(), e);
    }
  }

  /**
   * Unprepares the pod's claims that no other pod uses. Idempotent.
   *
   * @throws IllegalStateException with the kubelet's message when a call fails
   */
  public synchronized void unprepare(Pod pod) {
    List<String> names = namesForPod(pod.metadata().uid());
    if (names.isEmpty()) {
      // Not in the cache (a restart lost it): what the pod references.
      for (PodClaim c : resolve(pod)) {
        names.add(c.claimName);
      }
    }
    try {
      unprepare(pod.metadata().uid(), pod.metadata().namespace(), names);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("unprepare dynamic resources: " + e.getMessage(), e);
    }
  }

  /** The kubelet restarting on its checkpoint: claims and their pods stay, none is prepared. */
  public synchronized void restart() {
    claims.values().forEach(e -> e.prepared = false);
  }

  /**
   * The kubelet's reconcile loop: unprepares the claims of every pod not in {@code activePodUids}.
   */
  public synchronized void reconcile(Collection<String> activePodUids) {
    Map<String, List<String>> inactive = new LinkedHashMap<>();
    Map<String, String> namespaces = new LinkedHashMap<>();
    for (Entry e : claims.values()) {
      for (String pod : e.pods) {
        if (!activePodUids.contains(pod)) {
          inactive.computeIfAbsent(pod, p -> new ArrayList<>()).add(e.ref.name());
          namespaces.put(pod, e.ref.namespace());
        }
      }
    }
    inactive.forEach((pod, names) -> unprepare(pod, namespaces.get(pod), names));
  }

  /** The claims prepared (or to be unprepared) on this node, as {@code namespace/name}. */
  public synchronized Set<String> claims() {
    return Set.copyOf(claims.keySet());
  }

  // ---- prepare ----

  private record PodClaim(String podClaimName, String claimName, boolean mustCheckOwner) {}

  private PodResources doPrepare(Pod pod) {
    String podUid = pod.metadata().uid();
    String ns = pod.metadata().namespace();
    // Validation first, changing nothing: a pod that fails here can be deleted without an
    // unprepare that could never succeed.
    Map<String, ResourceClaim> fetched = new LinkedHashMap<>();
    for (PodClaim c : resolve(pod)) {
      ResourceClaim claim;
      try {
        claim = client.get(ResourceClaim.TYPE, ns, c.claimName);
      } catch (KubeException e) {
        throw new IllegalStateException(
            "fetch ResourceClaim " + c.claimName + ": " + e.getMessage(), e);
      }
      if (c.mustCheckOwner && !controlledBy(claim, podUid)) {
        Optional<String> group =
            workloadResourceClaims ? pod.spec().podGroupName() : Optional.empty();
        if (group.isEmpty()) {
          throw new IllegalStateException(
              "ResourceClaim %s/%s was not created for Pod %s/%s (Pod is not owner)"
                  .formatted(ns, c.claimName, ns, pod.metadata().name()));
        }
        if (!controlledByPodGroup(claim, group.get())) {
          throw new IllegalStateException(
              "ResourceClaim %s/%s was not created for Pod %s/%s (neither Pod nor PodGroup %s is the owner)"
                  .formatted(ns, c.claimName, ns, pod.metadata().name(), group.get()));
        }
      }
      if (!reservedFor(claim, pod)) {
        throw new IllegalStateException(
            "pod %s (%s) is not allowed to use ResourceClaim %s (%s)"
                .formatted(pod.metadata().name(), podUid, c.claimName, claim.metadata().uid()));
      }
      if (claim.status().allocation().isEmpty()) {
        throw new IllegalStateException("ResourceClaim " + c.claimName + ": not allocated");
      }
      for (Map.Entry<String, Set<String>> d : skips(claim).entrySet()) {
        boolean skipped = d.getValue().contains(SKIP_ALL) || d.getValue().contains(PREPARE);
        if (!skipped && kubelet.plugin(d.getKey()).isEmpty()) {
          throw new IllegalStateException("DRA driver " + d.getKey() + " is not registered");
        }
      }
      fetched.put(c.claimName, claim);
    }

    Map<String, List<ClaimRef>> batches = new LinkedHashMap<>();
    for (ResourceClaim claim : fetched.values()) {
      String key = ns + "/" + claim.metadata().name();
      Entry e = claims.get(key);
      if (e != null && !e.ref.uid().equals(claim.metadata().uid())) {
        throw new IllegalStateException(
            "old ResourceClaim with same name %s and different UID %s still exists (previous pod"
                    .formatted(claim.metadata().name(), e.ref.uid())
                + " force-deleted?!)");
      }
      if (e == null) {
        e =
            new Entry(
                ClaimRef.of(ns, claim.metadata().name(), claim.metadata().uid()), skips(claim));
        claims.put(key, e);
      }
      e.pods.add(podUid);
      if (e.prepared) {
        continue;
      }
      for (String driver : e.skips.keySet()) {
        if (!e.skips(driver, PREPARE)) {
          batches.computeIfAbsent(driver, d -> new ArrayList<>()).add(e.ref);
        }
      }
    }

    batches.forEach(
        (driver, refs) -> {
          Map<String, ClaimResult> results = call(driver, PREPARE, p -> p.prepare(refs));
          for (ClaimRef ref : refs) {
            ClaimResult r = results.get(ref.uid());
            if (!r.isOk()) {
              throw new IllegalStateException(
                  "NodePrepareResources failed for ResourceClaim "
                      + ref.name()
                      + ": "
                      + r.error().get());
            }
            claims.get(ns + "/" + ref.name()).devices.put(driver, r.devices());
          }
        });
    for (ResourceClaim claim : fetched.values()) {
      claims.get(ns + "/" + claim.metadata().name()).prepared = true;
    }
    return resources(pod);
  }

  /** The pod's claim names, as {@code resourceclaim.Name} resolves them. */
  private static List<PodClaim> resolve(Pod pod) {
    List<PodClaim> out = new ArrayList<>();
    String where = "pod \"" + pod.metadata().namespace() + "/" + pod.metadata().name() + "\"";
    for (Pod.PodResourceClaim pc : pod.spec().resourceClaims()) {
      if (pc.resourceClaimName().isPresent()) {
        out.add(new PodClaim(pc.name(), pc.resourceClaimName().get(), false));
      } else if (pc.resourceClaimTemplateName().isPresent()) {
        Optional<Pod.ClaimStatus> status =
            pod.status().resourceClaimStatuses().stream()
                .filter(s -> s.name().equals(pc.name()))
                .findFirst();
        if (status.isEmpty()) {
          throw new IllegalStateException(where + ": ResourceClaim not created yet");
        }
        // No name: the claim was not needed and intentionally not created.
        status.get().resourceClaimName().ifPresent(n -> out.add(new PodClaim(pc.name(), n, true)));
      } else {
        throw new IllegalStateException(
            where
                + ", spec.resourceClaim \""
                + pc.name()
                + "\": none of the supported fields are set");
      }
    }
    // The scheduler's claim is named like a plain claim reference: no owner check here.
    pod.status()
        .extendedResourceClaimStatus()
        .filter(s -> !s.resourceClaimName().isEmpty())
        .ifPresent(s -> out.add(new PodClaim("", s.resourceClaimName(), false)));
    return out;
  }

  /**
   * The pod is in {@code status.reservedFor}, or (gate on) its PodGroup is: a pod does not know its
   * group's UID, so the group's entry is matched by API group, resource and name, as the kubelet
   * does.
   */
  private boolean reservedFor(ResourceClaim claim, Pod pod) {
    Optional<String> group = pod.spec().podGroupName();
    for (ResourceClaimConsumerReference r : claim.status().reservedFor()) {
      if (r.uid().equals(pod.metadata().uid())) {
        return true;
      }
      if (workloadResourceClaims
          && r.refersToPodGroup()
          && group.isPresent()
          && r.name().equals(group.get())) {
        return true;
      }
    }
    return false;
  }

  /** Controlled by the PodGroup of that name (any version of scheduling.k8s.io). */
  private static boolean controlledByPodGroup(ResourceClaim claim, String group) {
    return claim.metadata().ownerReferences().stream()
        .filter(OwnerReference::controller)
        .anyMatch(
            o ->
                o.kind().equals("PodGroup")
                    && o.name().equals(group)
                    && o.apiVersion()
                        .startsWith(ResourceClaimConsumerReference.SCHEDULING_GROUP + "/"));
  }

  private static boolean controlledBy(ResourceClaim claim, String podUid) {
    return claim.metadata().ownerReferences().stream()
        .filter(OwnerReference::controller)
        .anyMatch(o -> o.uid().equals(podUid));
  }

  /**
   * Per driver of the allocation, the node operations all its devices skip, each itself or by
   * {@code "*"} (empty: none), as the kubelet's {@code computeDriverStates} (pkg/kubelet/cm/dra/
   * claiminfo.go:86-140, v1.37.2).
   */
  private static Map<String, Set<String>> skips(ResourceClaim claim) {
    Map<String, List<DeviceRequestAllocationResult>> byDriver = new LinkedHashMap<>();
    claim
        .status()
        .allocation()
        .ifPresent(
            a ->
                a.devices()
                    .results()
                    .forEach(
                        r -> byDriver.computeIfAbsent(r.driver(), d -> new ArrayList<>()).add(r)));
    Map<String, Set<String>> out = new LinkedHashMap<>();
    byDriver.forEach(
        (driver, results) -> {
          Set<String> common = null;
          for (DeviceRequestAllocationResult r : results) {
            Set<String> s =
                r.skipNodeOperations().contains(SKIP_ALL)
                    ? Set.of(SKIP_ALL, PREPARE, UNPREPARE)
                    : Set.copyOf(r.skipNodeOperations());
            if (common == null) {
              common = new HashSet<>(s);
            } else {
              common.retainAll(s);
            }
          }
          out.put(driver, common == null ? Set.of() : Set.copyOf(common));
        });
    return out;
  }

  /**
   * {@code GetResources} for every container: the CDI ids of the devices of the claims (and
   * requests) it references, and of the extended-resource requests the scheduler mapped to it.
   */
  private PodResources resources(Pod pod) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    List<Pod.Container> all = new ArrayList<>(pod.spec().initContainers());
    all.addAll(pod.spec().containers());
    Map<String, String> claimOfPodClaim = new LinkedHashMap<>();
    for (PodClaim c : resolve(pod)) {
      claimOfPodClaim.put(c.podClaimName, c.claimName);
    }
    for (Pod.Container container : all) {
      Map<String, List<String>> requests = new LinkedHashMap<>(); // claim name -> request names
      for (Pod.ContainerClaim cc : container.resources().claims()) {
        String claim = claimOfPodClaim.get(cc.name());
        if (claim != null) {
          requests.computeIfAbsent(claim, k -> new ArrayList<>()).add(cc.request());
        }
      }
      pod.status()
          .extendedResourceClaimStatus()
          .ifPresent(
              s ->
                  s.requestMappings().stream()
                      .filter(m -> m.containerName().equals(container.name()))
                      .filter(m -> nonZero(container.resources().requests().get(m.resourceName())))
                      .forEach(
                          m ->
                              requests
                                  .computeIfAbsent(s.resourceClaimName(), k -> new ArrayList<>())
                                  .add(m.requestName())));
      List<String> ids = new ArrayList<>();
      requests.forEach(
          (claim, names) -> {
            Entry e = claims.get(pod.metadata().namespace() + "/" + claim);
            if (e == null) {
              throw new IllegalStateException(
                  "internal error: unable to get claim info for ResourceClaim "
                      + claim
                      + " in namespace "
                      + pod.metadata().namespace());
            }
            for (String request : names) {
              for (List<DeviceResult> devices : e.devices.values()) {
                for (DeviceResult d : devices) {
                  if (request.isEmpty()
                      || d.requestNames().isEmpty()
                      || d.requestNames().contains(request)) {
                    ids.addAll(d.cdiDeviceIds());
                  }
                }
              }
            }
          });
      out.put(container.name(), List.copyOf(ids));
    }
    return new PodResources(out);
  }

  private static boolean nonZero(Quantity q) {
    return q != null && q.signum() != 0;
  }

  // ---- unprepare ----

  private List<String> namesForPod(String podUid) {
    List<String> out = new ArrayList<>();
    for (Entry e : claims.values()) {
      if (e.pods.contains(podUid)) {
        out.add(e.ref.name());
      }
    }
    return out;
  }

  private void unprepare(String podUid, String ns, List<String> names) {
    Map<String, List<ClaimRef>> batches = new LinkedHashMap<>();
    List<String> toDelete = new ArrayList<>();
    for (String name : names) {
      Entry e = claims.get(ns + "/" + name);
      // Not prepared here, or not for this pod (its prepare never got that far): nothing to do.
      if (e == null || !e.pods.contains(podUid)) {
        continue;
      }
      if (e.pods.size() > 1) {
        e.pods.remove(podUid);
        continue;
      }
      toDelete.add(ns + "/" + name);
      for (String driver : e.skips.keySet()) {
        if (!e.skips(driver, UNPREPARE)) {
          batches.computeIfAbsent(driver, d -> new ArrayList<>()).add(e.ref);
        }
      }
    }
    batches.forEach(
        (driver, refs) -> {
          Map<String, Optional<String>> results = call(driver, UNPREPARE, p -> p.unprepare(refs));
          for (ClaimRef ref : refs) {
            Optional<String> error = results.get(ref.uid());
            if (error.isPresent()) {
              throw new IllegalStateException(
                  "NodeUnprepareResources failed for ResourceClaim "
                      + ref.name()
                      + ": "
                      + error.get());
            }
          }
        });
    toDelete.forEach(claims::remove);
  }

  private interface Call<T> {
    T on(PluginInstance plugin);
  }

  /** One call on the driver's plugin the kubelet would pick, failing as the kubelet reports it. */
  private <T> T call(String driver, String method, Call<T> call) {
    PluginInstance plugin =
        kubelet
            .plugin(driver)
            .orElseThrow(
                () -> new IllegalStateException("DRA driver " + driver + " is not registered"));
    try {
      return call.on(plugin);
    } catch (StatusRuntimeException e) {
      throw new IllegalStateException(method + ": rpc error: " + e.getStatus(), e);
    }
  }
}
