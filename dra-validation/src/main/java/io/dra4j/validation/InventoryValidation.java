package io.dra4j.validation;

import io.dra4j.api.provider.Pool;
import java.util.List;

/**
 * The outcome of validating all pools of a driver. Each pool stands alone: the publisher publishes
 * the valid ones and skips (and reports) the invalid ones.
 *
 * @param pools one result per input pool, in input order
 */
public record InventoryValidation(List<PoolValidation> pools) {
  public InventoryValidation {
    pools = List.copyOf(pools);
  }

  /** Whether every pool is valid. */
  public boolean isValid() {
    return pools.stream().allMatch(PoolValidation::isValid);
  }

  /** The pools that can be published, in input order. */
  public List<Pool> validPools() {
    return pools.stream().filter(PoolValidation::isValid).map(PoolValidation::pool).toList();
  }

  /** The results of the pools that must not be published. */
  public List<PoolValidation> invalid() {
    return pools.stream().filter(p -> !p.isValid()).toList();
  }
}
