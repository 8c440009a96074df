package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ResourceClaim.status}.
 *
 * @param allocation set by the scheduler; immutable once set (it can only be cleared)
 * @param reservedFor consumers (Pods, or PodGroups with DRAWorkloadResourceClaims), at most 256,
 *     keyed by uid
 * @param devices per-device status written by drivers, keyed by driver/pool/device/shareID
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record ResourceClaimStatus(
    Optional<AllocationResult> allocation,
    List<ResourceClaimConsumerReference> reservedFor,
    List<AllocatedDeviceStatus> devices,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  static final ResourceClaimStatus EMPTY = new ResourceClaimStatus(null, null, null, null);

  public ResourceClaimStatus {
    allocation = Norm.opt(allocation);
    reservedFor = Norm.list(reservedFor);
    devices = Norm.list(devices);
    unknownFields = Norm.unknown(unknownFields);
  }

  public ResourceClaimStatus withAllocation(AllocationResult value) {
    return new ResourceClaimStatus(Optional.of(value), reservedFor, devices, unknownFields);
  }

  public ResourceClaimStatus withReservedFor(List<ResourceClaimConsumerReference> value) {
    return new ResourceClaimStatus(allocation, value, devices, unknownFields);
  }

  public ResourceClaimStatus withDevices(List<AllocatedDeviceStatus> value) {
    return new ResourceClaimStatus(allocation, reservedFor, value, unknownFields);
  }
}
