package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.CallContext;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimConsumer;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.ClaimView;
import io.dra4j.api.claim.OpaqueConfig;
import io.dra4j.api.claim.PrepareRequest;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.RequestNames;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimConsumerReference;
import io.dra4j.kube.ResourceClaimSpec;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A ResourceClaim checked against the kubelet's request and reduced to this driver's devices.
 *
 * @param ref the claim as the kubelet named it
 * @param claim the object read from the API server
 * @param devices this driver's allocated devices, in allocation order, with their decoded configs
 * @param configs per device, in the same order, every config of this driver that applies to it
 */
record ResolvedClaim(
    ClaimRef ref,
    ResourceClaim claim,
    List<AllocatedDevice> devices,
    List<List<OpaqueConfig>> configs) {

  ResolvedClaim {
    devices = List.copyOf(devices);
    configs = List.copyOf(configs);
  }

  ClaimAllocation allocation() {
    Map<String, String> annotations = claim.metadata().annotations();
    return ClaimAllocation.of(ref, devices)
        .withAnnotations(annotations == null ? Map.of() : annotations);
  }

  /** What the provider's {@code prepare} gets, serving {@code call}. */
  PrepareRequest request(CallContext call) {
    PrepareRequest.Builder b = PrepareRequest.builder(allocation()).claim(view()).call(call);
    for (int i = 0; i < devices.size(); i++) {
      b.configs(devices.get(i), configs.get(i));
    }
    return b.build();
  }

  /** The whole claim, read-only, for the provider. */
  ClaimView view() {
    ObjectMeta meta = claim.metadata();
    ClaimView.Builder b =
        ClaimView.builder(ref)
            .generation(meta.generation())
            .labels(meta.labels() == null ? Map.of() : meta.labels())
            .annotations(meta.annotations() == null ? Map.of() : meta.annotations());
    ResourceClaimSpec spec = claim.spec();
    b.specJson(
        () -> {
          try {
            return KubeJson.mapper().writeValueAsString(spec);
          } catch (JsonProcessingException e) {
            throw new IllegalStateException("the claim's spec cannot be written as JSON: " + e, e);
          }
        });
    List<ClaimConsumer> consumers = new ArrayList<>();
    for (ResourceClaimConsumerReference c : claim.status().reservedFor()) {
      consumers.add(
          ClaimConsumer.builder(c.resource(), c.name(), c.uid()).apiGroup(c.apiGroup()).build());
    }
    b.reservedFor(consumers);
    Optional<AllocationResult> allocation = claim.status().allocation();
    allocation.flatMap(AllocationResult::nodeSelector).ifPresent(b::nodeSelector);
    allocation
        .flatMap(AllocationResult::allocationTimestamp)
        .flatMap(ResolvedClaim::instant)
        .ifPresent(b::allocationTimestamp);
    return b.build();
  }

  /** An RFC 3339 time; a value this version cannot read is left out rather than failing. */
  private static Optional<java.time.Instant> instant(String rfc3339) {
    try {
      return Optional.of(OffsetDateTime.parse(rfc3339).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
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
    return new ResolvedClaim(
        ref, claim, configs.apply(ref, devices, config), configs.applicable(devices, config));
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
