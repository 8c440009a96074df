package io.dra4j.kube;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.type.TypeFactory;
import io.dra4j.api.device.DeviceAttribute;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The wire form of a {@link DeviceAttribute} for {@link KubeJson}: an object with exactly one of
 * {@code int}, {@code bool}, {@code string}, {@code version}, {@code ints}, {@code bools}, {@code
 * strings}, {@code versions}. The same form as the subtype deduction dra-api declares with
 * annotations (any mapper can read and write it), done by hand here because a slice holds thousands
 * of attributes: deduction buffered every attribute and went through a record creator, half of the
 * time it took to read a published slice back. Unlike deduction it refuses a null value instead of
 * reading it as 0 or false, and it reads a value of a kind a newer Kubernetes adds as a {@link
 * DeviceAttribute.UnknownValue} that writes back as it was read, instead of failing the whole
 * object (and with it a list or a watch).
 */
final class DeviceAttributeJson {
  private DeviceAttributeJson() {}

  /** The module that puts the codec in place of the annotations' deduction. */
  static SimpleModule module() {
    return new SimpleModule("dra4j-device-attribute")
        .addSerializer(DeviceAttribute.class, new Writer())
        .addDeserializer(DeviceAttribute.class, new Reader());
  }

  private static final String FIELDS =
      "int, bool, string, version, ints, bools, strings or versions";
  private static final JavaType LONGS = listOf(Long.class);
  private static final JavaType BOOLEANS = listOf(Boolean.class);
  private static final JavaType STRINGS = listOf(String.class);

  private static JavaType listOf(Class<?> element) {
    return TypeFactory.defaultInstance().constructCollectionType(List.class, element);
  }

  /** Reads one attribute; other fields are ignored, like every unknown field. */
  static final class Reader extends StdDeserializer<DeviceAttribute> {
    Reader() {
      super(DeviceAttribute.class);
    }

    @Override
    public DeviceAttribute deserialize(JsonParser p, DeserializationContext ctxt)
        throws IOException {
      String field;
      if (p.isExpectedStartObjectToken()) {
        field = p.nextFieldName();
      } else if (p.hasToken(JsonToken.FIELD_NAME)) {
        field = p.currentName();
      } else {
        return (DeviceAttribute)
            ctxt.handleUnexpectedToken(
                DeviceAttribute.class,
                p.currentToken(),
                p,
                "a device attribute is an object with one of " + FIELDS);
      }
      DeviceAttribute found = null;
      String foundField = "";
      Map<String, Object> unknown = new LinkedHashMap<>();
      for (; field != null; field = p.nextFieldName()) {
        p.nextToken();
        DeviceAttribute value = value(field, p, ctxt);
        if (value == null) {
          unknown.put(field, ctxt.readValue(p, Object.class));
          continue;
        }
        if (found != null) {
          throw JsonMappingException.from(
              p,
              "a device attribute has exactly one value, this one has \""
                  + foundField
                  + "\" and \""
                  + field
                  + "\"");
        }
        found = value;
        foundField = field;
      }
      if (found == null) {
        if (unknown.isEmpty()) {
          throw JsonMappingException.from(p, "a device attribute needs one of " + FIELDS);
        }
        // A kind of value this version does not know: kept, so that writing it back loses nothing.
        return DeviceAttribute.unknownKind(unknown);
      }
      return found;
    }

    /** The annotations declare a type deduction; this reader does it without buffering. */
    @Override
    public Object deserializeWithType(
        JsonParser p, DeserializationContext ctxt, TypeDeserializer typeDeserializer)
        throws IOException {
      return deserialize(p, ctxt);
    }

    /** The attribute a known field makes, or null for a field that is not an attribute value. */
    private static DeviceAttribute value(String field, JsonParser p, DeserializationContext ctxt)
        throws IOException {
      return switch (field) {
        case "int" -> make(p, field, ctxt, Long.class, DeviceAttribute.IntValue::new);
        case "bool" -> make(p, field, ctxt, Boolean.class, DeviceAttribute.BoolValue::new);
        case "string" -> make(p, field, ctxt, String.class, DeviceAttribute.StringValue::new);
        case "version" -> make(p, field, ctxt, String.class, DeviceAttribute.VersionValue::new);
        case "ints" -> makeList(p, field, ctxt, LONGS, DeviceAttribute.IntValues::new);
        case "bools" -> makeList(p, field, ctxt, BOOLEANS, DeviceAttribute.BoolValues::new);
        case "strings" -> makeList(p, field, ctxt, STRINGS, DeviceAttribute.StringValues::new);
        case "versions" -> makeList(p, field, ctxt, STRINGS, DeviceAttribute.VersionValues::new);
        default -> null;
      };
    }

