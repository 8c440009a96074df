package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.Objects;

/** One counter of a counter set, or the amount of it a device consumes. */
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class Counter {
  private final Quantity value;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private Counter(
      @JsonProperty("value") Quantity value, @JsonAnySetter Map<String, Object> unknownFields) {
    this.value = Objects.requireNonNull(value, "counter value");
    this.unknownFields = Maps.sorted(unknownFields);
  }

  public static Counter of(Quantity value) {
    return new Counter(value, Map.of());
  }

  public Quantity value() {
    return value;
  }

  /**
   * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
   * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
   * from the one a driver publishes.
   */
  public Map<String, Object> unknownFields() {
    return unknownFields;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Counter c && value.equals(c.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(value);
  }

  @Override
  public String toString() {
    return "Counter[value=" + value + Maps.unknown(unknownFields) + "]";
  }
}
