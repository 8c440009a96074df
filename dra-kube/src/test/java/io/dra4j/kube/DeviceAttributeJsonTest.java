package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.device.DeviceAttribute;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The wire form of an attribute through {@link KubeJson}: one field named after its type, in both
 * directions, the same as the annotations' deduction gives a plain mapper.
 */
class DeviceAttributeJsonTest {
  private static final ObjectMapper JSON = KubeJson.mapper();
  private static final ObjectMapper PLAIN = new ObjectMapper();

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"int\":-7}",
        "{\"bool\":true}",
        "{\"string\":\"gpu\"}",
        "{\"version\":\"1.2.3\"}",
        "{\"ints\":[0,9223372036854775807]}",
        "{\"bools\":[false,true]}",
        "{\"strings\":[\"a\",\"\"]}",
        "{\"versions\":[\"1.0.0\",\"2.0.0-rc.1\"]}"
      })
  void everyFormReadsAndWritesBackTheSame(String json) throws Exception {
    DeviceAttribute a = JSON.readValue(json, DeviceAttribute.class);
    assertThat(JSON.writeValueAsString(a)).isEqualTo(json);
    // dra-api's annotations, all a plain mapper has, agree
    assertThat(PLAIN.readValue(json, DeviceAttribute.class)).isEqualTo(a);
    assertThat(PLAIN.writeValueAsString(a)).isEqualTo(json);
  }

  @Test
  void eachFormIsItsOwnType() throws Exception {
    Map<String, DeviceAttribute> read =
        JSON.readValue(
            "{\"a\":{\"int\":1},\"b\":{\"bool\":false},\"c\":{\"string\":\"x\"},"
                + "\"d\":{\"version\":\"1.0.0\"},\"e\":{\"ints\":[1]},\"f\":{\"bools\":[true]},"
                + "\"g\":{\"strings\":[\"y\"]},\"h\":{\"versions\":[\"2.0.0\"]}}",
            new TypeReference<Map<String, DeviceAttribute>>() {});
    assertThat(read)
        .containsEntry("a", DeviceAttribute.of(1))
        .containsEntry("b", DeviceAttribute.of(false))
        .containsEntry("c", DeviceAttribute.of("x"))
        .containsEntry("d", DeviceAttribute.version("1.0.0"))
        .containsEntry("e", DeviceAttribute.ofInts(List.of(1L)))
        .containsEntry("f", new DeviceAttribute.BoolValues(List.of(true)))
        .containsEntry("g", DeviceAttribute.ofStrings(List.of("y")))
        .containsEntry("h", new DeviceAttribute.VersionValues(List.of("2.0.0")));
  }

  @Test
  void aRecordWrittenOnItsOwnKeepsTheWireForm() throws Exception {
    assertThat(JSON.writeValueAsString(new DeviceAttribute.StringValue("x")))
        .isEqualTo("{\"string\":\"x\"}");
  }

  @Test
  void fieldsThatAreNoValueAreIgnoredWhereverTheyAre() throws Exception {
    assertThat(
            JSON.readValue(
                "{\"future\":{\"a\":[1,{}]},\"int\":3,\"note\":\"x\"}", DeviceAttribute.class))
        .isEqualTo(DeviceAttribute.of(3));
  }

  @Test
  void aValueOfAKindANewerKubernetesAddsIsKeptAndWrittenBack() throws Exception {
    // A kind this version does not know (as "ints" was before 1.36): the read succeeds and a
    // write gives back what was read, so a slice or claim holding it still decodes.
    String json = "{\"quantity\":\"1Gi\",\"note\":{\"a\":[1,true]}}";
    DeviceAttribute a = JSON.readValue(json, DeviceAttribute.class);
    assertThat(a).isInstanceOf(DeviceAttribute.UnknownValue.class);
    assertThat(((DeviceAttribute.UnknownValue) a).fields()).containsOnlyKeys("quantity", "note");
    assertThat(a.listForm()).isFalse();
    assertThat(JSON.readTree(JSON.writeValueAsString(a))).isEqualTo(JSON.readTree(json));
  }

  @Test
  void valuesOfAnotherJsonTypeFollowJacksonsCoercion() throws Exception {
    assertThat(JSON.readValue("{\"int\":\"12\"}", DeviceAttribute.class))
        .isEqualTo(DeviceAttribute.of(12));
    assertThatThrownBy(() -> JSON.readValue("{\"int\":\"twelve\"}", DeviceAttribute.class))
        .isInstanceOf(JsonMappingException.class)
        .hasMessageContaining("twelve");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"int\":1,\"string\":\"x\"}|has \"int\" and \"string\"",
        "{}|needs one of int, bool, string, version, ints, bools, strings or versions",
        "{\"string\":null}|\"string\" must not be null",
        "{\"int\":null}|\"int\" must not be null",
        "{\"ints\":null}|\"ints\" must not be null",
        "{\"strings\":[\"a\",null]}|\"strings\" must not hold null",
        "\"gpu\"|a device attribute is an object with one of int"
      })
  void badAttributesFailNamingTheRule(String json, String message) {
    assertThatThrownBy(() -> JSON.readValue(json, DeviceAttribute.class))
        .isInstanceOf(JsonMappingException.class)
        .hasMessageContaining(message);
  }
}
