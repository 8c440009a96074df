package io.dra4j.api.provider;

import io.dra4j.api.device.Device;

/**
 * Adds attributes to any provider's devices after discovery, before publishing. spi-numa's
 * enricher, for instance, adds the standardized {@code pcieRoot} and {@code numaNode} to every
 * device that names its PCI address. Enrichers are found with {@link java.util.ServiceLoader}.
 *
 * <p>An enricher must not fail the whole inventory because of one device: handle per-device
 * problems inside {@link #enrich} (log and return the device unchanged). The runtime also catches
 * exceptions per device.
 */
public interface DeviceEnricher {

  /** Called once before the first {@link #enrich}. */
  default void init(ProviderContext context) {}

  /**
   * Returns the device with added attributes (or the same device).
   *
   * @param pool the pool the device is in
   * @param device the device as the provider (and earlier enrichers) produced it
   */
  Device enrich(String pool, Device device);
}
