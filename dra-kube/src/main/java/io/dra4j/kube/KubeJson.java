package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;

/**
 * The one Jackson configuration for Kubernetes JSON: Optionals (Jdk8Module), records, unknown
 * properties ignored for types without an {@code unknownFields} any-setter, no nulls written.
 */
public final class KubeJson {
  private static final ObjectMapper MAPPER = configure(new ObjectMapper());

  private KubeJson() {}

  /** Built on first use: an in-cluster driver never reads YAML, and start-up time counts. */
  private static final class Yaml {
    static final ObjectMapper MAPPER =
        configure(
            new ObjectMapper(
                YAMLFactory.builder()
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    // One CEL selector per line: easier to read and to edit than folded lines.
                    .disable(YAMLGenerator.Feature.SPLIT_LINES)
                    .build()));
  }

  /**
   * The shared YAML mapper with the same settings: manifests, kubeconfigs. Thread-safe; do not
   * reconfigure it.
   */
  public static ObjectMapper yaml() {
    return Yaml.MAPPER;
  }

  /**
   * The shared mapper. Thread-safe for reading and writing; do not reconfigure it (use {@link
   * #configure} on a mapper of your own instead).
   */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Applies the Kubernetes settings to a mapper (e.g. a YAML mapper) and returns it. */
  public static ObjectMapper configure(ObjectMapper mapper) {
    return mapper
        .registerModule(new Jdk8Module())
        .registerModule(DeviceAttributeJson.module())
        .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
        .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, false)
        // Opaque parameters and status data are the driver's: keep 1.50 as 1.50, not 1.5.
        .configure(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS, true)
        .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false)
        .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false)
        .setDefaultPropertyInclusion(JsonInclude.Include.NON_ABSENT);
  }
}
