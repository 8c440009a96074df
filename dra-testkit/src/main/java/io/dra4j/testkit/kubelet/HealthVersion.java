package io.dra4j.testkit.kubelet;

/** The health stream versions; a 1.37 kubelet prefers v1 whatever the plugin's order. */
public enum HealthVersion {
  V1("v1.DRAResourceHealth"),
  V1ALPHA1("v1alpha1.DRAResourceHealth");

  private final String service;

  HealthVersion(String service) {
    this.service = service;
  }

  /** The string a plugin lists in {@code supported_versions}. */
  public String service() {
    return service;
  }

  /** Parses {@code v1} / {@code v1alpha1} (or the full service string). */
  public static HealthVersion parse(String value) {
    for (HealthVersion v : values()) {
      if (v.service.equals(value) || v.name().equalsIgnoreCase(value)) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "unknown health version \"" + value + "\": use v1 or v1alpha1");
  }
}
