package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The opaque config type: its JSON shape under strict decoding, and validation. */
class GpuConfigTest {
  // Strict like the runtime: unknown properties are errors.
  private final ObjectMapper strict =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  @Test
  void theTypeIsRegisteredByTheProvider() {
    assertThat(GpuConfig.TYPE.apiVersion()).isEqualTo("gpu.nvidia.com/v1alpha1");
    assertThat(GpuConfig.TYPE.kind()).isEqualTo("GpuConfig");
    assertThat(GpuConfig.TYPE.type()).isEqualTo(GpuConfig.class);
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      assertThat(p.configTypes()).containsExactly(GpuConfig.TYPE);
    }
  }

  @Test
  void decodesTheDocumentedShape() throws Exception {
    GpuConfig c =
        strict.readValue(
            "{\"apiVersion\":\"gpu.nvidia.com/v1alpha1\",\"kind\":\"GpuConfig\","
                + "\"sharing\":{\"strategy\":\"Exclusive\"}}",
            GpuConfig.class);
    assertThat(c).isEqualTo(GpuConfig.exclusive());
    c.validate();
  }

  @Test
  void omittedFieldsTakeTheirDefaults() throws Exception {
    assertThat(strict.readValue("{}", GpuConfig.class)).isEqualTo(GpuConfig.exclusive());
    assertThat(strict.readValue("{\"sharing\":{}}", GpuConfig.class))
        .isEqualTo(GpuConfig.exclusive());
  }

  @Test
  void unknownFieldsAreRejectedByStrictDecoding() {
    assertThatThrownBy(
            () ->
                strict.readValue(
                    "{\"sharing\":{\"strategy\":\"TimeSlicing\",\"interval\":\"Short\"}}",
                    GpuConfig.class))
        .isInstanceOf(UnrecognizedPropertyException.class)
        .hasMessageContaining("interval");
  }

  @Test
  void timeSlicingAndMpsAreNotSupportedYet() {
    for (String s : List.of("TimeSlicing", "MPS")) {
      GpuConfig c = new GpuConfig(new GpuConfig.Sharing(s));
      assertThatThrownBy(c::validate)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "field \"sharing.strategy\": \""
                  + s
                  + "\" is not supported yet; only \"Exclusive\" is");
      try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
        assertThatThrownBy(() -> p.validate(c)).hasMessageContaining("sharing.strategy");
      }
    }
  }

  @Test
  void unknownStrategiesNameTheKnownOnes() {
    GpuConfig c = new GpuConfig(new GpuConfig.Sharing("exclusive"));
    assertThatThrownBy(c::validate)
        .hasMessage(
            "field \"sharing.strategy\": \"exclusive\" is not one of Exclusive,"
                + " TimeSlicing, MPS (only \"Exclusive\" is supported yet)");
  }

  @Test
  void theProviderValidatesGpuConfigsAndNothingElse() {
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      assertThatThrownBy(() -> p.validate(new GpuConfig(new GpuConfig.Sharing("MPS"))))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatCode(() -> p.validate(GpuConfig.exclusive())).doesNotThrowAnyException();
      assertThatCode(() -> p.validate("something else")).doesNotThrowAnyException();
    }
  }
}
