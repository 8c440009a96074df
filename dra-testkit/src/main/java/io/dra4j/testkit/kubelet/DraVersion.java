package io.dra4j.testkit.kubelet;

/** The DRA node service versions the kubelet (1.34+) can call, in its order of preference. */
public enum DraVersion {
  V1("v1.DRAPlugin"),
  V1BETA1("v1beta1.DRAPlugin");

  private final String service;

  DraVersion(String service) {
    this.service = service;
  }

  /** The string a plugin lists in {@code supported_versions}. */
  public String service() {
    return service;
  }

  /** Parses {@code v1} / {@code v1beta1} (or the full service string). */
  public static DraVersion parse(String value) {
    for (DraVersion v : values()) {
      if (v.service.equals(value) || v.name().equalsIgnoreCase(value)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown DRA version \"" + value + "\": use v1 or v1beta1");
  }
}
