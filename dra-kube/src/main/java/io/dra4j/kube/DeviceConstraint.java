package io.dra4j.kube;

import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A constraint across the devices of several requests: exactly one of matchAttribute and
 * distinctAttribute.
 *
 * @param requests {@code req} or {@code req/sub}; empty means all requests
 * @param matchAttribute fully qualified attribute all devices must share
 * @param distinctAttribute fully qualified attribute all devices must differ in
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceConstraint(
    List<String> requests,
    Optional<String> matchAttribute,
    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA) Optional<String> distinctAttribute,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
  public DeviceConstraint {
    requests = Norm.list(requests);
    matchAttribute = Norm.opt(matchAttribute);
    distinctAttribute = Norm.opt(distinctAttribute);
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceConstraint matchAttribute(List<String> requests, String attribute) {
    return new DeviceConstraint(requests, Optional.of(attribute), Optional.empty(), null);
  }
}
