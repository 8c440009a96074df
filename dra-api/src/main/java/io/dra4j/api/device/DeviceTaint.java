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
 * A taint on a device (KEP-5055): the resource.k8s.io/v1 {@code DeviceTaint}. Drivers taint devices
 * they know to be unhealthy instead of removing them, and clear the taint when the device recovers.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class DeviceTaint {
  private final String key;
  private final String value;

  // Required by the API: always written.
  @JsonProperty("effect")
  @JsonInclude(JsonInclude.Include.ALWAYS)
  private final String effectName;

  private final Optional<String> timeAdded;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private DeviceTaint(
      @JsonProperty("key") String key,
      @JsonProperty("value") String value,
      @JsonProperty("effect") String effectName,
      @JsonProperty("timeAdded") Optional<String> timeAdded,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.key = Objects.requireNonNull(key, "taint key");
    this.value = value == null ? "" : value;
    this.effectName = Objects.requireNonNull(effectName, "taint effect");
    this.timeAdded = Maps.optional(timeAdded);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /**
   * A taint.
   *
   * @param key label-name syntax; keep it in the driver's own domain
   * @param value optional label value, at most 63 characters; empty when absent
   * @param effect what the taint does
   */
  public static DeviceTaint of(String key, String value, TaintEffect effect) {
    return new DeviceTaint(key, value, effect.apiName(), Optional.empty(), Map.of());
  }

  /** This taint with the time it was added (RFC 3339), as the API server sets it when absent. */
  public DeviceTaint withTimeAdded(String value) {
    return new DeviceTaint(key, this.value, effectName, Optional.of(value), unknownFields);
  }

  public String key() {
    return key;
  }

  /** Label value; empty when absent. */
  public String value() {
    return value;
  }

  /**
   * What the taint does: an effect this version does not know (a newer Kubernetes may add some)
   * acts as {@link TaintEffect#NONE}, as the API tells consumers (k8s.io/api v0.37.2
   * resource/v1/types.go, {@code DeviceTaint.Effect}).
   */
  public TaintEffect effect() {
    return TaintEffect.find(effectName).orElse(TaintEffect.NONE);
  }

  /** The effect as the API spells it, unknown ones included. */
  public String effectName() {
    return effectName;
  }

  /** RFC 3339 time the API server fills in when absent. */
  public Optional<String> timeAdded() {
    return timeAdded;
  }

  /**
   * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
   * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
   * from the one a driver publishes.
   */
  public Map<String, Object> unknownFields() {
    return unknownFields;
  }

  /** Same key, value and effect; the server-set time is not part of a taint's identity. */
  public boolean sameAs(DeviceTaint other) {
    return key.equals(other.key)
        && value.equals(other.value)
        && effectName.equals(other.effectName);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceTaint t && sameAs(t) && timeAdded.equals(t.timeAdded);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, value, effectName, timeAdded);
  }

  @Override
  public String toString() {
    return "DeviceTaint[key="
        + key
        + ", value="
        + value
        + ", effect="
        + effectName
        + ", timeAdded="
        + timeAdded
        + Maps.unknown(unknownFields)
        + "]";
  }
}
