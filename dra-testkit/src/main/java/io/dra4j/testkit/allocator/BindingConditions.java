package io.dra4j.testkit.allocator;

import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Binding conditions (KEP-5007) as PreBind reads them from a claim's {@code status.devices}: a
 * device's binding conditions must all be {@code True} before the pod is bound, and a {@code True}
 * binding failure condition deallocates the claim.
 */
final class BindingConditions {
  private BindingConditions() {}

  /** A binding failure condition that is {@code True}, if any. */
  static Optional<String> bindingFailure(ResourceClaim claim) {
    for (DeviceRequestAllocationResult r : results(claim)) {
      for (String c : r.bindingFailureConditions()) {
        if (conditionTrue(claim, r, c)) {
          return Optional.of(
              "binding failure condition "
                  + c
                  + " of device "
                  + r.pool()
                  + "/"
                  + r.device()
                  + " is True");
        }
      }
    }
    return Optional.empty();
  }

  /** The binding conditions that are not {@code True} yet, if any. */
  static Optional<String> bindingPending(ResourceClaim claim) {
    List<String> pending = new ArrayList<>();
    for (DeviceRequestAllocationResult r : results(claim)) {
      for (String c : r.bindingConditions()) {
        if (!conditionTrue(claim, r, c)) {
          pending.add(c + " of " + r.pool() + "/" + r.device());
        }
      }
    }
    return pending.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", pending));
  }

  private static List<DeviceRequestAllocationResult> results(ResourceClaim claim) {
    return claim.status().allocation().map(a -> a.devices().results()).orElse(List.of());
  }

  private static boolean conditionTrue(
      ResourceClaim claim, DeviceRequestAllocationResult r, String type) {
    // The first entry of the device, whatever its share ID: how the v1.37.2 scheduler looks it up.
    return claim.status().devices().stream()
        .filter(
            d ->
                d.driver().equals(r.driver())
                    && d.pool().equals(r.pool())
                    && d.device().equals(r.device()))
        .findFirst()
        .map(d -> d.conditions().stream())
        .orElse(java.util.stream.Stream.empty())
        .anyMatch(c -> c.type().equals(type) && c.status().equals("True"));
  }
}
