package io.dra4j.doctor;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One verdict of the doctor: how bad, which check, where, and what to do, in one sentence a
 * platform engineer can act on.
 *
 * @param severity error (exit 2), warning (exit 1) or info
 * @param check stable identifier of the check, e.g. {@code supply.conflict}; the JSON schema lists
 *     them all
 * @param node the node it is about, if any
 * @param resource the extended resource name it is about, if any
 * @param object the Kubernetes object it is about ({@code Kind namespace/name}), if any
 * @param message what is wrong and what to do
 */
record Finding(
    Severity severity,
    String check,
    Optional<String> node,
    Optional<String> resource,
    Optional<String> object,
    String message) {

  Finding {
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(object, "object");
    Objects.requireNonNull(message, "message");
  }

  /** How bad a finding is; the worst one decides the exit status. */
  enum Severity {
    INFO(0),
    WARNING(1),
    ERROR(2);

    /** The exit status when this is the worst finding. */
    final int exitCode;

    Severity(int exitCode) {
      this.exitCode = exitCode;
    }

    @JsonValue
    String json() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  static Builder of(Severity severity, String check) {
    return new Builder(severity, check);
  }

  /** Builds a finding; node, resource and object are optional. */
  static final class Builder {
    private final Severity severity;
    private final String check;
    private Optional<String> node = Optional.empty();
    private Optional<String> resource = Optional.empty();
    private Optional<String> object = Optional.empty();

    private Builder(Severity severity, String check) {
      this.severity = severity;
      this.check = check;
    }

    Builder node(String value) {
      node = Optional.of(value);
      return this;
    }

    Builder resource(String value) {
      resource = Optional.of(value);
      return this;
    }

    Builder object(String value) {
      object = Optional.of(value);
      return this;
    }

    Finding message(String text) {
      return new Finding(severity, check, node, resource, object, text);
    }
  }
}
