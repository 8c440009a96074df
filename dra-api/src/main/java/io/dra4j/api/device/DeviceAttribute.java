package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Objects;

/**
 * The value of one device attribute: exactly one of int, bool, string, version, or (Kubernetes
 * 1.36+, gate DRAListTypeAttributes) a non-empty list of one of those.
 *
 * <p>Serializes to the API form, e.g. {@code {"string": "gpu"}} or {@code {"ints": [0, 1]}}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.DEDUCTION)
@JsonSubTypes({
  @JsonSubTypes.Type(DeviceAttribute.IntValue.class),
  @JsonSubTypes.Type(DeviceAttribute.BoolValue.class),
  @JsonSubTypes.Type(DeviceAttribute.StringValue.class),
  @JsonSubTypes.Type(DeviceAttribute.VersionValue.class),
  @JsonSubTypes.Type(DeviceAttribute.IntValues.class),
  @JsonSubTypes.Type(DeviceAttribute.BoolValues.class),
  @JsonSubTypes.Type(DeviceAttribute.StringValues.class),
  @JsonSubTypes.Type(DeviceAttribute.VersionValues.class)
})
public sealed interface DeviceAttribute {

  /** The Java value: Long, Boolean, String, or a List of those (CEL sees these). */
  Object javaValue();

  /** Whether this is one of the list forms (they count toward the 64-device slice limit). */
  default boolean listForm() {
    return javaValue() instanceof List<?>;
  }

  /** Number of values: 1 for a scalar, the list size otherwise (the API caps the sum at 48). */
  default int valueCount() {
    return javaValue() instanceof List<?> l ? l.size() : 1;
  }

  static DeviceAttribute of(long value) {
    return new IntValue(value);
  }

  static DeviceAttribute of(boolean value) {
    return new BoolValue(value);
  }

  static DeviceAttribute of(String value) {
    return new StringValue(value);
  }

  /** A semantic version such as {@code 12.4.0}. */
  static DeviceAttribute version(String semver) {
    return new VersionValue(semver);
  }

  static DeviceAttribute ofInts(List<Long> values) {
    return new IntValues(values);
  }

  static DeviceAttribute ofStrings(List<String> values) {
    return new StringValues(values);
  }

  /** {@code {"int": n}}. */
  record IntValue(@JsonProperty("int") long value) implements DeviceAttribute {
    @Override
    public Object javaValue() {
      return value;
    }
  }

  /** {@code {"bool": b}}. */
  record BoolValue(@JsonProperty("bool") boolean value) implements DeviceAttribute {
    @Override
    public Object javaValue() {
      return value;
    }
  }

  /** {@code {"string": s}}, at most 64 bytes. */
  record StringValue(@JsonProperty("string") String value) implements DeviceAttribute {
    public StringValue {
      Objects.requireNonNull(value, "string attribute value");
    }

    @Override
    public Object javaValue() {
      return value;
    }
  }

  /** {@code {"version": v}}, a strict semantic version of at most 64 bytes. */
  record VersionValue(@JsonProperty("version") String value) implements DeviceAttribute {
    public VersionValue {
      Objects.requireNonNull(value, "version attribute value");
    }

    @Override
    public Object javaValue() {
      return value;
    }
  }

  /** {@code {"ints": [...]}}. */
  record IntValues(@JsonProperty("ints") List<Long> value) implements DeviceAttribute {
    public IntValues {
      value = List.copyOf(value);
    }

    @Override
    public Object javaValue() {
      return value;
    }
  }

  /** {@code {"bools": [...]}}. */
  record BoolValues(@JsonProperty("bools") List<Boolean> value) implements DeviceAttribute {
    public BoolValues {
      value = List.copyOf(value);
    }

    @Override
    public Object javaValue() {
      return value;
    }
  }

  /** {@code {"strings": [...]}}. */
  record StringValues(@JsonProperty("strings") List<String> value) implements DeviceAttribute {
    public StringValues {
      value = List.copyOf(value);
    }

    @Override
    public Object javaValue() {
      return value;
    }
  }

  /** {@code {"versions": [...]}}. */
  record VersionValues(@JsonProperty("versions") List<String> value) implements DeviceAttribute {
    public VersionValues {
      value = List.copyOf(value);
    }

    @Override
    public Object javaValue() {
      return value;
    }
  }
}
