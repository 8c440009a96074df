package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import java.util.Optional;

/**
 * A taint on a device (KEP-5055). Drivers taint devices they know to be unhealthy instead of
 * removing them, and clear the taint when the device recovers.
 *
 * @param key label-name syntax; keep it in the driver's own domain
 * @param value optional label value, at most 63 characters; empty when absent
 * @param effect what the taint does
 * @param timeAdded RFC 3339 time the API server fills in when absent
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DeviceTaint(
    String key, String value, TaintEffect effect, Optional<String> timeAdded) {

  @JsonCreator
  public DeviceTaint(
      @JsonProperty("key") String key,
      @JsonProperty("value") String value,
      @JsonProperty("effect") TaintEffect effect,
      @JsonProperty("timeAdded") Optional<String> timeAdded) {
    this.key = Objects.requireNonNull(key, "taint key");
    this.value = value == null ? "" : value;
    this.effect = Objects.requireNonNull(effect, "taint effect");
    this.timeAdded = timeAdded == null ? Optional.empty() : timeAdded;
  }

  public static DeviceTaint of(String key, String value, TaintEffect effect) {
    return new DeviceTaint(key, value, effect, Optional.empty());
  }

  /** Same key, value and effect; the server-set time is not part of a taint's identity. */
  public boolean sameAs(DeviceTaint other) {
    return key.equals(other.key) && value.equals(other.value) && effect == other.effect;
  }
}
