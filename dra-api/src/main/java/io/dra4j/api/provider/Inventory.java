package io.dra4j.api.provider;

import io.dra4j.api.device.Device;
import java.util.List;
import java.util.Objects;

/** Everything a provider found: its pools. Publishing it is the runtime's job. */
public final class Inventory {
  private final List<Pool> pools;

  private Inventory(List<Pool> pools) {
    this.pools = List.copyOf(pools);
  }

  public static Inventory of(Pool... pools) {
    return new Inventory(List.of(pools));
  }

  /** These pools; names are unique. */
  public static Inventory of(List<Pool> pools) {
    return new Inventory(pools);
  }

  /** One node-local pool named after the node. */
  public static Inventory nodeLocal(ProviderContext context, List<Device> devices) {
    return of(Pool.of(context.nodeName(), devices));
  }

  /** No devices. */
  public static Inventory empty() {
    return new Inventory(List.of());
  }

  /** The pools; names are unique. */
  public List<Pool> pools() {
    return pools;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Inventory i && pools.equals(i.pools);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pools);
  }

  @Override
  public String toString() {
    return "Inventory[pools=" + pools + "]";
  }
}
