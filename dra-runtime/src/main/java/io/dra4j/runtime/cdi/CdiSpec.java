package io.dra4j.runtime.cdi;

import io.dra4j.api.cdi.ContainerEdits;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A CDI spec: a kind, its devices, and edits applied whenever any of its devices is injected. Its
 * {@code cdiVersion} is not chosen by the caller: it is always {@link
 * CdiVersion#minimumRequired(CdiSpec) the lowest version} that supports what the spec uses.
 *
 * @param kind {@code vendor/class}
 * @param devices at least one device, names unique
 * @param edits spec-level edits, possibly empty
 */
public record CdiSpec(CdiKind kind, List<CdiDevice> devices, ContainerEdits edits) {
  public CdiSpec {
    Objects.requireNonNull(kind, "kind");
    devices = List.copyOf(devices);
    Objects.requireNonNull(edits, "edits");
    if (devices.isEmpty()) {
      throw new IllegalArgumentException("CDI spec of kind " + kind + " has no devices");
    }
    Set<String> names = new HashSet<>();
    for (CdiDevice d : devices) {
      if (!names.add(d.name())) {
        throw new IllegalArgumentException(
            "CDI spec of kind " + kind + " has device \"" + d.name() + "\" twice");
      }
    }
    CdiRules.checkEdits("spec-level edits of CDI kind " + kind, edits);
  }

  /** The version this spec declares: the lowest that supports its features. */
  public CdiVersion cdiVersion() {
    return CdiVersion.minimumRequired(this);
  }

  /** The fully qualified id ({@code vendor/class=name}) of each device, in order. */
  public List<String> qualifiedNames() {
    return devices.stream().map(d -> kind.qualify(d.name())).toList();
  }

  /**
   * The spec as CDI JSON. Only fields that the declared {@link #cdiVersion()} defines are written
   * (CDI parsers are strict: an unknown field fails the whole file); empty lists and absent values
   * are left out. dra4j-only data such as {@code DeviceNode.required} is never written.
   */
  public String toJson() {
    return CdiSpecJson.write(this);
  }
}
