package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A device selector; today only CEL.
 *
 * @param cel {@code {expression}}: a CEL expression of at most 10 KiB over {@code device}
 * @param unknownFields fields of newer API versions (other selector kinds)
 */
@OmitEmpty
public record DeviceSelector(
    Optional<Cel> cel, @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public DeviceSelector {
    cel = Norm.opt(cel);
    unknownFields = Norm.unknown(unknownFields);
  }

  /** A CEL selector. */
  public static DeviceSelector cel(String expression) {
    return new DeviceSelector(Optional.of(new Cel(expression, null)), null);
  }

  /**
   * {@code CELDeviceSelector}.
   *
   * @param expression the CEL expression
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record Cel(
      String expression, @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Cel {
      expression = Objects.requireNonNull(expression, "CEL expression");
      unknownFields = Norm.unknown(unknownFields);
    }
  }
}
