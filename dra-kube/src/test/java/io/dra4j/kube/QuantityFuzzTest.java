package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dra4j.api.device.Quantity;
import java.nio.charset.StandardCharsets;

/**
 * Quantity parsing: any text either parses, and then reads back equal from what it prints and from
 * its JSON, or is refused with an IllegalArgumentException that quotes it.
 */
class QuantityFuzzTest {

  @FuzzTest
  void parse(byte[] input) throws Exception {
    String text = new String(input, StandardCharsets.UTF_8);
    Quantity q;
    try {
      q = Quantity.parse(text);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).contains("invalid quantity");
      return;
    }
    assertThat(Quantity.parse(q.toString())).isEqualTo(q);
    String json = KubeJson.mapper().writeValueAsString(q);
    assertThat(KubeJson.mapper().readValue(json, Quantity.class)).isEqualTo(q);
    assertThat(q.compareTo(q.add(Quantity.of(0)))).isZero();
  }
}
