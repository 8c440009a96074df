package io.dra4j.api.binding;

import io.dra4j.api.claim.ClaimRef;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One allocated device that waits for its binding conditions.
 *
 * @param claim the claim it is allocated to
 * @param request the request it was allocated for ({@code request} or {@code request/subrequest})
 * @param pool pool name
 * @param device device name
 * @param shareId set when the device allows multiple allocations
 * @param bindingConditions what the scheduler waits for, as copied into the allocation
 * @param bindingFailureConditions what makes the scheduler give up, as copied into the allocation
 */
public record BindingRequest(
    ClaimRef claim,
    String request,
    String pool,
    String device,
    Optional<String> shareId,
    List<String> bindingConditions,
    List<String> bindingFailureConditions) {
  public BindingRequest {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(shareId, "shareId");
    bindingConditions = List.copyOf(bindingConditions);
    bindingFailureConditions = List.copyOf(bindingFailureConditions);
  }

  /** {@code pool/device}, plus {@code #shareId} for a shared device. */
  public String key() {
    return pool + "/" + device + shareId.map(s -> "#" + s).orElse("");
  }
}
