package io.dra4j.kube;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;
import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One allocated device. The identity of an allocated device is (driver, pool, device, shareID).
 *
 * @param request {@code req} or {@code req/subrequest}
 * @param driver the driver
 * @param pool the pool
 * @param device the device name
 * @param adminAccess copied from the request
 * @param tolerations copied from the request, at most 16
 * @param bindingConditions copied from the slice at allocation time, at most 4
 * @param bindingFailureConditions copied from the slice, at most 4
 * @param shareID lower-case UUID, only for devices that allow multiple allocations
 * @param consumedCapacity for multi-allocatable devices: every capacity, possibly 0
 * @param skipNodeOperations copied from the slice (Kubernetes 1.37+)
 * @param unknownFields fields of newer API versions, kept so a read-modify-write loses nothing
 */
@OmitEmpty
public record DeviceRequestAllocationResult(
    String request,
    String driver,
    String pool,
    String device,
    Optional<Boolean> adminAccess,
    List<DeviceToleration> tolerations,
    @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA) List<String> bindingConditions,
    @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
        List<String> bindingFailureConditions,
    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA) Optional<String> shareID,
    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
        Map<String, Quantity> consumedCapacity,
    @FeatureGate(name = "DRAOptionalNodeOperations", stage = ALPHA) List<String> skipNodeOperations,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public DeviceRequestAllocationResult {
    request = Objects.requireNonNull(request, "request");
    driver = Objects.requireNonNull(driver, "driver");
    pool = Objects.requireNonNull(pool, "pool");
    device = Objects.requireNonNull(device, "device");
    adminAccess = Norm.opt(adminAccess);
    tolerations = Norm.list(tolerations);
    bindingConditions = Norm.list(bindingConditions);
    bindingFailureConditions = Norm.list(bindingFailureConditions);
    shareID = Norm.opt(shareID);
    consumedCapacity = Norm.map(consumedCapacity);
    skipNodeOperations = Norm.list(skipNodeOperations);
    unknownFields = Norm.unknown(unknownFields);
  }

  /** A plain result. */
  public static DeviceRequestAllocationResult of(
      String request, String driver, String pool, String device) {
    return new DeviceRequestAllocationResult(
        request, driver, pool, device, null, null, null, null, null, null, null, null);
  }

  /** The request name without a {@code /subrequest} suffix. */
  public String baseRequest() {
    return RequestNames.base(request);
  }
}
