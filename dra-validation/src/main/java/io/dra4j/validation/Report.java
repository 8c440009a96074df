package io.dra4j.validation;

import io.dra4j.api.provider.Pool;
import io.dra4j.kube.KubeNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Collects violations of one pool. */
final class Report {
  private final String driver;
  private final Pool pool;
  private final List<Violation> errors = new ArrayList<>();
  private final List<Violation> warnings = new ArrayList<>();
  private final Map<String, KeyName> keyNames = new HashMap<>();

  Report(String driver, Pool pool) {
    this.driver = driver;
    this.pool = pool;
  }

  /** What a key's name alone says, worked out once per pool: its devices repeat their keys. */
  KeyName keyName(String name) {
    return keyNames.computeIfAbsent(
        name,
        n -> {
          String domain = KubeNames.domainOf(n);
          return new KeyName(
              Names.qualifiedName(n),
              domain,
              Names.hasUpperCase(domain),
              KubeNames.isKubernetesDomain(domain));
        });
  }

  void error(Optional<String> device, String field, String message) {
    errors.add(new Violation(pool.name(), device, field, message));
  }

  void warn(Optional<String> device, String field, String message) {
    warnings.add(new Violation(pool.name(), device, field, message));
  }

  PoolValidation result() {
    return new PoolValidation(driver, pool, errors, warnings);
  }

  /** The checks of an attribute or capacity name that do not depend on the device. */
  record KeyName(
      List<String> problems, String domain, boolean upperCaseDomain, boolean kubernetesDomain) {}
}
