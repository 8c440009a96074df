package io.dra4j.api.binding;

import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** One allocated device that waits for its binding conditions. */
@FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
public final class BindingRequest {
  private final ClaimRef claim;
  private final String request;
  private final String pool;
  private final String device;
  private final Optional<String> shareId;
  private final List<String> bindingConditions;
  private final List<String> bindingFailureConditions;

  private BindingRequest(
      ClaimRef claim,
      String request,
      String pool,
      String device,
      Optional<String> shareId,
      List<String> bindingConditions,
      List<String> bindingFailureConditions) {
    this.claim = Objects.requireNonNull(claim, "claim");
    this.request = Objects.requireNonNull(request, "request");
    this.pool = Objects.requireNonNull(pool, "pool");
    this.device = Objects.requireNonNull(device, "device");
    this.shareId = shareId;
    this.bindingConditions = List.copyOf(bindingConditions);
    this.bindingFailureConditions = List.copyOf(bindingFailureConditions);
  }

  /**
   * A device without a share id and without conditions (add them with {@link
   * #withBindingConditions}).
   *
   * @param claim the claim it is allocated to
   * @param request the request it was allocated for ({@code request} or {@code request/subrequest})
   * @param pool pool name
   * @param device device name
   */
  public static BindingRequest of(ClaimRef claim, String request, String pool, String device) {
    return new BindingRequest(claim, request, pool, device, Optional.empty(), List.of(), List.of());
  }

  /** This request for the share of a device that allows multiple allocations. */
  public BindingRequest withShareId(String value) {
    return new BindingRequest(
        claim,
        request,
        pool,
        device,
        Optional.of(value),
        bindingConditions,
        bindingFailureConditions);
  }

  /** This request with the conditions as the scheduler copied them into the allocation. */
  public BindingRequest withBindingConditions(List<String> conditions, List<String> failures) {
    return new BindingRequest(claim, request, pool, device, shareId, conditions, failures);
  }

  /** The claim it is allocated to. */
  public ClaimRef claim() {
    return claim;
  }

  /** The request it was allocated for ({@code request} or {@code request/subrequest}). */
  public String request() {
    return request;
  }

  /** Pool name. */
  public String pool() {
    return pool;
  }

  /** Device name. */
  public String device() {
    return device;
  }

  /** Set when the device allows multiple allocations. */
  public Optional<String> shareId() {
    return shareId;
  }

  /** What the scheduler waits for, as copied into the allocation. */
  public List<String> bindingConditions() {
    return bindingConditions;
  }

  /** What makes the scheduler give up, as copied into the allocation. */
  public List<String> bindingFailureConditions() {
    return bindingFailureConditions;
  }

  /** {@code pool/device}, plus {@code #shareId} for a shared device. */
  public String key() {
    return pool + "/" + device + shareId.map(s -> "#" + s).orElse("");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BindingRequest r
        && claim.equals(r.claim)
        && request.equals(r.request)
        && pool.equals(r.pool)
        && device.equals(r.device)
        && shareId.equals(r.shareId)
        && bindingConditions.equals(r.bindingConditions)
        && bindingFailureConditions.equals(r.bindingFailureConditions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        claim, request, pool, device, shareId, bindingConditions, bindingFailureConditions);
  }

  @Override
  public String toString() {
    return "BindingRequest[claim="
        + claim
        + ", request="
        + request
        + ", pool="
        + pool
        + ", device="
        + device
        + ", shareId="
        + shareId
        + ", bindingConditions="
        + bindingConditions
        + ", bindingFailureConditions="
        + bindingFailureConditions
        + "]";
  }
}
