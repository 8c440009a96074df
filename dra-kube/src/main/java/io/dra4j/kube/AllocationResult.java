package io.dra4j.kube;

import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.feature.FeatureGate;
import java.util.Map;
import java.util.Optional;

/**
 * {@code status.allocation}.
 *
 * @param devices the allocated devices and the config that applies to them
 * @param nodeSelector where the allocation is usable; node-local allocations use {@code matchFields
 *     metadata.name In [node]}
 * @param allocationTimestamp RFC 3339; the anchor of the binding-condition timeout
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record AllocationResult(
    DeviceAllocationResult devices,
    Optional<NodeSelector> nodeSelector,
    @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
        Optional<String> allocationTimestamp,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public AllocationResult {
    devices = devices == null ? new DeviceAllocationResult(null, null, null) : devices;
    nodeSelector = Norm.opt(nodeSelector);
    allocationTimestamp = Norm.opt(allocationTimestamp);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static AllocationResult of(DeviceAllocationResult devices, NodeSelector nodeSelector) {
    return new AllocationResult(devices, Optional.ofNullable(nodeSelector), Optional.empty(), null);
  }
}
