package io.dra4j.api.device;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The value of one device attribute: exactly one of int, bool, string, version, or (Kubernetes
 * 1.36+, gate DRAListTypeAttributes) a non-empty list of one of those.
 *
 * <p>Serializes to the API form, e.g. {@code {"string": "gpu"}} or {@code {"ints": [0, 1]}}. A
 * value of a kind a newer Kubernetes adds reads (with dra4j's Kubernetes JSON codec) as an {@link
 * UnknownValue} that keeps its fields, so that a read and a write lose nothing; the annotations'
 * subtype deduction, for other mappers, knows only the kinds below.
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
public sealed interface DeviceAttribute
    permits DeviceAttribute.IntValue,
        DeviceAttribute.BoolValue,
        DeviceAttribute.StringValue,
        DeviceAttribute.VersionValue,
        DeviceAttribute.IntValues,
        DeviceAttribute.BoolValues,
        DeviceAttribute.StringValues,
        DeviceAttribute.VersionValues,
        DeviceAttribute.UnknownValue {

  /**
   * The Java value: Long, Boolean, String, or a List of those (CEL sees these); for an {@link
   * UnknownValue}, its fields.
   */
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

  @FeatureGate(name = "DRAListTypeAttributes", stage = ALPHA)
  static DeviceAttribute ofInts(List<Long> values) {
    return new IntValues(values);
  }

  @FeatureGate(name = "DRAListTypeAttributes", stage = ALPHA)
  static DeviceAttribute ofStrings(List<String> values) {
    return new StringValues(values);
  }

  /**
   * A value of a kind this version does not know, as read from the API: its fields (normally one)
   * with their JSON values. Only a codec reading a newer Kubernetes's objects makes one.
   */
  static DeviceAttribute unknownKind(Map<String, Object> fields) {
    return new UnknownValue(fields);
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
  @FeatureGate(name = "DRAListTypeAttributes", stage = ALPHA)
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
  @FeatureGate(name = "DRAListTypeAttributes", stage = ALPHA)
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
  @FeatureGate(name = "DRAListTypeAttributes", stage = ALPHA)
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
  @FeatureGate(name = "DRAListTypeAttributes", stage = ALPHA)
  record VersionValues(@JsonProperty("versions") List<String> value) implements DeviceAttribute {
    public VersionValues {
      value = List.copyOf(value);
    }

    @Override
    public Object javaValue() {
      return value;
    }
  }

  /**
   * A value of a kind a newer Kubernetes added, kept as read: its fields and their JSON values. The
   * runtime's validation warns about one and sends it as is; dra4j's CEL view leaves such an
   * attribute out, as if the device did not have it.
   */
  final class UnknownValue implements DeviceAttribute {
    private final Map<String, Object> fields;

    private UnknownValue(Map<String, Object> fields) {
      if (fields.isEmpty()) {
        throw new IllegalArgumentException("a device attribute of an unknown kind has no field");
      }
      this.fields = Maps.sorted(fields);
    }

    /** The fields as read, e.g. {@code {"quantity": "1Gi"}}. */
    public Map<String, Object> fields() {
      return fields;
    }

    @Override
    public Object javaValue() {
      return fields;
    }

    @Override
    public boolean listForm() {
      return false;
    }

    @Override
    public int valueCount() {
      return 1;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof UnknownValue u && fields.equals(u.fields);
    }

    @Override
    public int hashCode() {
      return fields.hashCode();
    }

    @Override
    public String toString() {
      return "UnknownValue[fields=" + fields + "]";
    }
  }
}
