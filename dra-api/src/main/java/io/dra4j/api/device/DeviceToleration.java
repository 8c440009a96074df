package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Optional;

/**
 * A toleration from a claim request, copied by the scheduler into the allocation result.
 *
 * @param key empty means "every key" (operator Exists)
 * @param operator {@code Equal} (default) or {@code Exists}
 * @param value compared with the taint value for {@code Equal}
 * @param effect empty means every effect
 * @param tolerationSeconds for NoExecute only
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DeviceToleration(
    String key,
    String operator,
    String value,
    Optional<TaintEffect> effect,
    Optional<Long> tolerationSeconds) {

  @JsonCreator
  public DeviceToleration(
      @JsonProperty("key") String key,
      @JsonProperty("operator") String operator,
      @JsonProperty("value") String value,
      @JsonProperty("effect") Optional<TaintEffect> effect,
      @JsonProperty("tolerationSeconds") Optional<Long> tolerationSeconds) {
    this.key = key == null ? "" : key;
    this.operator = operator == null || operator.isEmpty() ? "Equal" : operator;
    this.value = value == null ? "" : value;
    this.effect = effect == null ? Optional.empty() : effect;
    this.tolerationSeconds = tolerationSeconds == null ? Optional.empty() : tolerationSeconds;
  }

  /** Whether this toleration tolerates the taint, by the KEP-5055 matching rules. */
  public boolean tolerates(DeviceTaint taint) {
    if (effect.isPresent() && effect.get() != taint.effect()) {
      return false;
    }
    if (!key.isEmpty() && !key.equals(taint.key())) {
      return false;
    }
    if ("Exists".equals(operator)) {
      return true;
    }
    return value.equals(taint.value());
  }
}
