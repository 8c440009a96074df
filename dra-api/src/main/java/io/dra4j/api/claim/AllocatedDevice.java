package io.dra4j.api.claim;

import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.Quantity;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One device the scheduler allocated to a claim for this driver.
 *
 * @param request the base request name (a {@code /subrequest} suffix removed): what containers
 *     reference
 * @param subrequest the chosen {@code firstAvailable} alternative, if any
 * @param pool pool name
 * @param device device name
 * @param adminAccess admin access: the device may be in use by other claims
 * @param tolerations tolerations copied from the request
 * @param shareId set when the device allows multiple allocations (consumable capacity)
 * @param consumedCapacity capacity this allocation consumes (multi-allocatable devices only)
 * @param config the decoded opaque config that applies to this device, if any (see {@link
 *     #config(Class)})
 */
public record AllocatedDevice(
    String request,
    Optional<String> subrequest,
    String pool,
    String device,
    boolean adminAccess,
    List<DeviceToleration> tolerations,
    Optional<String> shareId,
    Map<String, Quantity> consumedCapacity,
    Optional<Object> config) {

  public AllocatedDevice {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(subrequest, "subrequest");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    tolerations = List.copyOf(tolerations);
    Objects.requireNonNull(shareId, "shareId");
    consumedCapacity = Map.copyOf(consumedCapacity);
    Objects.requireNonNull(config, "config");
  }

  /** A plain allocation: no subrequest, no admin access, no sharing, no config. */
  public static AllocatedDevice of(String request, String pool, String device) {
    return new AllocatedDevice(
        request,
        Optional.empty(),
        pool,
        device,
        false,
        List.of(),
        Optional.empty(),
        Map.of(),
        Optional.empty());
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
    return new AllocatedDevice(
        request,
        subrequest,
        pool,
        device,
        adminAccess,
        tolerations,
        shareId,
        consumedCapacity,
        Optional.of(value));
  }

  /**
   * {@code pool/device}, plus {@code #shareId} for a shared device: the key of the overlap guard.
   */
  public String key() {
    return pool + "/" + device + shareId.map(s -> "#" + s).orElse("");
  }
}
