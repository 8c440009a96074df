package io.dra4j.api.device;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceJsonTest {
  private final ObjectMapper mapper = new ObjectMapper().registerModule(new Jdk8Module());

  @Test
  void serializesToTheKubernetesShape() throws Exception {
    Device d =
        Device.builder("gpu-0")
            .attribute("type", "gpu")
            .attribute("index", 0)
            .attribute("driverVersion", DeviceAttribute.version("550.1.0"))
            .attribute(StandardAttributes.NUMA_NODE, DeviceAttribute.ofInts(List.of(0L, 1L)))
            .capacity("memory", Quantity.ofBytes(80L << 30))
            .taint(DeviceTaint.of("gpu.example.com/unhealthy", "XID79", TaintEffect.NO_SCHEDULE))
            .build();
    JsonNode json = mapper.valueToTree(d);
    assertThat(json.toString())
        .isEqualTo(
            "{\"name\":\"gpu-0\",\"attributes\":{\"driverVersion\":{\"version\":\"550.1.0\"},"
                + "\"index\":{\"int\":0},\"resource.kubernetes.io/numaNode\":{\"ints\":[0,1]},"
                + "\"type\":{\"string\":\"gpu\"}},\"capacity\":{\"memory\":{\"value\":\"80Gi\"}},"
                + "\"taints\":[{\"key\":\"gpu.example.com/unhealthy\",\"value\":\"XID79\","
                + "\"effect\":\"NoSchedule\"}]}");
    assertThat(mapper.treeToValue(json, Device.class)).isEqualTo(d);
  }

  @Test
  void counterConsumptionCarriesCompatibilityGroupsInTheirOrder() throws Exception {
    Device d =
        Device.builder("gpu-0-mig-0")
            .consumesCounters(
                DeviceCounterConsumption.of(
                        "gpu-0-counters", Map.of("memory", Counter.of(Quantity.parse("1Gi"))))
                    .withCompatibilityGroups(List.of("mig", "any")))
            .build();
    JsonNode json = mapper.valueToTree(d);
    assertThat(json.toString())
        .isEqualTo(
            "{\"name\":\"gpu-0-mig-0\",\"consumesCounters\":[{\"counterSet\":\"gpu-0-counters\","
                + "\"counters\":{\"memory\":{\"value\":\"1Gi\"}},"
                + "\"compatibilityGroups\":[\"mig\",\"any\"]}]}");
    assertThat(mapper.treeToValue(json, Device.class)).isEqualTo(d);
    // No groups: the field is left out, as the API server leaves it out.
    DeviceCounterConsumption plain =
        DeviceCounterConsumption.of("s", Map.of("c", Counter.of(Quantity.of(1))));
    assertThat(mapper.valueToTree(plain).has("compatibilityGroups")).isFalse();
    assertThat(mapper.readValue("{\"counterSet\":\"s\"}", DeviceCounterConsumption.class))
        .isEqualTo(DeviceCounterConsumption.of("s", Map.of()));
  }

  @Test
  void keepsFieldsItDoesNotKnow() throws Exception {
    String in =
        "{\"name\":\"d\",\"futureField\":{\"a\":1},\"allowMultipleAllocations\":true,"
            + "\"attributes\":{\"x\":{\"bool\":true}}}";
    Device d = mapper.readValue(in, Device.class);
    assertThat(d.allowMultipleAllocations()).isTrue();
    assertThat(d.unknownFields()).containsKey("futureField");
    assertThat(d.nodeName()).isEmpty();
    assertThat(d.attribute("x")).contains(DeviceAttribute.of(true));
    assertThat(mapper.readTree(mapper.writeValueAsString(d))).isEqualTo(mapper.readTree(in));
  }

  @Test
  void quantitiesCompareByValue() {
    assertThat(Quantity.parse("1024Mi")).isEqualTo(Quantity.parse("1Gi"));
    assertThat(Quantity.parse("1024Mi").hashCode()).isEqualTo(Quantity.parse("1Gi").hashCode());
    assertThat(Quantity.parse("500m")).isEqualTo(Quantity.parse("0.5"));
    assertThat(Quantity.parse("1e3")).isEqualTo(Quantity.parse("1k"));
    assertThat(Quantity.parse("40Gi")).isLessThan(Quantity.parse("80Gi"));
    assertThat(Quantity.ofBytes(1536L << 20).toString()).isEqualTo("1536Mi");
    assertThat(Quantity.parse("1.5").longValue()).isEqualTo(2);
    assertThat(Quantity.parse("1Gi").add(Quantity.parse("512Mi")).toString())
        .isEqualTo("1610612736");
  }

  @Test
  void quantitiesAlsoReadFromBareNumbers() throws Exception {
    assertThat(mapper.readValue("1", Quantity.class)).isEqualTo(Quantity.of(1));
    assertThat(mapper.readValue("0.5", Quantity.class)).isEqualTo(Quantity.parse("500m"));
    assertThat(mapper.readValue("\"2Gi\"", Quantity.class)).isEqualTo(Quantity.ofBytes(2L << 30));
    assertThat(mapper.writeValueAsString(mapper.readValue("1", Quantity.class))).isEqualTo("\"1\"");
  }

  @Test
  void rejectsBadQuantitiesWithTheRule() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Quantity.parse("12 Gi"))
        .hasMessageContaining("invalid quantity \"12 Gi\"");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Quantity.parse("1Gb"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anEmptyNameIsWrittenAndReadsBack() throws Exception {
    // Found by DeviceAttributeFuzzTest: {"name":""} decoded, but the empty name was left out on
    // writing, so the written device no longer decoded.
    Device device = mapper.readValue("{\"name\":\"\"}", Device.class);
    String json = mapper.writeValueAsString(device);
    assertThat(json).isEqualTo("{\"name\":\"\"}");
    assertThat(mapper.readValue(json, Device.class)).isEqualTo(device);
  }

  @Test
  void refusesExponentsBeyondTheBoundNamingTheRule() {
    // Found by QuantityFuzzTest: an exponent too long for an int leaked "For input string".
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Quantity.parse("1e33333333333333333"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "invalid quantity \"1e33333333333333333\": the exponent must be between -64 and 64");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Quantity.parse("1e-65"))
        .hasMessageContaining("the exponent must be between -64 and 64");
    assertThat(Quantity.parse("1e64")).isEqualTo(Quantity.parse("1e64"));
    assertThat(Quantity.parse("2e-3")).isEqualTo(Quantity.parse("2m"));
  }
}
