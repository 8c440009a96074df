package io.dra4j.testkit.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** One resource the fake server serves: where it lives and which field selectors it supports. */
final class ResourceDef {
  final String group;
  final String version;
  final String plural;
  final String kind;
  final boolean namespaced;
  final boolean hasStatus;
  final Set<String> fieldLabels;
  final List<String> shortNames;

  ResourceDef(
      String group,
      String version,
      String plural,
      String kind,
      boolean namespaced,
      boolean hasStatus,
      Set<String> extraFieldLabels) {
    this(group, version, plural, kind, namespaced, hasStatus, extraFieldLabels, List.of());
  }

  ResourceDef(
      String group,
      String version,
      String plural,
      String kind,
      boolean namespaced,
      boolean hasStatus,
      Set<String> extraFieldLabels,
      List<String> shortNames) {
    this.group = group;
    this.shortNames = List.copyOf(shortNames);
    this.version = version;
    this.plural = plural;
    this.kind = kind;
    this.namespaced = namespaced;
    this.hasStatus = hasStatus;
    this.fieldLabels =
        namespaced
            ? union(extraFieldLabels, Set.of("metadata.name", "metadata.namespace"))
            : union(extraFieldLabels, Set.of("metadata.name"));
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    java.util.HashSet<String> s = new java.util.HashSet<>(a);
    s.addAll(b);
    return Set.copyOf(s);
  }

  String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  String qualifiedPlural() {
    return group.isEmpty() ? plural : plural + "." + group;
  }

  /** The value of a field label, e.g. {@code spec.pool.name}; empty string when absent. */
  static String field(JsonNode obj, String label) {
    JsonNode n = obj;
    for (String part : label.split("\\.")) {
      n = n.path(part);
    }
    return n.isValueNode() ? n.asText() : "";
  }

  static final List<ResourceDef> BUILT_IN =
      List.of(
          new ResourceDef(
              "resource.k8s.io",
              "v1",
              "resourceslices",
              "ResourceSlice",
              false,
              false,
              Set.of("spec.nodeName", "spec.driver", "spec.pool.name")),
          new ResourceDef(
              "resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true, true, Set.of()),
          new ResourceDef(
              "resource.k8s.io",
              "v1",
              "resourceclaimtemplates",
              "ResourceClaimTemplate",
              true,
              false,
              Set.of()),
          new ResourceDef(
              "resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false, false, Set.of()),
          new ResourceDef(
              "resource.k8s.io",
              "v1",
              "devicetaintrules",
              "DeviceTaintRule",
              false,
              true,
              Set.of()),
          new ResourceDef(
              "", "v1", "nodes", "Node", false, true, Set.of("spec.unschedulable"), List.of("no")),
          new ResourceDef(
              "",
              "v1",
              "pods",
              "Pod",
              true,
              true,
              Set.of("spec.nodeName", "status.phase"),
              List.of("po")));

  static Optional<ResourceDef> find(String group, String version, String plural) {
    return BUILT_IN.stream()
        .filter(d -> d.group.equals(group) && d.version.equals(version) && d.plural.equals(plural))
        .findFirst();
  }
}
