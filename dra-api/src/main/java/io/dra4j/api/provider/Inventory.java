package io.dra4j.api.provider;

import io.dra4j.api.device.Device;
import java.util.List;

/**
 * Everything a provider found: its pools. Publishing it is the runtime's job.
 *
 * @param pools the pools; names are unique
 */
public record Inventory(List<Pool> pools) {
  public Inventory {
    pools = List.copyOf(pools);
  }

  public static Inventory of(Pool... pools) {
    return new Inventory(List.of(pools));
  }

  /** One node-local pool named after the node. */
  public static Inventory nodeLocal(ProviderContext context, List<Device> devices) {
    return of(Pool.of(context.nodeName(), devices));
  }

  /** No devices. */
  public static Inventory empty() {
    return new Inventory(List.of());
  }
}
