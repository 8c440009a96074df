package io.dra4j.api.provider;

import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import java.util.List;
import java.util.Objects;

/**
 * A resource pool: the unit the scheduler reasons about. The runtime splits a pool into
 * ResourceSlices within the API limits itself; a provider just lists its devices.
 *
 * @param name one or more DNS subdomains separated by {@code /}; node-local pools are usually named
 *     after the node
 * @param devices devices, in the order the scheduler should prefer them
 * @param counterSets shared counters of partitionable devices
 * @param scope where the devices can be used
 */
public record Pool(
    String name, List<Device> devices, List<CounterSet> counterSets, PoolScope scope) {
  public Pool {
    Objects.requireNonNull(name, "pool name");
    devices = List.copyOf(devices);
    counterSets = List.copyOf(counterSets);
    Objects.requireNonNull(scope, "scope");
  }

  /** A node-local pool without counters. */
  public static Pool of(String name, List<Device> devices) {
    return new Pool(name, devices, List.of(), PoolScope.node());
  }

  public Pool withDevices(List<Device> value) {
    return new Pool(name, value, counterSets, scope);
  }
}
