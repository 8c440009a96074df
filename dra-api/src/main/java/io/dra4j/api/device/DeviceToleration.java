package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A toleration from a claim request, copied by the scheduler into the allocation result: the
 * resource.k8s.io/v1 {@code DeviceToleration}. Operators and effects keep the spelling they were
 * read with, so values of a newer Kubernetes survive a read and a write.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class DeviceToleration {
  /** The operator that compares values (the default). */
  public static final String EQUAL = "Equal";

  /** The operator that matches any value. */
  public static final String EXISTS = "Exists";

  private final String key;
  private final String operator;
  private final String value;

  @JsonProperty("effect")
  private final String effectName;

  private final Optional<Long> tolerationSeconds;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private DeviceToleration(
      @JsonProperty("key") String key,
      @JsonProperty("operator") String operator,
      @JsonProperty("value") String value,
      @JsonProperty("effect") String effectName,
      @JsonProperty("tolerationSeconds") Optional<Long> tolerationSeconds,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.key = key == null ? "" : key;
    this.operator = operator == null || operator.isEmpty() ? EQUAL : operator;
    this.value = value == null ? "" : value;
    this.effectName = effectName == null ? "" : effectName;
    this.tolerationSeconds = Maps.optional(tolerationSeconds);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /** A builder; without settings the toleration matches the taints with an empty key and value. */
  public static Builder builder() {
    return new Builder();
  }

  /** Empty means "every key" (with operator {@code Exists}). */
  public String key() {
    return key;
  }

  /** {@code Equal} (the default) or {@code Exists}, or an operator of a newer Kubernetes. */
  public String operator() {
    return operator;
  }

  /** Compared with the taint's value by {@code Equal}. */
  public String value() {
    return value;
  }

  /**
   * The effect this toleration is limited to: empty when it tolerates every effect, and also when
   * it names one this version does not know ({@link #effectName()} has it).
   */
  public Optional<TaintEffect> effect() {
    return TaintEffect.find(effectName);
  }

  /** The effect as the API spells it; empty means every effect. */
  public String effectName() {
    return effectName;
  }

  /** For NoExecute only. */
  public Optional<Long> tolerationSeconds() {
    return tolerationSeconds;
  }

  /**
   * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
   * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
   * from the one a driver publishes.
   */
  public Map<String, Object> unknownFields() {
    return unknownFields;
  }

  /**
   * Whether this toleration tolerates the taint, by the rules of {@code ToleratesTaint}
   * (k8s.io/dynamic-resource-allocation v0.37.2, resourceclaim/devicetoleration.go): effects and
   * keys compare as spelled, an empty one matching all; an operator this version does not know
   * tolerates nothing. Whether the taint's effect matters at all is the caller's question.
   */
  public boolean tolerates(DeviceTaint taint) {
    if (!effectName.isEmpty() && !effectName.equals(taint.effectName())) {
      return false;
    }
    if (!key.isEmpty() && !key.equals(taint.key())) {
      return false;
    }
    return switch (operator) {
      case EQUAL -> value.equals(taint.value());
      case EXISTS -> true;
      default -> false;
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceToleration t
        && key.equals(t.key)
        && operator.equals(t.operator)
        && value.equals(t.value)
        && effectName.equals(t.effectName)
        && tolerationSeconds.equals(t.tolerationSeconds);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, operator, value, effectName, tolerationSeconds);
  }

  @Override
  public String toString() {
    return "DeviceToleration[key="
        + key
        + ", operator="
        + operator
        + ", value="
        + value
        + ", effect="
        + effectName
        + ", tolerationSeconds="
        + tolerationSeconds
        + Maps.unknown(unknownFields)
        + "]";
  }

  /** Builds a {@link DeviceToleration}: operator {@code Equal}, every effect unless said. */
  public static final class Builder {
    private String key = "";
    private String operator = EQUAL;
    private String value = "";
    private String effectName = "";
    private Optional<Long> tolerationSeconds = Optional.empty();

    private Builder() {}

    public Builder key(String v) {
      key = Objects.requireNonNull(v, "key");
      return this;
    }

    /** {@link #EQUAL} or {@link #EXISTS}. */
    public Builder operator(String v) {
      operator = Objects.requireNonNull(v, "operator");
      return this;
    }

    public Builder value(String v) {
      value = Objects.requireNonNull(v, "value");
      return this;
    }

    public Builder effect(TaintEffect v) {
      effectName = v.apiName();
      return this;
    }

    public Builder tolerationSeconds(long v) {
      tolerationSeconds = Optional.of(v);
      return this;
    }

    public DeviceToleration build() {
      return new DeviceToleration(key, operator, value, effectName, tolerationSeconds, Map.of());
    }
  }
}
