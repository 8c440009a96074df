package io.dra4j.api.claim;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code DeviceProvider.prepare} gets: a claim and the devices allocated to it for this driver
 * (results of other drivers are already filtered out), each with its decoded config.
 *
 * @param claim the claim
 * @param devices this driver's allocated devices, in allocation order
 * @param annotations the claim's annotations (e.g. {@code
 *     resource.kubernetes.io/extended-resource-claim})
 */
public record ClaimAllocation(
    ClaimRef claim, List<AllocatedDevice> devices, Map<String, String> annotations) {
  public ClaimAllocation {
    Objects.requireNonNull(claim, "claim");
    devices = List.copyOf(devices);
    annotations = Map.copyOf(annotations);
  }
}
