package io.dra4j.kube;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;
import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code DeviceRequest.exactly}: devices of one class.
 *
 * @param deviceClassName required
 * @param selectors at most 32 CEL selectors, all must match
 * @param allocationMode {@code ExactCount} (default, empty here) or {@code All}
 * @param count number of devices for ExactCount; 0 here means "not set" (the API default is 1)
 * @param adminAccess admin access to devices in use by others
 * @param tolerations at most 16
 * @param capacity capacity requests for devices that allow multiple allocations
 * @param derivedAttributes attributes computed with CEL for the claim's constraints
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record ExactDeviceRequest(
    String deviceClassName,
    List<DeviceSelector> selectors,
    String allocationMode,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) long count,
    Optional<Boolean> adminAccess,
    List<DeviceToleration> tolerations,
    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
        Optional<CapacityRequirements> capacity,
    @FeatureGate(name = "DRADerivedAttributes", stage = ALPHA)
        List<DeviceDerivedAttribute> derivedAttributes,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public ExactDeviceRequest {
    deviceClassName = Objects.requireNonNull(deviceClassName, "deviceClassName");
    selectors = Norm.list(selectors);
    allocationMode = Norm.str(allocationMode);
    adminAccess = Norm.opt(adminAccess);
    tolerations = Norm.list(tolerations);
    capacity = Norm.opt(capacity);
    derivedAttributes = Norm.list(derivedAttributes);
    unknownFields = Norm.unknown(unknownFields);
  }

  /** A request without derived attributes (the form before Kubernetes 1.37). */
  public ExactDeviceRequest(
      String deviceClassName,
      List<DeviceSelector> selectors,
      String allocationMode,
      long count,
      Optional<Boolean> adminAccess,
      List<DeviceToleration> tolerations,
      Optional<CapacityRequirements> capacity,
      Map<String, Object> unknownFields) {
    this(
        deviceClassName,
        selectors,
        allocationMode,
        count,
        adminAccess,
        tolerations,
        capacity,
        List.of(),
        unknownFields);
  }

  /** {@code count} devices of the class (ExactCount). */
  public static ExactDeviceRequest of(String deviceClassName, long count) {
    return new ExactDeviceRequest(
        deviceClassName, null, null, count, Optional.empty(), null, Optional.empty(), null, null);
  }

  /** The same request with these CEL selectors. */
  public ExactDeviceRequest withSelectors(List<DeviceSelector> value) {
    return new ExactDeviceRequest(
        deviceClassName,
        value,
        allocationMode,
        count,
        adminAccess,
        tolerations,
        capacity,
        derivedAttributes,
        unknownFields);
  }

  /** {@code ExactCount} or {@code All}, with the API default applied. */
  public String effectiveAllocationMode() {
    return allocationMode.isEmpty() ? "ExactCount" : allocationMode;
  }

  /** The number of devices for ExactCount, with the API default (1) applied. */
  public long effectiveCount() {
    return count == 0 ? 1 : count;
  }
}
