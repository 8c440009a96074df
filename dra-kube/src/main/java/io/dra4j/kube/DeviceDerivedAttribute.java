package io.dra4j.kube;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.dra4j.api.feature.FeatureGate;
import java.util.Map;
import java.util.Objects;

/**
 * {@code DeviceDerivedAttribute} (Kubernetes 1.37): an attribute a request computes with CEL for
 * each candidate device, for use in the claim's constraints.
 *
 * @param name fully qualified ({@code domain/name}); may shadow a device attribute of that name
 * @param expression CEL over {@code device}, giving a scalar or a list of scalars
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
@FeatureGate(name = "DRADerivedAttributes", stage = ALPHA)
public record DeviceDerivedAttribute(
    String name,
    String expression,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  public DeviceDerivedAttribute {
    name = Objects.requireNonNull(name, "derived attribute name");
    expression = Objects.requireNonNull(expression, "derived attribute expression");
    unknownFields = Norm.unknown(unknownFields);
  }
}
