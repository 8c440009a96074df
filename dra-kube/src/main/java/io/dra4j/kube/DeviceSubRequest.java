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
 * One alternative of {@code DeviceRequest.firstAvailable}. Like {@link ExactDeviceRequest} but
 * named and without admin access.
 *
 * @param name DNS label; results refer to {@code request/name}
 * @param deviceClassName required
 * @param selectors at most 32 CEL selectors
 * @param allocationMode {@code ExactCount} (default, empty here) or {@code All}
 * @param count 0 here means "not set" (the API default is 1)
 * @param tolerations at most 16
 * @param capacity capacity requests
 * @param derivedAttributes attributes computed with CEL for the claim's constraints
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceSubRequest(
    String name,
    String deviceClassName,
    List<DeviceSelector> selectors,
    String allocationMode,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) long count,
    List<DeviceToleration> tolerations,
    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
        Optional<CapacityRequirements> capacity,
    @FeatureGate(name = "DRADerivedAttributes", stage = ALPHA)
        List<DeviceDerivedAttribute> derivedAttributes,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public DeviceSubRequest {
    name = Objects.requireNonNull(name, "subrequest name");
    deviceClassName = Objects.requireNonNull(deviceClassName, "deviceClassName");
    selectors = Norm.list(selectors);
    allocationMode = Norm.str(allocationMode);
    tolerations = Norm.list(tolerations);
    capacity = Norm.opt(capacity);
    derivedAttributes = Norm.list(derivedAttributes);
    unknownFields = Norm.unknown(unknownFields);
  }

  /** A subrequest without derived attributes (the form before Kubernetes 1.37). */
  public DeviceSubRequest(
      String name,
      String deviceClassName,
      List<DeviceSelector> selectors,
      String allocationMode,
      long count,
      List<DeviceToleration> tolerations,
      Optional<CapacityRequirements> capacity,
      Map<String, Object> unknownFields) {
    this(
        name,
        deviceClassName,
        selectors,
        allocationMode,
        count,
        tolerations,
        capacity,
        List.of(),
        unknownFields);
  }

  public static DeviceSubRequest of(String name, String deviceClassName, long count) {
    return new DeviceSubRequest(
        name, deviceClassName, null, null, count, null, Optional.empty(), null, null);
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
