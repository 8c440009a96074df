package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KubeNamesTest {

  @Test
  void dnsLabelsAndSubdomains() {
    assertThat(KubeNames.dnsLabel("gpu-0")).isEmpty();
    assertThat(KubeNames.dnsLabel("a".repeat(63))).isEmpty();
    assertThat(KubeNames.dnsLabel("a".repeat(64)))
        .containsExactly("is 64 characters, the limit is 63");
    assertThat(KubeNames.dnsLabel("gpu.0")).singleElement().asString().contains("RFC 1123 label");
    assertThat(KubeNames.dnsLabel("-gpu")).isNotEmpty();
    assertThat(KubeNames.dnsLabel("")).containsExactly("must not be empty");

    assertThat(KubeNames.dnsSubdomain("gpu.example.com")).isEmpty();
    assertThat(KubeNames.dnsSubdomain("Gpu.example.com"))
        .singleElement()
        .asString()
        .contains("lower-case DNS subdomain (RFC 1123");
    assertThat(KubeNames.dnsSubdomain("a..b")).isNotEmpty();
    assertThat(KubeNames.dnsSubdomain("a".repeat(254))).anyMatch(p -> p.contains("limit is 253"));
  }

  @Test
  void qualifiedNames() {
    assertThat(KubeNames.qualifiedName("gpu.example.com/unhealthy")).isEmpty();
    assertThat(KubeNames.qualifiedName("unhealthy")).isEmpty();
    assertThat(KubeNames.qualifiedName("Ready_1.x")).isEmpty();
    assertThat(KubeNames.qualifiedName("a".repeat(253) + "/" + "b".repeat(63))).isEmpty();
    assertThat(KubeNames.qualifiedName("a".repeat(254) + "/x")).anyMatch(p -> p.contains("253"));
    assertThat(KubeNames.qualifiedName("example.com/" + "b".repeat(64)))
        .containsExactly("the name part is 64 characters, the limit is 63");
    assertThat(KubeNames.qualifiedName("Example.com/x"))
        .singleElement()
        .asString()
        .startsWith("the prefix \"Example.com\" must be a lower-case");
    assertThat(KubeNames.qualifiedName("example.com/a/b"))
        .containsExactly("must have at most one '/' (prefix/name)");
    assertThat(KubeNames.qualifiedName("example.com/-x")).isNotEmpty();
    assertThat(KubeNames.qualifiedName("/x"))
        .containsExactly("the prefix before '/' must not be empty");
    assertThat(KubeNames.qualifiedName("example.com/"))
        .containsExactly("the name part must not be empty");
    assertThat(KubeNames.qualifiedName("")).containsExactly("must not be empty");
  }

  @Test
  void labelValuesMayBeEmpty() {
    assertThat(KubeNames.labelValue("")).isEmpty();
    assertThat(KubeNames.labelValue("XID_79.a-b")).isEmpty();
    assertThat(KubeNames.labelValue("a b")).isNotEmpty();
    assertThat(KubeNames.labelValue("x".repeat(64))).anyMatch(p -> p.contains("limit is 63"));
  }

  @Test
  void kubernetesDomainsAreReserved() {
    assertThat(KubeNames.isKubernetesDomain(KubeNames.domainOf("resource.kubernetes.io/x")))
        .isTrue();
    assertThat(KubeNames.isKubernetesDomain(KubeNames.domainOf("kubernetes.io/x"))).isTrue();
    assertThat(KubeNames.isKubernetesDomain(KubeNames.domainOf("notkubernetes.io/x"))).isFalse();
    assertThat(KubeNames.isKubernetesDomain(KubeNames.domainOf("unqualified"))).isFalse();
  }
}
