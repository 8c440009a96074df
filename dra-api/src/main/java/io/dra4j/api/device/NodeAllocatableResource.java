package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Optional;

/**
 * How allocating a device accounts for a node-allocatable resource such as {@code cpu} (Kubernetes
 * 1.37 alpha, gate DRANodeAllocatableResources). At least one of mapping and overhead is set.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record NodeAllocatableResource(Optional<Mapping> mapping, Optional<Overhead> overhead) {

  @JsonCreator
  public NodeAllocatableResource(
      @JsonProperty("mapping") Optional<Mapping> mapping,
      @JsonProperty("overhead") Optional<Overhead> overhead) {
    this.mapping = mapping == null ? Optional.empty() : mapping;
    this.overhead = overhead == null ? Optional.empty() : overhead;
  }

  /** Either capacityKey with capacityMultiplier, or deviceMultiplier. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Mapping(
      Optional<String> capacityKey,
      Optional<Quantity> capacityMultiplier,
      Optional<Quantity> deviceMultiplier) {
    @JsonCreator
    public Mapping(
        @JsonProperty("capacityKey") Optional<String> capacityKey,
        @JsonProperty("capacityMultiplier") Optional<Quantity> capacityMultiplier,
        @JsonProperty("deviceMultiplier") Optional<Quantity> deviceMultiplier) {
      this.capacityKey = capacityKey == null ? Optional.empty() : capacityKey;
      this.capacityMultiplier = capacityMultiplier == null ? Optional.empty() : capacityMultiplier;
      this.deviceMultiplier = deviceMultiplier == null ? Optional.empty() : deviceMultiplier;
    }
  }

  /** Extra amount charged per pod and/or per container. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Overhead(Optional<Quantity> perPod, Optional<Quantity> perContainer) {
    @JsonCreator
    public Overhead(
        @JsonProperty("perPod") Optional<Quantity> perPod,
        @JsonProperty("perContainer") Optional<Quantity> perContainer) {
      this.perPod = perPod == null ? Optional.empty() : perPod;
      this.perContainer = perContainer == null ? Optional.empty() : perContainer;
    }
  }
}
