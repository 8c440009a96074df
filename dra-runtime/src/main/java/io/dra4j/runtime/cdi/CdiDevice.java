package io.dra4j.runtime.cdi;

import io.dra4j.api.cdi.ContainerEdits;
import java.util.Objects;

/**
 * One device of a CDI spec.
 *
 * @param name the device name, unique in its spec; {@code [A-Za-z0-9][A-Za-z0-9_.:-]*[A-Za-z0-9]}
 *     or one letter or digit
 * @param edits what injecting the device changes; never empty (the CDI library rejects a device
 *     without edits)
 */
public record CdiDevice(String name, ContainerEdits edits) {
  public CdiDevice {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(edits, "edits");
    CdiRules.checkDeviceName(name);
    if (edits.isEmpty()) {
      throw new IllegalArgumentException(
          "CDI device \"" + name + "\" has no container edits; the CDI library rejects it");
    }
    CdiRules.checkEdits("CDI device " + name, edits);
  }
}
