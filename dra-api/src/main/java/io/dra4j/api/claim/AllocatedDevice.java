package io.dra4j.api.claim;

import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One device the scheduler allocated to a claim for this driver: the claim's {@code
 * DeviceRequestAllocationResult} with its decoded opaque config. Build one with {@link
 * #builder(String, String, String)} (a provider's tests do; the runtime hands them to {@code
 * prepare}).
 */
public final class AllocatedDevice {
  private final String request;
  private final Optional<String> subrequest;
  private final String pool;
  private final String device;
  private final boolean adminAccess;
  private final List<DeviceToleration> tolerations;
  private final Optional<String> shareId;
  private final Map<String, Quantity> consumedCapacity;
  private final Optional<Object> config;

  private AllocatedDevice(Builder b) {
    this.request = b.request;
    this.subrequest = b.subrequest;
    this.pool = b.pool;
    this.device = b.device;
    this.adminAccess = b.adminAccess;
    this.tolerations = List.copyOf(b.tolerations);
    this.shareId = b.shareId;
    this.consumedCapacity = Map.copyOf(b.consumedCapacity);
    this.config = b.config;
  }

  /** A plain allocation: no subrequest, no admin access, no sharing, no config. */
  public static AllocatedDevice of(String request, String pool, String device) {
    return builder(request, pool, device).build();
  }

  /**
   * A builder.
   *
   * @param request the base request name (a {@code /subrequest} suffix removed)
   * @param pool pool name
   * @param device device name
   */
  public static Builder builder(String request, String pool, String device) {
    return new Builder(request, pool, device);
  }

  /** A builder that starts from this allocation. */
  public Builder toBuilder() {
    Builder b = new Builder(request, pool, device);
    b.subrequest = subrequest;
    b.adminAccess = adminAccess;
    b.tolerations = tolerations;
    b.shareId = shareId;
    b.consumedCapacity = consumedCapacity;
    b.config = config;
    return b;
  }

  /** The base request name (a {@code /subrequest} suffix removed): what containers reference. */
  public String request() {
    return request;
  }

  /** The chosen {@code firstAvailable} alternative, if any. */
  public Optional<String> subrequest() {
    return subrequest;
  }

  /** Pool name. */
  public String pool() {
    return pool;
  }

  /** Device name. */
  public String device() {
    return device;
  }

  /** Admin access: the device may be in use by other claims. */
  public boolean adminAccess() {
    return adminAccess;
  }

  /** Tolerations copied from the request. */
  public List<DeviceToleration> tolerations() {
    return tolerations;
  }

  /** Set when the device allows multiple allocations (consumable capacity). */
  @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
  public Optional<String> shareId() {
    return shareId;
  }

  /** Capacity this allocation consumes (multi-allocatable devices only). */
  @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
  public Map<String, Quantity> consumedCapacity() {
    return consumedCapacity;
  }

  /** The decoded opaque config that applies to this device, if any (see {@link #config(Class)}). */
  public Optional<Object> config() {
    return config;
  }

  /**
   * The decoded opaque config of the given type.
   *
   * @throws IllegalStateException when a config of another type applies
   */
  public <C> Optional<C> config(Class<C> type) {
    if (config.isEmpty()) {
      return Optional.empty();
    }
    Object c = config.get();
    if (!type.isInstance(c)) {
      throw new IllegalStateException(
          "config for device "
              + device
              + " is a "
              + c.getClass().getName()
              + ", not "
              + type.getName());
    }
    return Optional.of(type.cast(c));
  }

  /** This allocation with the given config. */
  public AllocatedDevice withConfig(Object value) {
    return toBuilder().config(value).build();
  }

  /**
   * {@code pool/device}, plus {@code #shareId} for a shared device: the key of the overlap guard.
   */
  public String key() {
    return pool + "/" + device + shareId.map(s -> "#" + s).orElse("");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AllocatedDevice a
        && request.equals(a.request)
        && subrequest.equals(a.subrequest)
        && pool.equals(a.pool)
        && device.equals(a.device)
        && adminAccess == a.adminAccess
        && tolerations.equals(a.tolerations)
        && shareId.equals(a.shareId)
        && consumedCapacity.equals(a.consumedCapacity)
        && config.equals(a.config);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        request,
        subrequest,
        pool,
        device,
        adminAccess,
        tolerations,
        shareId,
        consumedCapacity,
        config);
  }

  @Override
  public String toString() {
    return "AllocatedDevice[request="
        + request
        + ", subrequest="
        + subrequest
        + ", pool="
        + pool
        + ", device="
        + device
        + ", adminAccess="
        + adminAccess
        + ", tolerations="
        + tolerations
        + ", shareId="
        + shareId
        + ", consumedCapacity="
        + consumedCapacity
        + ", config="
        + config
        + "]";
  }

  /**
   * Builds an {@link AllocatedDevice}: no subrequest, admin access, tolerations, sharing, config.
   */
  public static final class Builder {
    private final String request;
    private final String pool;
    private final String device;
    private Optional<String> subrequest = Optional.empty();
    private boolean adminAccess;
    private List<DeviceToleration> tolerations = List.of();
    private Optional<String> shareId = Optional.empty();
    private Map<String, Quantity> consumedCapacity = Map.of();
    private Optional<Object> config = Optional.empty();

    private Builder(String request, String pool, String device) {
      this.request = Objects.requireNonNull(request, "request");
      this.pool = Objects.requireNonNull(pool, "pool");
      this.device = Objects.requireNonNull(device, "device");
    }

    public Builder subrequest(String value) {
      subrequest = Optional.of(value);
      return this;
    }

    public Builder adminAccess(boolean value) {
      adminAccess = value;
      return this;
    }

    public Builder tolerations(List<DeviceToleration> value) {
      tolerations = List.copyOf(value);
      return this;
    }

    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
    public Builder shareId(String value) {
      shareId = Optional.of(value);
      return this;
    }

    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
    public Builder consumedCapacity(Map<String, Quantity> value) {
      consumedCapacity = Map.copyOf(value);
      return this;
    }

    public Builder config(Object value) {
      config = Optional.of(value);
      return this;
    }

    public AllocatedDevice build() {
      return new AllocatedDevice(this);
    }
  }
}
