package io.dra4j.doctor;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.doctor.DoctorReport.Unreadable;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceTaintRule;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Node;
import io.dra4j.kube.NodeSelectors;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.extendedresource.ExtendedResourceNames;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The snapshot, indexed the way the checks look things up: live pods and the extended resource
 * names they request, the scheduler's name-to-class mapping, and the devices of the newest
 * generation of every pool with the taints they carry (from their slice and from DeviceTaintRules).
 */
final class Cluster {
  final ClusterSnapshot snapshot;
  final Map<String, Node> nodes = new TreeMap<>();
  final List<Pod> livePods = new ArrayList<>();
  final Map<String, DeviceClass> classes = new TreeMap<>();
  final GuardEvaluator.Mapping mapping;
  final List<ResourceSlice> slices = new ArrayList<>();
  final List<ResourceClaim> claims = new ArrayList<>();
  final List<PublishedDevice> devices = new ArrayList<>();
  final Map<String, PublishedDevice> devicesByKey = new LinkedHashMap<>();
  final List<Unreadable> unreadable = new ArrayList<>();

  /**
   * A device of the newest generation of its pool.
   *
   * @param driver the driver
   * @param pool the pool
   * @param device the device
   * @param slice the slice that holds it
   * @param taints its taints with their source ({@code ResourceSlice x}, {@code DeviceTaintRule y})
   */
  record PublishedDevice(
      String driver, String pool, Device device, ResourceSlice slice, List<SourcedTaint> taints) {
    String key() {
      return key(driver, pool, device.name());
    }

    static String key(String driver, String pool, String device) {
      return driver + "/" + pool + "/" + device;
    }

    /** Whether the scheduler may hand it to a claim that tolerates nothing. */
    boolean untainted() {
      return taints.stream()
          .noneMatch(
              t ->
                  t.taint().effect() == TaintEffect.NO_SCHEDULE
                      || t.taint().effect() == TaintEffect.NO_EXECUTE);
    }

    boolean usableOn(Node node) {
      ResourceSliceSpec spec = slice.spec();
      if (spec.perDeviceNodeSelection()) {
        return NodeSelectors.matches(
            node, device.nodeName(), device.allNodes(), device.nodeSelector());
      }
      return NodeSelectors.matches(node, spec.nodeName(), spec.allNodes(), spec.nodeSelector());
    }
  }

  /** A taint and where it comes from. */
  record SourcedTaint(DeviceTaint taint, String source) {
    String describe() {
      return taint.key()
          + (taint.value().isEmpty() ? "" : "=" + taint.value())
          + ":"
          + taint.effect().apiName();
    }
  }

  Cluster(ClusterSnapshot snapshot) {
    this.snapshot = snapshot;
    unreadable.addAll(snapshot.unreadable());
    snapshot.nodes().forEach(n -> nodes.put(n.metadata().name(), n));
    for (Pod p : snapshot.pods()) {
      String phase = String.valueOf(p.status().unknownFields().getOrDefault("phase", ""));
      if (!phase.equals("Succeeded") && !phase.equals("Failed")) {
        livePods.add(p);
      }
    }
    snapshot.classes().forEach(c -> classes.put(c.metadata().name(), c));
    mapping = GuardEvaluator.mapping(snapshot.classes());
    for (JsonNode raw : snapshot.slices()) {
      decode(raw, ResourceSlice.class).ifPresent(slices::add);
    }
    for (JsonNode raw : snapshot.claims()) {
      decode(raw, ResourceClaim.class).ifPresent(claims::add);
    }
    indexDevices();
  }

  private <T> Optional<T> decode(JsonNode raw, Class<T> type) {
    try {
      return Optional.of(KubeJson.mapper().treeToValue(raw, type));
    } catch (IOException | IllegalArgumentException e) {
      String name = raw.path("metadata").path("name").asText("?");
      String ns = raw.path("metadata").path("namespace").asText("");
      unreadable.add(
          new Unreadable(
              type.getSimpleName() + " " + (ns.isEmpty() ? name : ns + "/" + name),
              "not a valid " + type.getSimpleName() + problem(e)));
      return Optional.empty();
    }
  }

  /**
   * Where and why, in the object's own terms: the field path, and the model's own rule (e.g. an
   * unknown taint effect) rather than the JSON library's wording.
   */
  private static String problem(Exception e) {
    StringBuilder at = new StringBuilder();
    if (e instanceof JsonMappingException m) {
      for (JsonMappingException.Reference r : m.getPath()) {
        if (r.getFieldName() != null) {
          at.append(at.length() == 0 ? "" : ".").append(r.getFieldName());
        } else if (r.getIndex() >= 0) {
          at.append('[').append(r.getIndex()).append(']');
        }
      }
    }
    String rule = "";
    for (Throwable t = e; t != null; t = t.getCause()) {
      if ((t instanceof IllegalArgumentException || t instanceof NullPointerException)
          && t.getMessage() != null) {
        rule = t.getMessage();
      }
    }
    return (at.length() == 0 ? "" : " at " + at) + (rule.isEmpty() ? "" : ": " + rule);
  }

