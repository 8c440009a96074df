package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Map;
import java.util.Objects;

/**
 * Driver-specific configuration: the driver it is meant for and a JSON object (at most 10 KiB on
 * create) whose format the driver owns; {@code apiVersion} and {@code kind} inside are recommended.
 *
 * @param driver the driver name
 * @param parameters the JSON object, kept exactly as sent (numbers are not reformatted)
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record OpaqueDeviceConfiguration(
    String driver,
    @JsonInclude(JsonInclude.Include.ALWAYS) JsonNode parameters,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public OpaqueDeviceConfiguration {
    driver = Objects.requireNonNull(driver, "opaque config driver");
    parameters =
        parameters == null || parameters.isNull()
            ? JsonNodeFactory.instance.objectNode()
            : parameters.deepCopy();
    unknownFields = Norm.unknown(unknownFields);
  }

  /** Config for {@code driver} with parameters converted from any JSON-shaped value. */
  public static OpaqueDeviceConfiguration of(String driver, Object parameters) {
    return new OpaqueDeviceConfiguration(driver, KubeJson.mapper().valueToTree(parameters), null);
  }

  /** The parameters as a copy, so callers cannot change this record. */
  @Override
  public JsonNode parameters() {
    return parameters.deepCopy();
  }
}
