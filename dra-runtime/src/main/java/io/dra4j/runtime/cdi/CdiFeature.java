package io.dra4j.runtime.cdi;

import io.dra4j.api.cdi.ContainerEdits;
import java.util.EnumSet;
import java.util.Set;

/**
 * A spec feature that needs a CDI version above the 0.3.0 base (the table of the CDI library's
 * {@code MinimumRequiredVersion}). dra4j's model can express the first three; the others are listed
 * so the version rule stays complete if the model grows (dra4j rejects a dot in the class, see
 * {@link CdiKind}).
 */
public enum CdiFeature {
  /** A mount with a {@code type}. */
  MOUNT_TYPE(CdiVersion.V0_4_0),
  /** A device node with a {@code hostPath}. */
  DEVICE_NODE_HOST_PATH(CdiVersion.V0_5_0),
  /** A device name starting with a digit, as {@code <claimUID>-...} names often do. */
  DEVICE_NAME_LEADING_DIGIT(CdiVersion.V0_5_0),
  /** Spec or device {@code annotations}. Not in dra4j's model. */
  ANNOTATIONS(CdiVersion.V0_6_0),
  /** A dot in the class. Rejected by {@link CdiKind}. */
  DOT_IN_CLASS(CdiVersion.V0_6_0),
  /** {@code intelRdt} edits. Not in dra4j's model. */
  INTEL_RDT(CdiVersion.V0_7_0),
  /** {@code additionalGids} edits. Not in dra4j's model. */
  ADDITIONAL_GIDS(CdiVersion.V0_7_0);

  private final CdiVersion since;

  CdiFeature(CdiVersion since) {
    this.since = since;
  }

  /** The first version that supports this feature. */
  public CdiVersion since() {
    return since;
  }

  /** The features {@code spec} uses. */
  public static Set<CdiFeature> usedBy(CdiSpec spec) {
    Set<CdiFeature> used = EnumSet.noneOf(CdiFeature.class);
    if (spec.kind().cls().indexOf('.') >= 0) {
      used.add(DOT_IN_CLASS);
    }
    addEditFeatures(spec.edits(), used);
    for (CdiDevice d : spec.devices()) {
      if (Character.isDigit(d.name().charAt(0))) {
        used.add(DEVICE_NAME_LEADING_DIGIT);
      }
      addEditFeatures(d.edits(), used);
    }
    return used;
  }

  private static void addEditFeatures(ContainerEdits edits, Set<CdiFeature> used) {
    if (edits.deviceNodes().stream().anyMatch(n -> n.hostPath().isPresent())) {
      used.add(DEVICE_NODE_HOST_PATH);
    }
    if (edits.mounts().stream().anyMatch(m -> m.type().isPresent())) {
      used.add(MOUNT_TYPE);
    }
  }
}
