package io.dra4j.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Decodes the opaque parameters strictly, as the runtime does before calling prepare. */
class FakeConfigJsonTest {

  private final ObjectMapper strict =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  @Test
  void decodesTheDocumentedForm() throws Exception {
    FakeConfig c =
        strict.readValue(
            """
            {"apiVersion": "fake.dra4j.io/v1alpha1", "kind": "FakeDeviceConfig",
             "sharing": "TimeSlicing", "env": {"B": "2", "A": "1"}}
            """,
            FakeConfig.class);

    assertThat(c)
        .isEqualTo(new FakeConfig(Map.of("A", "1", "B", "2"), FakeConfig.Sharing.TIME_SLICING));
    assertThat(strict.readValue("{}", FakeConfig.class)).isEqualTo(FakeConfig.DEFAULT);
    assertThat(strict.writeValueAsString(c))
        .isEqualTo("{\"env\":{\"A\":\"1\",\"B\":\"2\"},\"sharing\":\"TimeSlicing\"}");
  }

  @Test
  void rejectsUnknownFieldsAndSharingModes() {
    assertThatThrownBy(() -> strict.readValue("{\"shared\": true}", FakeConfig.class))
        .hasMessageContaining("shared");
    assertThatThrownBy(() -> strict.readValue("{\"sharing\": \"Always\"}", FakeConfig.class))
        .hasMessageContaining("sharing: \"Always\" must be one of Exclusive, TimeSlicing");
  }
}
