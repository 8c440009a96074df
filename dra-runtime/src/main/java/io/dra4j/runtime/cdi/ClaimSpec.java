package io.dra4j.runtime.cdi;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.runtime.files.ClaimUids;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The CDI side of one prepared claim: the transient spec to write (none when no device has edits)
 * and the CDI ids to return to the kubelet for each device. Built by a pure function, {@link
 * #build}; {@link CdiSpecWriter} adds the host checks and the file.
 *
 * @param claim the claim
 * @param spec the claim's spec; empty when no device has container edits
 * @param devices one entry per prepared device, in the order given to {@link #build}
 */
public record ClaimSpec(ClaimRef claim, Optional<CdiSpec> spec, List<ClaimSpec.Entry> devices) {

  /**
   * The CDI ids of one device.
   *
   * @param device the allocation
   * @param cdiDeviceIds the qualified ids to return for it: one, or none when its edits are empty
   */
  public record Entry(AllocatedDevice device, List<String> cdiDeviceIds) {
    public Entry {
      Objects.requireNonNull(device, "device");
      cdiDeviceIds = List.copyOf(cdiDeviceIds);
    }
  }

  public ClaimSpec {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(spec, "spec");
    devices = List.copyOf(devices);
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
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < prepared.size(); i++) {
      PreparedDevice p = prepared.get(i);
      if (p.edits().isEmpty()) {
        entries.add(new Entry(p.device(), List.of()));
        continue;
      }
      CdiRules.checkEdits("device " + p.device().device() + " of claim " + claim, p.edits());
      CdiDevice d = new CdiDevice(names.get(i), p.edits());
      cdiDevices.add(d);
      entries.add(new Entry(p.device(), List.of(kind.qualify(d.name()))));
    }
    Optional<CdiSpec> spec =
        cdiDevices.isEmpty()
            ? Optional.empty()
            : Optional.of(new CdiSpec(kind, cdiDevices, claimEdits));
    return new ClaimSpec(claim, spec, entries);
  }

  /** Every CDI id of the claim, in device order. */
  public List<String> allCdiDeviceIds() {
    return devices.stream().flatMap(e -> e.cdiDeviceIds().stream()).toList();
  }
}
