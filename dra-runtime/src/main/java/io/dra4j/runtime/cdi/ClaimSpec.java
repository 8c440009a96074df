package io.dra4j.runtime.cdi;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.runtime.files.ClaimUids;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The CDI spec of one prepared claim: the transient spec to write (none when no device has edits)
 * and the CDI ids it gives each device. Built by a pure function, {@link #build}; {@link
 * CdiSpecWriter} adds the host checks and the file.
 *
 * @param claim the claim
 * @param spec the claim's spec; empty when no device has container edits
 * @param cdiDeviceIds per prepared device, in the order given to {@link #build}, the qualified ids
 *     of its CDI device: one, or none when its edits are empty
 */
public record ClaimSpec(ClaimRef claim, Optional<CdiSpec> spec, List<List<String>> cdiDeviceIds) {

  public ClaimSpec {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(spec, "spec");
    cdiDeviceIds = cdiDeviceIds.stream().map(List::copyOf).toList();
  }

  /**
   * Builds the spec of a claim: one CDI device per prepared device with non-empty edits (named as
   * described in the package documentation), plus {@code claimEdits} at spec level, which apply
   * once whenever any of the claim's devices is injected (so they are dropped when no device has
   * edits).
   *
   * @throws IllegalArgumentException naming the claim, the device and the field when an edit is
   *     invalid for CDI, or when the claim UID cannot be part of a file or device name
   */
  public static ClaimSpec build(
      CdiKind kind, ClaimRef claim, List<PreparedDevice> prepared, ContainerEdits claimEdits) {
    ClaimUids.check(claim.uid(), "a CDI spec");
    CdiRules.checkEdits("claim-wide edits of claim " + claim, claimEdits);
    List<String> names =
        CdiDeviceNames.assign(claim.uid(), prepared.stream().map(PreparedDevice::device).toList());
    List<CdiDevice> cdiDevices = new ArrayList<>();
    List<List<String>> ids = new ArrayList<>();
    for (int i = 0; i < prepared.size(); i++) {
      PreparedDevice p = prepared.get(i);
      if (p.edits().isEmpty()) {
        ids.add(List.of());
        continue;
      }
      CdiRules.checkEdits("device " + p.device().device() + " of claim " + claim, p.edits());
      CdiDevice d = new CdiDevice(names.get(i), p.edits());
      cdiDevices.add(d);
      ids.add(List.of(kind.qualify(d.name())));
    }
    Optional<CdiSpec> spec =
        cdiDevices.isEmpty()
            ? Optional.empty()
            : Optional.of(new CdiSpec(kind, cdiDevices, claimEdits));
    return new ClaimSpec(claim, spec, ids);
  }

  /** Every CDI id of the claim, in device order. */
  public List<String> allCdiDeviceIds() {
    return cdiDeviceIds.stream().flatMap(List::stream).toList();
  }
}
