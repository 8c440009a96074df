package io.dra4j.validation;

import io.dra4j.api.provider.Pool;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The outcome of validating one desired pool. A pool with errors must not be published (the API
 * server would reject at least one of its slices, leaving the pool incomplete); warnings are legal
 * but probably unintended and should be logged.
 *
 * @param driver the driver name the pool was checked for
 * @param pool the pool as given
 * @param errors every broken rule, in a stable order
 * @param warnings accepted by the API server, but suspicious
 */
public record PoolValidation(
    String driver, Pool pool, List<Violation> errors, List<Violation> warnings) {
  public PoolValidation {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(pool, "pool");
    errors = List.copyOf(errors);
    warnings = List.copyOf(warnings);
  }

  /** Whether the pool can be published. */
  public boolean isValid() {
    return errors.isEmpty();
  }

  /** The pool name. */
  public String poolName() {
    return pool.name();
  }

  /** All errors, one per line, for a log message or an exception. */
  public String errorReport() {
    return errors.stream().map(Violation::toString).collect(Collectors.joining("\n"));
  }
}
