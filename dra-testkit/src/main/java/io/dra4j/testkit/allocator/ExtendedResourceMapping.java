package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Quantity;
import io.dra4j.kube.DeviceClaim;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.runtime.extendedresource.ExtendedResourceNames;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which extended resource names DeviceClasses back (KEP-5004, DRAExtendedResource), and the claim
 * the scheduler builds for a pod that requests them.
 *
 * <p>Names:
 *
 * <ul>
 *   <li>explicit: {@code spec.extendedResourceName} (e.g. {@code example.com/gpu}); a name that is
 *       not a valid extended resource name is ignored (the API server would have rejected it);
 *   <li>implicit: {@code deviceclass.resource.kubernetes.io/<class>} for every class whose name is
 *       a valid name part of a qualified name (at most 63 characters), since a pod could not
 *       request a longer one;
 *   <li>several classes with the same explicit name: the one created last wins ({@code
 *       metadata.creationTimestamp}); equal times go to the lexicographically first class name. A
 *       missing or unreadable creation time counts as earliest. The scheduler decides that one
 *       DeviceClass event at a time ({@link ExtendedResourceCache}): a class that loses gets no
 *       implicit name, and deleting either class unmaps the name; {@link ClusterAllocator} keeps
 *       such a cache across its calls, {@link #of} is a scheduler that has just started.
 * </ul>
 *
 * <p>The name rules and the order are the runtime's ({@link ExtendedResourceNames}), the same the
 * driver's extended-resource guard applies, so the test kit's scheduler and the guard cannot
 * disagree.
 *
 * <p>Immutable.
 */
public final class ExtendedResourceMapping {

  /** The annotation on the scheduler's claim. */
  public static final String CLAIM_ANNOTATION = ResourceClaim.EXTENDED_RESOURCE_CLAIM_ANNOTATION;

  private final Map<String, DeviceClass> byName;
  private final List<String> notes;

  private ExtendedResourceMapping(Map<String, DeviceClass> byName, List<String> notes) {
    this.byName = byName;
    this.notes = notes;
  }

  /**
   * The mapping these classes define for a scheduler that has just started: it lists them and adds
   * one after the other, in name order.
   */
  public static ExtendedResourceMapping of(Collection<DeviceClass> classes) {
    return of(classes, new ExtendedResourceCache());
  }

  /** The mapping {@code cache} holds once it has seen what changed since its last call. */
  static ExtendedResourceMapping of(Collection<DeviceClass> classes, ExtendedResourceCache cache) {
    List<String> notes = new ArrayList<>();
    Map<String, List<DeviceClass>> explicit = new TreeMap<>();
    for (DeviceClass c : classes) {
      Objects.requireNonNull(c, "device class");
      String className = c.metadata().name();
      if (implicitName(className).isEmpty()) {
        notes.add(
            "device class \""
                + className
                + "\" has no usable implicit extended resource name: the class name is longer"
                + " than 63 characters or not a valid name part");
      }
      Optional<String> name = c.spec().extendedResourceName();
      if (name.isPresent()) {
        String problem = extendedResourceNameProblem(name.get());
        if (!problem.isEmpty()) {
          notes.add(
              "device class \""
                  + className
                  + "\": extendedResourceName \""
                  + name.get()
                  + "\" ignored: "
                  + problem);
        } else {
          explicit.computeIfAbsent(name.get(), k -> new ArrayList<>()).add(c);
        }
      }
    }
    Map<String, DeviceClass> mapping = cache.sync(classes);
    for (Map.Entry<String, List<DeviceClass>> e : explicit.entrySet()) {
      List<DeviceClass> candidates = new ArrayList<>(e.getValue());
      candidates.sort(ExtendedResourceNames.SCHEDULER_ORDER);
      DeviceClass winner = candidates.get(0);
      for (DeviceClass loser : candidates.subList(1, candidates.size())) {
        notes.add(
            "extended resource \""
                + e.getKey()
                + "\": device class \""
                + winner.metadata().name()
                + "\" wins over \""
                + loser.metadata().name()
                + "\" (created later, or same time and name first)");
      }
      DeviceClass holder = mapping.get(e.getKey());
      if (holder == null) {
        notes.add(
            "extended resource \""
                + e.getKey()
                + "\" is not mapped, though device class \""
                + winner.metadata().name()
                + "\" carries it: a class that carried it too was deleted or renamed, which"
                + " removes the name from the scheduler's cache; update \""
                + winner.metadata().name()
                + "\" to map it again");
      } else if (!holder.metadata().name().equals(winner.metadata().name())) {
        notes.add(
            "extended resource \""
                + e.getKey()
                + "\" is mapped to device class \""
                + holder.metadata().name()
                + "\", the last one updated while the name was unmapped, not to \""
                + winner.metadata().name()
                + "\"");
      }
    }
    for (DeviceClass c : classes) {
      implicitName(c.metadata().name())
          .filter(n -> !mapping.containsKey(n))
          .ifPresent(
              n ->
                  notes.add(
                      "device class \""
                          + c.metadata().name()
                          + "\": its implicit name "
                          + n
                          + " is not mapped: the class lost its extendedResourceName to another"
                          + " class when the scheduler saw it"));
    }
    return new ExtendedResourceMapping(
        Collections.unmodifiableMap(new TreeMap<>(mapping)), List.copyOf(notes));
  }

  /** {@code deviceclass.resource.kubernetes.io/<class>} when a pod can request that name. */
  public static Optional<String> implicitName(String className) {
    return ExtendedResourceNames.implicit(className).isEmpty()
        ? Optional.of(ExtendedResourceNames.implicitName(className))
        : Optional.empty();
  }

  /**
   * Why a name cannot be an extended resource name ({@code IsExtendedResourceName}); empty when it
   * can: it needs a domain, must not be in the kubernetes.io domain, must not start with {@code
   * requests.}, and {@code requests.<name>} must be a qualified name.
   */
  static String extendedResourceNameProblem(String name) {
    return String.join("; ", ExtendedResourceNames.explicit(name));
  }

  /** The class backing this extended resource name. */
  public Optional<DeviceClass> deviceClass(String resourceName) {
    return Optional.ofNullable(byName.get(resourceName));
  }

  /** Every usable name and the name of the class backing it, sorted by resource name. */
  public Map<String, String> classNames() {
    Map<String, String> out = new TreeMap<>();
    byName.forEach((k, v) -> out.put(k, v.metadata().name()));
    return Collections.unmodifiableMap(out);
  }

  /** Names that are ignored and duplicate explicit names that lost, for humans. */
  public List<String> notes() {
    return notes;
  }

  /**
   * A name the pod requests (domain-prefixed, non-zero, in any container) that no DeviceClass maps
   * and the node does not make allocatable: the scheduler's NodeResourcesFit finds it {@code
   * Insufficient} ({@code pkg/scheduler/framework/plugins/noderesources/fit.go:765-795} at v1.37.2:
   * a name is left to DRA only when the node's allocatable is 0 and a class maps it, 273-291).
   *
   * @param devicePluginResources resource names the node makes allocatable (non-zero)
   */
  public Optional<String> unservedName(Pod pod, Set<String> devicePluginResources) {
    List<Pod.Container> containers = new ArrayList<>(pod.spec().initContainers());
    containers.addAll(pod.spec().containers());
    TreeSet<String> unserved = new TreeSet<>();
    for (Pod.Container c : containers) {
      for (Map<String, Quantity> amounts :
          List.of(c.resources().requests(), c.resources().limits())) {
        amounts.forEach(
            (name, q) -> {
              if (name.contains("/")
                  && q.signum() > 0
                  && !byName.containsKey(name)
                  && !devicePluginResources.contains(name)) {
                unserved.add(name);
              }
            });
      }
    }
    return unserved.stream().findFirst();
  }

  /** {@link #claimFor(Pod, Set)} when no extended resource comes from a device plugin. */
  public Optional<ExtendedResourceClaim> claimFor(Pod pod) {
    return claimFor(pod, Set.of());
  }

  /**
   * The claim the scheduler would create for the pod, or empty when the pod requests no DRA-backed
   * extended resource.
   *
   * <p>Containers are numbered across init containers first, then regular containers (the index
   * {@code i} of {@code container-<i>-request-<j>}); {@code j} is the index of the resource in the
   * container's sorted resource request names. Requests are taken from {@code resources.requests};
   * a resource set only in {@code limits} counts as requested (the API server defaults requests to
   * limits). Quantities must be whole numbers; zero and fractions are skipped.
   *
   * <p>Regular containers and sidecars (init containers with {@code restartPolicy: Always}) get
   * their own requests. A plain init container first reuses the requests of sidecars and regular
   * containers that come after it, and only asks for what is still missing; of the init containers'
   * own requests only the largest is kept and the others map to it, as init containers run one
   * after another.
   *
   * @param devicePluginResources resource names the node offers through a device plugin (non-zero
   *     allocatable); those are not served by DRA there
   */
  public Optional<ExtendedResourceClaim> claimFor(Pod pod, Set<String> devicePluginResources) {
    List<Pod.Container> containers = new ArrayList<>(pod.spec().initContainers());
    int initCount = containers.size();
    containers.addAll(pod.spec().containers());
    List<Map<String, Quantity>> requests = new ArrayList<>();
    Set<String> names = new TreeSet<>();
    for (Pod.Container c : containers) {
      Map<String, Quantity> effective = new TreeMap<>(c.resources().limits());
      effective.putAll(c.resources().requests());
      requests.add(effective);
      for (Map.Entry<String, Quantity> e : effective.entrySet()) {
        if (byName.containsKey(e.getKey())
            && !devicePluginResources.contains(e.getKey())
            && count(e.getValue()) > 0) {
          names.add(e.getKey());
        }
      }
    }
    if (names.isEmpty()) {
      return Optional.empty();
    }
    List<Integer> longLived = new ArrayList<>();
    List<Integer> shortLived = new ArrayList<>();
    for (int i = 0; i < containers.size(); i++) {
      boolean sidecar = "Always".equals(containers.get(i).unknownFields().get("restartPolicy"));
      (i < initCount && !sidecar ? shortLived : longLived).add(i);
    }

    List<DeviceRequest> deviceRequests = new ArrayList<>();
    List<Pod.ExtendedResourceRequest> mappings = new ArrayList<>();
    for (String resource : names) {
      String className = byName.get(resource).metadata().name();
      DeviceRequest[] longLivedRequests = new DeviceRequest[containers.size()];
      List<Pod.ExtendedResourceRequest> longLivedMappings = new ArrayList<>();
      for (int i : longLived) {
        Optional<DeviceRequest> r =
            requestFor(
                i,
                containers.get(i),
                requests.get(i),
                resource,
                className,
                List.of(),
                longLivedMappings);
        longLivedRequests[i] = r.orElse(null);
      }
      DeviceRequest largestShortLived = null;
      Set<String> shortLivedNames = new LinkedHashSet<>();
      List<Pod.ExtendedResourceRequest> shortLivedMappings = new ArrayList<>();
      for (int i : shortLived) {
        List<DeviceRequest> reusable = new ArrayList<>();
        for (int j = i; j < longLivedRequests.length; j++) {
          reusable.add(longLivedRequests[j]);
        }
        Optional<DeviceRequest> r =
            requestFor(
                i,
                containers.get(i),
                requests.get(i),
                resource,
                className,
                reusable,
                shortLivedMappings);
        if (r.isPresent()) {
          shortLivedNames.add(r.get().name());
          if (largestShortLived == null || countOf(largestShortLived) < countOf(r.get())) {
            largestShortLived = r.get();
          }
        }
      }
      if (largestShortLived != null && shortLivedNames.size() > 1) {
        String keep = largestShortLived.name();
        for (int k = 0; k < shortLivedMappings.size(); k++) {
          Pod.ExtendedResourceRequest m = shortLivedMappings.get(k);
          if (!m.requestName().equals(keep) && shortLivedNames.contains(m.requestName())) {
            shortLivedMappings.set(
                k, Pod.ExtendedResourceRequest.of(m.containerName(), m.resourceName(), keep));
          }
        }
      }
      if (largestShortLived != null) {
        deviceRequests.add(largestShortLived);
      }
      for (DeviceRequest r : longLivedRequests) {
        if (r != null) {
          deviceRequests.add(r);
        }
      }
      mappings.addAll(longLivedMappings);
      mappings.addAll(shortLivedMappings);
    }
    if (deviceRequests.isEmpty()) {
      return Optional.empty();
    }
    deviceRequests.sort(Comparator.comparing(DeviceRequest::name));

    String podName = pod.metadata().name();
    ObjectMeta meta =
        ObjectMeta.generated(pod.metadata().namespace(), podName + "-extended-resources-")
            .withAnnotations(Map.of(CLAIM_ANNOTATION, "true"))
            .withOwnerReferences(
                List.of(
                    new OwnerReference("v1", "Pod", podName, pod.metadata().uid(), true, false)));
    ResourceClaim claim =
        ResourceClaim.of(meta, ResourceClaimSpec.of(DeviceClaim.of(deviceRequests)));
    return Optional.of(new ExtendedResourceClaim(claim, mappings));
  }

  /**
   * The container's own request for the resource, after reusing what {@code reusable} requests (in
   * order) already cover; adds the container's mappings.
   */
  private static Optional<DeviceRequest> requestFor(
      int index,
      Pod.Container container,
      Map<String, Quantity> requests,
      String resource,
      String className,
      List<DeviceRequest> reusable,
      List<Pod.ExtendedResourceRequest> mappings) {
    Quantity q = requests.get(resource);
    long wanted = q == null ? 0 : count(q);
    if (wanted <= 0) {
      return Optional.empty();
    }
    long covered = 0;
    for (DeviceRequest r : reusable) {
      if (r == null) {
        continue;
      }
      covered += countOf(r);
      mappings.add(Pod.ExtendedResourceRequest.of(container.name(), resource, r.name()));
      if (covered >= wanted) {
        return Optional.empty();
      }
    }
    int position = new ArrayList<>(new TreeSet<>(requests.keySet())).indexOf(resource);
    String name = "container-" + index + "-request-" + position;
    DeviceRequest request =
        DeviceRequest.exactly(
            name,
            new ExactDeviceRequest(
                className,
                null,
                "ExactCount",
                wanted - covered,
                Optional.empty(),
                null,
                Optional.empty(),
                null));
    mappings.add(Pod.ExtendedResourceRequest.of(container.name(), resource, name));
    return Optional.of(request);
  }

  private static long countOf(DeviceRequest r) {
    return r.exactly().map(ExactDeviceRequest::count).orElse(0L);
  }

  /** The quantity as a whole number, or 0 when it is not one (or does not fit a long). */
  private static long count(Quantity q) {
    BigDecimal v = q.value().stripTrailingZeros();
    if (v.scale() > 0 || v.signum() <= 0) {
      return 0;
    }
    try {
      return v.longValueExact();
    } catch (ArithmeticException e) {
      return 0;
    }
  }

  @Override
  public String toString() {
    return "ExtendedResourceMapping" + classNames();
  }
}
