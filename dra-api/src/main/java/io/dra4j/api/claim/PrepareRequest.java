package io.dra4j.api.claim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything {@code DeviceProvider.prepare(PrepareRequest)} gets for one claim: this driver's
 * allocation (as {@code prepare(ClaimAllocation)} gets it), the whole claim read-only, the
 * kubelet's call with its deadline, and per device the ordered opaque configs that apply to it.
 */
public final class PrepareRequest {

  private final ClaimAllocation allocation;
  private final ClaimView claim;
  private final CallContext call;
  private final Map<String, List<OpaqueConfig>> configs;

  private PrepareRequest(Builder b) {
    this.allocation = b.allocation;
    this.claim = b.claim != null ? b.claim : defaultView(b.allocation);
    this.call = b.call;
    this.configs = Map.copyOf(b.configs);
  }

  private static ClaimView defaultView(ClaimAllocation allocation) {
    return ClaimView.builder(allocation.claim()).annotations(allocation.annotations()).build();
  }

  /** A builder for {@code allocation}. */
  public static Builder builder(ClaimAllocation allocation) {
    return new Builder(allocation);
  }

  /** This driver's devices of the claim, each with the config the runtime decoded for it. */
  public ClaimAllocation allocation() {
    return allocation;
  }

  /** The whole claim, read-only. */
  public ClaimView claim() {
    return claim;
  }

  /** The kubelet's call: its deadline and cancellation. */
  public CallContext call() {
    return call;
  }

  /**
   * The opaque configs of this driver that apply to {@code device}, in the allocation's order: the
   * DeviceClass's first, then the claim's. Empty when none applies.
   *
   * @param device one of {@link ClaimAllocation#devices()}
   */
  public List<OpaqueConfig> configs(AllocatedDevice device) {
    return configs.getOrDefault(key(device), List.of());
  }

  private static String key(AllocatedDevice d) {
    return d.request() + "|" + d.key();
  }

  @Override
  public String toString() {
    return "PrepareRequest["
        + allocation.claim()
        + ", "
        + allocation.devices().size()
        + " devices]";
  }

  /**
   * Builds a {@link PrepareRequest}. Defaults: the claim view holds only what the allocation has
   * (reference and annotations), the call is {@link CallContext#none()}, no device has configs.
   */
  public static final class Builder {
    private final ClaimAllocation allocation;
    private ClaimView claim;
    private CallContext call = CallContext.none();
    private final Map<String, List<OpaqueConfig>> configs = new HashMap<>();

    private Builder(ClaimAllocation allocation) {
      this.allocation = Objects.requireNonNull(allocation, "allocation");
    }

    public Builder claim(ClaimView value) {
      claim = Objects.requireNonNull(value, "claim");
      return this;
    }

    public Builder call(CallContext value) {
      call = Objects.requireNonNull(value, "call");
      return this;
    }

    /** The configs that apply to {@code device}, class configs first. */
    public Builder configs(AllocatedDevice device, List<OpaqueConfig> value) {
      configs.put(key(device), List.copyOf(value));
      return this;
    }

    public PrepareRequest build() {
      return new PrepareRequest(this);
    }
  }
}