    private static <V> DeviceAttribute make(
        JsonParser p,
        String field,
        DeserializationContext ctxt,
        Class<V> type,
        Function<V, DeviceAttribute> constructor)
        throws IOException {
      V value;
      // The common tokens directly; anything else through Jackson's own coercion rules.
      if (type == String.class && p.hasToken(JsonToken.VALUE_STRING)) {
        value = type.cast(p.getText());
      } else if (type == Long.class && p.hasToken(JsonToken.VALUE_NUMBER_INT)) {
        value = type.cast(p.getLongValue());
      } else if (type == Boolean.class && p.currentToken().isBoolean()) {
        value = type.cast(p.getBooleanValue());
      } else {
        value = notNull(p, field, ctxt.readValue(p, type));
      }
      return construct(p, field, constructor, value);
    }

    private static <V> DeviceAttribute makeList(
        JsonParser p,
        String field,
        DeserializationContext ctxt,
        JavaType type,
        Function<List<V>, DeviceAttribute> constructor)
        throws IOException {
      List<V> values = notNull(p, field, ctxt.readValue(p, type));
      if (values.contains(null)) {
        throw JsonMappingException.from(
            p, "the device attribute's \"" + field + "\" must not hold null");
      }
      return construct(p, field, constructor, values);
    }

    private static <T> T notNull(JsonParser p, String field, T value) throws IOException {
      if (value == null) {
        throw JsonMappingException.from(
            p, "the device attribute's \"" + field + "\" must not be null");
      }
      return value;
    }

    private static <V> DeviceAttribute construct(
        JsonParser p, String field, Function<V, DeviceAttribute> constructor, V value)
        throws IOException {
      try {
        return constructor.apply(value);
      } catch (RuntimeException e) {
        throw JsonMappingException.from(
            p, "the device attribute's \"" + field + "\": " + e.getMessage(), e);
      }
    }
  }

  /** Writes one attribute as its single field. */
  static final class Writer extends StdSerializer<DeviceAttribute> {
    Writer() {
      super(DeviceAttribute.class);
    }

    @Override
    public void serialize(DeviceAttribute value, JsonGenerator g, SerializerProvider provider)
        throws IOException {
      g.writeStartObject();
      if (value instanceof DeviceAttribute.IntValue v) {
        g.writeNumberField("int", v.value());
      } else if (value instanceof DeviceAttribute.BoolValue v) {
        g.writeBooleanField("bool", v.value());
      } else if (value instanceof DeviceAttribute.StringValue v) {
        g.writeStringField("string", v.value());
      } else if (value instanceof DeviceAttribute.VersionValue v) {
        g.writeStringField("version", v.value());
      } else if (value instanceof DeviceAttribute.IntValues v) {
        g.writeArrayFieldStart("ints");
        for (long x : v.value()) {
          g.writeNumber(x);
        }
        g.writeEndArray();
      } else if (value instanceof DeviceAttribute.BoolValues v) {
        g.writeArrayFieldStart("bools");
        for (boolean x : v.value()) {
          g.writeBoolean(x);
        }
        g.writeEndArray();
      } else if (value instanceof DeviceAttribute.StringValues v) {
        strings(g, "strings", v.value());
      } else if (value instanceof DeviceAttribute.VersionValues v) {
        strings(g, "versions", v.value());
      } else if (value instanceof DeviceAttribute.UnknownValue v) {
        for (Map.Entry<String, Object> f : v.fields().entrySet()) {
          g.writeFieldName(f.getKey());
          provider.defaultSerializeValue(f.getValue(), g);
        }
      }
      g.writeEndObject();
    }

    /** Deduction writes no type id: the same single field. */
    @Override
    public void serializeWithType(
        DeviceAttribute value, JsonGenerator g, SerializerProvider provider, TypeSerializer type)
        throws IOException {
      serialize(value, g, provider);
    }

    private static void strings(JsonGenerator g, String field, List<String> values)
        throws IOException {
      g.writeArrayFieldStart(field);
      for (String x : values) {
        g.writeString(x);
      }
      g.writeEndArray();
    }
  }
}
