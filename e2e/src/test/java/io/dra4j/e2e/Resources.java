package io.dra4j.e2e;

import java.util.Optional;

/** The YAML of the objects the tests create, as a user would write them. */
final class Resources {
  /** The fake driver's full GPUs (not partitions). */
  static final String GPU_SELECTOR =
      "device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].type == 'gpu'";

  private Resources() {}

  static String deviceClass(String name, String selector) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: %s
        spec:
          selectors:
          - cel:
              expression: "%s"
        """
        .formatted(name, selector);
  }

  /** The {@code spec} of a claim: one request of {@code count} devices, optionally constrained. */
  private static String claimSpec(
      String indent,
      String deviceClass,
      int count,
      String selector,
      Optional<String> matchAttribute) {
    String spec =
        """
        devices:
          requests:
          - name: gpus
            exactly:
              deviceClassName: %s
              count: %d
              selectors:
              - cel:
                  expression: "%s"
        """
            .formatted(deviceClass, count, selector);
    if (matchAttribute.isPresent()) {
      spec +=
          """
            constraints:
            - requests: [gpus]
              matchAttribute: %s
          """
              .formatted(matchAttribute.get());
    }
    return spec.indent(indent.length());
  }

  static String claim(
      String ns,
      String name,
      String deviceClass,
      int count,
      String selector,
      Optional<String> matchAttribute) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: %s
          namespace: %s
        spec:
        """
            .formatted(name, ns)
        + claimSpec("  ", deviceClass, count, selector, matchAttribute);
  }

  /** A claim for one device of {@code deviceClass} with a share of its consumable capacity. */
  static String capacityClaim(
      String ns, String name, String deviceClass, String capacity, String quantity) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s, namespace: %s}
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: %s
                capacity:
                  requests: {%s: %s}
        """
        .formatted(name, ns, deviceClass, capacity, quantity);
  }

  /**
   * A PodGroup (scheduling.k8s.io/v1beta1, GenericWorkload) whose pods share {@code claim}, named
   * {@code request} in the group.
   */
  static String podGroup(String ns, String name, String request, String claim) {
    return """
        apiVersion: scheduling.k8s.io/v1beta1
        kind: PodGroup
        metadata: {name: %s, namespace: %s}
        spec:
          schedulingPolicy: {basic: {}}
          resourceClaims:
          - name: %s
            resourceClaimName: %s
        """
        .formatted(name, ns, request, claim);
  }

  static String claimTemplate(
      String ns,
      String name,
      String deviceClass,
      int count,
      String selector,
      Optional<String> matchAttribute) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: %s
          namespace: %s
        spec:
          spec:
        """
            .formatted(name, ns)
        + claimSpec("    ", deviceClass, count, selector, matchAttribute);
  }

  /**
   * A pod using one claim, named {@code gpus} in the pod: the existing claim {@code claimName}, or
   * one made from {@code template}.
   */
  static String podWithClaim(String ns, String name, String claimName, Optional<String> template) {
    String source =
        template.isPresent()
            ? "resourceClaimTemplateName: " + template.get()
            : "resourceClaimName: " + claimName;
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: %s
        spec:
          terminationGracePeriodSeconds: 0
          resourceClaims:
          - name: gpus
            %s
          containers:
          - name: main
            image: registry.invalid/dra4j/never-pulled
            resources:
              claims:
              - name: gpus
        """
        .formatted(name, ns, source);
  }

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

  /** A ResourceClaim asking for one device of the deployment's DeviceClass. */
  static String claim(String ns, String name) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: %s
          namespace: %s
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
        """
        .formatted(name, ns);
  }

  /** A ResourceClaimTemplate asking for one device of the deployment's DeviceClass. */
  static String claimTemplate(String ns, String name) {
    return """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata:
          name: %s
          namespace: %s
        spec:
          spec:
            devices:
              requests:
              - name: gpu
                exactly:
                  deviceClassName: gpu.example.com
        """
        .formatted(name, ns);
  }

  /**
   * A pod whose container {@code main} uses the pod claim {@code gpu}; {@code source} is {@code
   * resourceClaimName: X} or {@code resourceClaimTemplateName: X}. With a {@code nodeName} the pod
   * is bound directly, bypassing the scheduler. It keeps the default grace period, so a kubelet
   * finishes its deletion.
   */
  static String podWithClaim(String ns, String name, String source, String nodeName) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: %s
        spec:
          %s
          resourceClaims:
          - name: gpu
            %s
          containers:
          - name: main
            image: registry.invalid/dra4j/never-pulled
            resources:
              claims:
              - name: gpu
        """
        .formatted(name, ns, nodeName.isEmpty() ? "" : "nodeName: " + nodeName, source);
  }
}
