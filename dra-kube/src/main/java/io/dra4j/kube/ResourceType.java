package io.dra4j.kube;

import java.util.Objects;

/**
 * A Kubernetes resource the client can address: where it lives in the REST tree and which record it
 * maps to.
 *
 * @param group API group, empty for the core group
 * @param version API version, e.g. {@code v1}
 * @param plural path segment, e.g. {@code resourceslices}
 * @param kind kind, e.g. {@code ResourceSlice}
 * @param namespaced whether objects live in namespaces
 * @param javaType the record type
 * @param <T> the record type
 */
public record ResourceType<T>(
    String group,
    String version,
    String plural,
    String kind,
    boolean namespaced,
    Class<T> javaType) {

  public ResourceType {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(plural, "plural");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(javaType, "javaType");
  }

  /** {@code resource.k8s.io/v1} or {@code v1} for the core group. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The collection path, e.g. {@code /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims}. */
  public String collectionPath(String namespace) {
    String base = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    if (namespaced) {
      if (namespace == null || namespace.isEmpty()) {
        return base + "/" + plural; // all namespaces (list / watch only)
      }
      return base + "/namespaces/" + namespace + "/" + plural;
    }
    return base + "/" + plural;
  }

  /** The object path. */
  public String objectPath(String namespace, String name) {
    return collectionPath(namespace) + "/" + name;
  }
}
