package io.dra4j.numa;

import java.util.Locale;

/**
 * How {@code resource.kubernetes.io/numaNode} is published. The driver cannot see the cluster's
 * feature gates, so the operator chooses (config key {@value NumaEnricher#CONFIG_FORM}).
 */
public enum NumaAttributeForm {
  /** {@code {"int": N}}, the physical node. Works on every cluster; the default. */
  SCALAR,
  /**
   * {@code {"ints": [N, ...]}}: the physical node, then same-socket nodes at the minimum SLIT
   * distance. Needs the DRAListTypeAttributes gate (alpha in 1.36 and 1.37); with the gate off the
   * API server rejects the slice.
   */
  LIST;

  /** The config spelling, {@code scalar} or {@code list}. */
  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses the config value (case-insensitive).
   *
   * @throws IllegalArgumentException naming the key and the allowed values
   */
  public static NumaAttributeForm parse(String value) {
    for (NumaAttributeForm f : values()) {
      if (f.configValue().equalsIgnoreCase(value.strip())) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "setting " + NumaEnricher.CONFIG_FORM + "=\"" + value + "\" must be one of: scalar, list");
  }
}
