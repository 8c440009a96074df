package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.RequestNames;
import io.dra4j.kube.ResourceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A ResourceClaim checked against the kubelet's request and reduced to this driver's devices.
 *
 * @param ref the claim as the kubelet named it
 * @param claim the object read from the API server
 * @param devices this driver's allocated devices, in allocation order, with their configs
 */
record ResolvedClaim(ClaimRef ref, ResourceClaim claim, List<AllocatedDevice> devices) {

  ResolvedClaim {
    devices = List.copyOf(devices);
  }

  ClaimAllocation allocation() {
    Map<String, String> annotations = claim.metadata().annotations();
    return ClaimAllocation.of(ref, devices)
        .withAnnotations(annotations == null ? Map.of() : annotations);
  }

  /**
   * Checks the claim and keeps this driver's allocation results.
   *
   * @throws ClaimException when the claim was replaced (another UID) or is not allocated, or a
   *     config is invalid
   */
  static ResolvedClaim resolve(
      ClaimRef ref, ResourceClaim claim, String driver, OpaqueConfigs configs)
      throws ClaimException {
    String uid = claim.metadata().uid() == null ? "" : claim.metadata().uid();
    if (!ref.uid().equals(uid)) {
      throw new ClaimException(
          "claim "
              + ref.namespace()
              + "/"
              + ref.name()
              + " was replaced: expected uid "
              + ref.uid()
              + ", found "
              + (uid.isEmpty() ? "none" : uid));
    }
    Optional<AllocationResult> allocation = claim.status().allocation();
    if (allocation.isEmpty()) {
      throw new ClaimException("claim " + ref + " is not allocated (status.allocation is unset)");
    }
    List<AllocatedDevice> devices = new ArrayList<>();
    for (DeviceRequestAllocationResult r : allocation.get().devices().results()) {
      if (!driver.equals(r.driver())) {
        continue;
      }
      devices.add(toAllocated(r));
    }
    List<DeviceAllocationConfiguration> config = allocation.get().devices().config();
    return new ResolvedClaim(ref, claim, configs.apply(ref, devices, config));
  }

  static AllocatedDevice toAllocated(DeviceRequestAllocationResult r) {
    AllocatedDevice.Builder b =
        AllocatedDevice.builder(r.baseRequest(), r.pool(), r.device())
            .adminAccess(r.adminAccess().orElse(false))
            .tolerations(r.tolerations())
            .consumedCapacity(r.consumedCapacity());
    RequestNames.subrequest(r.request()).ifPresent(b::subrequest);
    r.shareID().ifPresent(b::shareId);
    return b.build();
  }
}
