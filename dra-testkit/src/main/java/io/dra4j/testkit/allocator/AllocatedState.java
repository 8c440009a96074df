package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Quantity;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.ResourceClaim;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What other claims already hold, as the scheduler reconstructs it from allocated claims: devices
 * allocated exclusively, and for devices that allow multiple allocations the capacity their shares
 * consume. Results with admin access are not counted (admin access does not take a device away from
 * anyone).
 *
 * <p>Immutable. Capacity names are kept fully qualified ({@code <driver>/<name>} for names without
 * a domain), so both spellings a claim may use add up.
 */
public final class AllocatedState {

  private static final AllocatedState EMPTY = new AllocatedState(Set.of(), Map.of());

  private final Set<DeviceKey> exclusive;
  private final Map<DeviceKey, Map<String, Quantity>> shared;

  private AllocatedState(Set<DeviceKey> exclusive, Map<DeviceKey, Map<String, Quantity>> shared) {
    this.exclusive = exclusive;
    this.shared = shared;
  }

  /** Nothing is allocated. */
  public static AllocatedState empty() {
    return EMPTY;
  }

  /** These devices are allocated exclusively; no shared capacity is in use. */
  public static AllocatedState of(Set<DeviceKey> allocatedDevices) {
    return new AllocatedState(Set.copyOf(allocatedDevices), Map.of());
  }

  /**
   * The state that the allocations of these claims add up to (unallocated claims count nothing).
   */
  public static AllocatedState fromClaims(Collection<ResourceClaim> claims) {
    AllocatedState state = EMPTY;
    for (ResourceClaim claim : claims) {
      Objects.requireNonNull(claim, "claim");
      if (claim.status().allocation().isPresent()) {
        state = state.plus(claim.status().allocation().get());
      }
    }
    return state;
  }

  /** This state plus one more allocation result. */
  public AllocatedState plus(AllocationResult allocation) {
    Set<DeviceKey> ex = new HashSet<>(exclusive);
    Map<DeviceKey, Map<String, Quantity>> sh = new HashMap<>();
    shared.forEach((k, v) -> sh.put(k, new TreeMap<>(v)));
    for (DeviceRequestAllocationResult r : allocation.devices().results()) {
      if (r.adminAccess().orElse(false)) {
        continue;
      }
      DeviceKey key = new DeviceKey(r.driver(), r.pool(), r.device());
      if (r.shareID().isPresent()) {
        Map<String, Quantity> consumed = sh.computeIfAbsent(key, k -> new TreeMap<>());
        r.consumedCapacity()
            .forEach((name, q) -> consumed.merge(qualify(r.driver(), name), q, Quantity::add));
      } else {
        ex.add(key);
      }
    }
    Map<DeviceKey, Map<String, Quantity>> frozen = new HashMap<>();
    sh.forEach((k, v) -> frozen.put(k, Collections.unmodifiableMap(v)));
    return new AllocatedState(Set.copyOf(ex), Collections.unmodifiableMap(frozen));
  }

  /** Devices allocated exclusively to some claim. */
  public Set<DeviceKey> exclusivelyAllocated() {
    return exclusive;
  }

  /** Devices with at least one shared allocation. */
  public Set<DeviceKey> shared() {
    return shared.keySet();
  }

  /** Whether the device is allocated in any way (its counters are then consumed). */
  public boolean inUse(DeviceKey key) {
    return exclusive.contains(key) || shared.containsKey(key);
  }

  /**
   * The capacity that shares of this device already consume, by fully qualified capacity name;
   * empty when none.
   */
  public Map<String, Quantity> consumedCapacity(DeviceKey key) {
    return shared.getOrDefault(key, Map.of());
  }

  /** {@code name} with the driver as domain when it has none. */
  static String qualify(String driver, String name) {
    return name.indexOf('/') >= 0 ? name : driver + "/" + name;
  }

  @Override
  public String toString() {
    return "AllocatedState[exclusive=" + exclusive + ", shared=" + shared + "]";
  }
}