  /** Only the newest generation of a pool counts, as for the scheduler. */
  private void indexDevices() {
    Map<String, Long> newest = new TreeMap<>();
    for (ResourceSlice s : slices) {
      newest.merge(poolKey(s), s.spec().pool().generation(), Math::max);
    }
    for (ResourceSlice s : slices) {
      if (s.spec().pool().generation() != newest.get(poolKey(s))) {
        continue;
      }
      for (Device d : s.spec().devices()) {
        List<SourcedTaint> taints = new ArrayList<>();
        for (DeviceTaint t : d.taints()) {
          taints.add(new SourcedTaint(t, "ResourceSlice " + s.metadata().name()));
        }
        for (DeviceTaintRule r : snapshot.taintRules()) {
          if (ruleSelects(r, s.spec().driver(), s.spec().pool().name(), d.name())) {
            taints.add(
                new SourcedTaint(r.spec().taint(), "DeviceTaintRule " + r.metadata().name()));
          }
        }
        PublishedDevice pd =
            new PublishedDevice(
                s.spec().driver(), s.spec().pool().name(), d, s, List.copyOf(taints));
        devices.add(pd);
        devicesByKey.put(pd.key(), pd);
      }
    }
  }

  private static String poolKey(ResourceSlice s) {
    return s.spec().driver() + "/" + s.spec().pool().name();
  }

  /** No selector selects nothing; an empty one selects every device. */
  static boolean ruleSelects(DeviceTaintRule r, String driver, String pool, String device) {
    return r.spec().deviceSelector().map(sel -> sel.selects(driver, pool, device)).orElse(false);
  }

  /** The devices usable on a node. */
  List<PublishedDevice> devicesOn(Node node) {
    return devices.stream().filter(d -> d.usableOn(node)).toList();
  }

  /**
   * Whether node-specific sections cover a node: every node, or with {@code --node} only that one.
   */
  static boolean inScope(Optional<String> scope, String node) {
    return scope.map(node::equals).orElse(true);
  }

  /** The name of the DeviceClass the scheduler maps an extended resource name to, which it must. */
  String className(String name) {
    return mapping.effective().get(name).metadata().name();
  }

  // ---------------------------------------------------------------------------------------------
  // Names

  /**
   * Whether pods can request a name as an extended resource that DRA might back: Kubernetes'
   * extended-resource rule, or the implicit DeviceClass form (the scheduler's {@code
   * IsDRAExtendedResourceName}).
   */
  static boolean isExtendedResourceName(String name) {
    return name.startsWith(DeviceClass.IMPLICIT_EXTENDED_RESOURCE_PREFIX)
        || ExtendedResourceNames.explicit(name).isEmpty();
  }

  static boolean isImplicit(String name) {
    return name.startsWith(DeviceClass.IMPLICIT_EXTENDED_RESOURCE_PREFIX);
  }

  /** The extended resource names a pod requests (requests or limits, any container, non-zero). */
  static TreeSet<String> requestedNames(Pod pod) {
    TreeSet<String> out = new TreeSet<>();
    List<Pod.Container> all = new ArrayList<>(pod.spec().initContainers());
    all.addAll(pod.spec().containers());
    for (Pod.Container c : all) {
      addNames(out, c.resources().requests());
      addNames(out, c.resources().limits());
    }
    return out;
  }

  private static void addNames(TreeSet<String> out, Map<String, Quantity> amounts) {
    amounts.forEach(
        (name, q) -> {
          if (q != null && q.signum() != 0 && isExtendedResourceName(name)) {
            out.add(name);
          }
        });
  }

  static boolean positive(Quantity q) {
    return q != null && q.signum() > 0;
  }

  /** {@code status.nodeInfo.kubeletVersion}, when the node reports one. */
  static Optional<String> kubeletVersion(Node node) {
    Object info = node.status().unknownFields().get("nodeInfo");
    if (info instanceof Map<?, ?> m
        && m.get("kubeletVersion") instanceof String v
        && !v.isEmpty()) {
      return Optional.of(v);
    }
    return Optional.empty();
  }

  static String podKey(Pod p) {
    return p.metadata().namespace() + "/" + p.metadata().name();
  }

  /** The node an allocation is for: the {@code metadata.name In [node]} field selector. */
  static Optional<String> allocationNode(ResourceClaim c) {
    return c.status()
        .allocation()
        .flatMap(a -> a.nodeSelector())
        .flatMap(
            sel ->
                sel.nodeSelectorTerms().stream()
                    .flatMap(t -> t.matchFields().stream())
                    .filter(r -> r.key().equals("metadata.name") && r.operator().equals("In"))
                    .filter(r -> r.values().size() == 1)
                    .map(r -> r.values().get(0))
                    .findFirst());
  }

  static boolean isExtendedResourceClaim(ResourceClaim c) {
    return "true"
        .equals(c.metadata().annotations().get(ResourceClaim.EXTENDED_RESOURCE_CLAIM_ANNOTATION));
  }

  Optional<Pod> pod(String namespace, String name) {
    return snapshot.pods().stream()
        .filter(p -> p.metadata().namespace().equals(namespace))
        .filter(p -> p.metadata().name().equals(name))
        .findFirst();
  }

  Optional<ResourceClaim> claim(String namespace, String name) {
    Objects.requireNonNull(name, "name");
    return claims.stream()
        .filter(c -> c.metadata().namespace().equals(namespace))
        .filter(c -> c.metadata().name().equals(name))
        .findFirst();
  }
}
