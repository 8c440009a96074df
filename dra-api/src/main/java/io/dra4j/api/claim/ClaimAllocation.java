package io.dra4j.api.claim;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code DeviceProvider.prepare} gets: a claim and the devices allocated to it for this driver
 * (results of other drivers are already filtered out), each with its decoded config.
 */
public final class ClaimAllocation {
  private final ClaimRef claim;
  private final List<AllocatedDevice> devices;
  private final Map<String, String> annotations;

  private ClaimAllocation(
      ClaimRef claim, List<AllocatedDevice> devices, Map<String, String> annotations) {
    this.claim = Objects.requireNonNull(claim, "claim");
    this.devices = List.copyOf(devices);
    this.annotations = Map.copyOf(annotations);
  }

  /** A claim's allocation without annotations. */
  public static ClaimAllocation of(ClaimRef claim, List<AllocatedDevice> devices) {
    return new ClaimAllocation(claim, devices, Map.of());
  }

  /** This allocation with the claim's annotations instead of its own. */
  public ClaimAllocation withAnnotations(Map<String, String> value) {
    return new ClaimAllocation(claim, devices, value);
  }

  /** The claim. */
  public ClaimRef claim() {
    return claim;
  }

  /** This driver's allocated devices, in allocation order. */
  public List<AllocatedDevice> devices() {
    return devices;
  }

  /** The claim's annotations (e.g. {@code resource.kubernetes.io/extended-resource-claim}). */
  public Map<String, String> annotations() {
    return annotations;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClaimAllocation a
        && claim.equals(a.claim)
        && devices.equals(a.devices)
        && annotations.equals(a.annotations);
  }

  @Override
  public int hashCode() {
    return Objects.hash(claim, devices, annotations);
  }

  @Override
  public String toString() {
    return "ClaimAllocation[claim="
        + claim
        + ", devices="
        + devices
        + ", annotations="
        + annotations
        + "]";
  }
}
