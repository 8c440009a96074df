package io.dra4j.numa;

import java.util.Locale;

/**
 * How a standard topology attribute that can have several values is published: {@code numaNode}
 * (setting {@value NumaEnricher#CONFIG_FORM}) and {@code pcieRoot} (setting {@value
 * NumaEnricher#CONFIG_PCIE_ROOT_FORM}). The driver cannot see the cluster's feature gates, so the
 * operator chooses.
 */
public enum AttributeForm {
  /**
   * One value: {@code {"int": N}} for the physical node, {@code {"string": "pci0000:00"}} for the
   * root of the device's (primary) function. Works on every cluster; the default.
   */
  SCALAR,
  /**
   * A list ({@code ints}, {@code strings}): for {@code numaNode} the physical node, then
   * same-socket nodes at the minimum SLIT distance; for {@code pcieRoot} the root of each function
   * of the device, primary first. Needs the DRAListTypeAttributes gate (alpha in 1.36 and 1.37);
   * with the gate off the API server does not keep them.
   */
  LIST;

  /** The config spelling, {@code scalar} or {@code list}. */
  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses the value of setting {@code key} (case-insensitive).
   *
   * @throws IllegalArgumentException naming the key and the allowed values
   */
  public static AttributeForm parse(String key, String value) {
    for (AttributeForm f : values()) {
      if (f.configValue().equalsIgnoreCase(value.strip())) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "setting " + key + "=\"" + value + "\" must be one of: scalar, list");
  }
}
