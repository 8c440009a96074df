package io.dra4j.api.provider;

import java.util.List;

/**
 * Capability: the provider accepts typed opaque configuration. For each allocated device the
 * runtime picks the applicable configs of this driver (class configs first, then claim configs; the
 * later one wins), decodes it into one of {@link #configTypes()}, runs {@link #validate} and hands
 * it over in {@link io.dra4j.api.claim.AllocatedDevice#config(Class)}.
 */
public interface TypedConfig {

  /** The accepted types; the first one is the default when a device has no config. */
  List<ConfigType<?>> configTypes();

  /**
   * Checks a decoded config beyond its syntax (e.g. a sharing mode that is not supported yet).
   *
   * @throws IllegalArgumentException with a message naming the field and the rule
   */
  default void validate(Object config) {}
}
