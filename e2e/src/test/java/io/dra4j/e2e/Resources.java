package io.dra4j.e2e;

/** The YAML of the objects the tests create, as a user would write them. */
final class Resources {
  private Resources() {}

  static String namespace(String name) {
    return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n";
  }

  /**
   * An unchanged pod: no resourceClaims, only {@code resourceName: count} in the container's
   * requests and limits, as it asked a device plugin before. It never runs (no kubelet), so the
   * image is never pulled.
   */
  static String podWithExtendedResource(String ns, String name, String resourceName, int count) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: %s
        spec:
          terminationGracePeriodSeconds: 0
          containers:
          - name: main
            image: registry.invalid/dra4j/never-pulled
            resources:
              requests: {"%s": "%d"}
              limits: {"%s": "%d"}
        """
        .formatted(name, ns, resourceName, count, resourceName, count);
  }
}
