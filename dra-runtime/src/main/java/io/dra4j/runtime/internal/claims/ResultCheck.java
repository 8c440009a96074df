package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rule a provider's {@link PrepareResult} must meet: exactly one device result per allocated
 * device, recorded keys outside the runtime's prefix, claim statuses the API server accepts. Pure.
 */
final class ResultCheck {

  /**
   * Key prefix of a device's recorded map that providers may not use: checkpoint format 1 kept the
   * runtime's own values there, and reading such a record must not mistake a provider's for them.
   */
  static final String RESERVED_PREFIX = "dra4j.io/";

  private ResultCheck() {}

  /**
   * The provider's devices in allocation order, each carrying the runtime's view of its allocation
   * (with its config).
   *
   * @throws DeviceException naming the device and what is wrong with its result
   */
  static List<PreparedDevice> inAllocationOrder(
      List<AllocatedDevice> allocated, PrepareResult result) throws DeviceException {
    if (result == null) {
      throw new DeviceException("the provider returned no result");
    }
    Map<String, PreparedDevice> byId = new LinkedHashMap<>();
    for (PreparedDevice p : result.devices()) {
      if (byId.putIfAbsent(identity(p.device()), p) != null) {
        throw new DeviceException(
            "the provider returned device " + describe(p.device()) + " twice");
      }
    }
    List<PreparedDevice> out = new ArrayList<>(allocated.size());
    for (AllocatedDevice d : allocated) {
      PreparedDevice p = byId.remove(identity(d));
      if (p == null) {
        throw new DeviceException(
            "the provider returned no result for allocated device " + describe(d));
      }
      for (String key : p.recorded().keySet()) {
        if (key.startsWith(RESERVED_PREFIX)) {
          throw new DeviceException(
              "device "
                  + describe(d)
                  + ": recorded key \""
                  + key
                  + "\" uses the prefix "
                  + RESERVED_PREFIX
                  + ", which is reserved for dra4j");
        }
      }
      if (p.status().isPresent()) {
        try {
          DeviceStatuses.validate(describe(d), p.status().get());
        } catch (IllegalArgumentException e) {
          throw new DeviceException("invalid claim status from the provider: " + e.getMessage());
        }
      }
      out.add(p.withDevice(d));
    }
    if (!byId.isEmpty()) {
      throw new DeviceException(
          "the provider returned results for devices that are not allocated to the claim: "
              + byId.values().stream().map(p -> describe(p.device())).toList());
    }
    return out;
  }

  private static String identity(AllocatedDevice d) {
    return d.request() + "|" + DeviceIndex.key(d.pool(), d.device(), d.shareId());
  }

  static String describe(AllocatedDevice d) {
    return d.pool()
        + "/"
        + d.device()
        + d.shareId().map(s -> " (share " + s + ")").orElse("")
        + " of request "
        + d.request();
  }
}
