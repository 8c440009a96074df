package io.dra4j.kube;

/**
 * A Kubernetes object with metadata. Every model record implements it, so generic code (the {@link
 * Informer}, the client's update path) can find an object's namespace, name and resourceVersion
 * without reflection.
 */
public interface KubeObject {

  /** {@code apiVersion}, e.g. {@code resource.k8s.io/v1}. */
  String apiVersion();

  /** {@code kind}, e.g. {@code ResourceSlice}. */
  String kind();

  /** The object's metadata. */
  ObjectMeta metadata();

  /** {@code namespace/name}, or just {@code name} for cluster-scoped objects. */
  default String key() {
    ObjectMeta m = metadata();
    return m.namespace().isEmpty() ? m.name() : m.namespace() + "/" + m.name();
  }
}
