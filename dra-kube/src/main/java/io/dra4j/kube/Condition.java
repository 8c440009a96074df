package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A metav1.Condition with every field (the dra-api {@link io.dra4j.api.status.Condition} leaves the
 * times to the runtime; this is the wire form).
 *
 * @param type CamelCase type, e.g. {@code Ready}
 * @param status {@code True}, {@code False} or {@code Unknown}
 * @param observedGeneration the generation the condition was computed from
 * @param lastTransitionTime RFC 3339, whole seconds
 * @param reason CamelCase reason
 * @param message human-readable detail
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record Condition(
    @JsonInclude(JsonInclude.Include.ALWAYS) String type,
    @JsonInclude(JsonInclude.Include.ALWAYS) String status,
    Optional<Long> observedGeneration,
    @JsonInclude(JsonInclude.Include.ALWAYS) String lastTransitionTime,
    @JsonInclude(JsonInclude.Include.ALWAYS) String reason,
    @JsonInclude(JsonInclude.Include.ALWAYS) String message,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public Condition {
    type = Objects.requireNonNull(type, "condition type");
    status = Norm.str(status);
    observedGeneration = Norm.opt(observedGeneration);
    lastTransitionTime = Norm.str(lastTransitionTime);
    reason = Norm.str(reason);
    message = Norm.str(message);
    unknownFields = Norm.unknown(unknownFields);
  }

  /** The wire form of a driver's condition, stamped with {@code now} (truncated to seconds). */
  public static Condition from(io.dra4j.api.status.Condition c, Instant now) {
    return new Condition(
        c.type(),
        c.status(),
        Optional.empty(),
        now.truncatedTo(ChronoUnit.SECONDS).toString(),
        c.reason(),
        c.message(),
        null);
  }
}
