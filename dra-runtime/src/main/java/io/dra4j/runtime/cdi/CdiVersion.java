package io.dra4j.runtime.cdi;

import java.util.Set;

/**
 * CDI spec versions dra4j may declare. A spec always declares the lowest version that supports the
 * features it uses ({@link #minimumRequired}), as nvidia-ctk and dra-example-driver do: old
 * runtimes (CDI library 0.5.x, podman 4.3) reject any version above 0.5.0, and newer libraries
 * (0.8.0) reject a spec that declares a version too low for its features.
 */
public enum CdiVersion {
  V0_3_0("0.3.0"),
  V0_4_0("0.4.0"),
  V0_5_0("0.5.0"),
  V0_6_0("0.6.0"),
  V0_7_0("0.7.0");

  private final String text;

  CdiVersion(String text) {
    this.text = text;
  }

  /** The version as written in {@code cdiVersion}, e.g. {@code 0.5.0}. */
  public String text() {
    return text;
  }

  /** The lowest version supporting every feature in {@code features}; 0.3.0 for none. */
  public static CdiVersion minimumFor(Set<CdiFeature> features) {
    CdiVersion v = V0_3_0;
    for (CdiFeature f : features) {
      if (f.since().compareTo(v) > 0) {
        v = f.since();
      }
    }
    return v;
  }

  /** The lowest version that supports everything {@code spec} uses. */
  public static CdiVersion minimumRequired(CdiSpec spec) {
    return minimumFor(CdiFeature.usedBy(spec));
  }

  @Override
  public String toString() {
    return text;
  }
}
