package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.dra4j.api.device.Quantity;
import java.util.Map;

/**
 * Capacity a request wants from devices that allow multiple allocations (DRAConsumableCapacity).
 *
 * @param requests qualified capacity name to amount
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record CapacityRequirements(
    Map<String, Quantity> requests,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
  public CapacityRequirements {
    requests = Norm.map(requests);
    unknownFields = Norm.unknown(unknownFields);
  }
}
