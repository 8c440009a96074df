package io.dra4j.kube.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.KubeJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each kind of decoding failure, worded as a person reads it: field path, expectation, finding. */
class FailuresTest {

  static final ObjectMapper STRICT =
      KubeJson.configure(new ObjectMapper())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  enum Plain {
    ONE,
    TWO
  }

  enum Mode {
    FAST("Fast"),
    SLOW("Slow");

    private final String json;

    Mode(String json) {
      this.json = json;
    }

    @JsonValue
    public String json() {
      return json;
    }

    @JsonCreator
    public static Mode parse(String s) {
      for (Mode m : values()) {
        if (m.json.equals(s)) {
          return m;
        }
      }
      throw new IllegalArgumentException("mode: \"" + s + "\" must be one of Fast, Slow");
    }
  }

  record Limits(int count, Quantity memory) {}

  record Config(
      String name,
      int replicas,
      boolean enabled,
      Plain plain,
      Mode mode,
      Map<String, String> env,
      List<Limits> limits) {}

  static String error(String json) {
    Throwable t = catchThrowable(() -> STRICT.readValue(json, Config.class));
    assertThat(t).as("decoding %s must fail", json).isNotNull();
    return Failures.describe(t);
  }

  static String yamlError(String yaml) {
    Throwable t = catchThrowable(() -> KubeJson.yaml().readTree(yaml));
    assertThat(t).as("parsing %s must fail", yaml).isNotNull();
    return Failures.describe(t);
  }

  @Test
  void unknownFieldListsTheKnownOnes() {
    assertThat(error("{\"nmae\": \"x\"}"))
        .isEqualTo(
            "unknown field \"nmae\" (known fields: enabled, env, limits, mode, name, plain,"
                + " replicas)");
    assertThat(error("{\"limits\": [{\"count\": 1}, {\"cnt\": 2}]}"))
        .startsWith("unknown field \"limits[1].cnt\" (known fields: count, memory)");
  }

  @Test
  void wrongTypesSayWhatWasExpectedAndFound() {
    assertThat(error("{\"name\": {\"a\": 1}}"))
        .isEqualTo("field \"name\": expected a string, found an object");
    assertThat(error("{\"env\": \"A=1\"}"))
        .isEqualTo("field \"env\": expected an object, found the string \"A=1\"");
    assertThat(error("{\"env\": {\"A\": [1]}}"))
        .isEqualTo("field \"env.A\": expected a string, found an array");
    assertThat(error("{\"replicas\": \"many\"}"))
        .isEqualTo("field \"replicas\": \"many\" is not an integer");
    assertThat(error("{\"limits\": {\"count\": 1}}"))
        .isEqualTo("field \"limits\": expected an array, found an object");
    assertThat(error("{\"limits\": [{\"count\": true}]}"))
        .isEqualTo("field \"limits[0].count\": expected an integer, found true");
    assertThat(error("{\"mode\": [\"Fast\"]}"))
        .isEqualTo("field \"mode\": expected one of Fast, Slow, found an array");
  }

  @Test
  void badEnumValuesListTheAllowedOnes() {
    assertThat(error("{\"plain\": \"THREE\"}"))
        .isEqualTo("field \"plain\": \"THREE\" is not one of ONE, TWO");
    // The type's own rule, without repeating the field the path names.
    assertThat(error("{\"mode\": \"Medium\"}"))
        .isEqualTo("field \"mode\": \"Medium\" must be one of Fast, Slow");
  }

  @Test
  void badQuantityGivesTheQuantityRule() {
    String e = error("{\"limits\": [{\"memory\": \"12 apples\"}]}");
    assertThat(e).startsWith("field \"limits[0].memory\": ").doesNotContain("`", "Exception");
  }

  @Test
  void syntaxErrorsGiveLineAndColumn() {
    assertThat(error("{\"name\": \"x\",\n }"))
        .isEqualTo("not valid JSON at line 2, column 2: unexpected character '}'");
    assertThat(error("{\"name\": \"x\"")).startsWith("not valid JSON at line 1");
    assertThat(error("{\"name\": \"x\"")).endsWith(": the document ends too early");
    assertThat(yamlError("a: [1, 2\nb: 3\n"))
        .startsWith("not valid YAML at line ")
        .doesNotContain("`", "Exception", "JsonToken");
  }

  @Test
  void noJavaNamesOrTokensInAnyMessage() {
    for (String json :
        List.of(
            "{\"name\": {\"a\": 1}}",
            "{\"env\": \"A=1\"}",
            "{\"limits\": [1]}",
            "{\"enabled\": \"yes\"}",
            "[]",
            "\"x\"",
            "{\"plain\": 3}")) {
      assertThat(error(json))
          .as(json)
          .doesNotContain("`", "java.", "io.dra4j", "JsonToken", "Exception", "START_");
    }
  }
}
