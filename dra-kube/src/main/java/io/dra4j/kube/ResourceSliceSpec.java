package io.dra4j.kube;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;
import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.feature.FeatureGate;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code ResourceSlice.spec}. Exactly one of nodeName, nodeSelector, allNodes and
 * perDeviceNodeSelection is set; since 1.35 a slice holds devices or counter sets, not both.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ResourceSliceSpec(
    String driver,
    ResourcePool pool,
    Optional<String> nodeName,
    Optional<NodeSelector> nodeSelector,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean allNodes,
    @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
        @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        boolean perDeviceNodeSelection,
    List<Device> devices,
    @FeatureGate(name = "DRAPartitionableDevices", stage = BETA) List<CounterSet> sharedCounters,
    @FeatureGate(name = "DRAPartitionableDevicesType", stage = ALPHA)
        Optional<String> partitionTypeAttribute,
    @FeatureGate(name = "DRAOptionalNodeOperations", stage = ALPHA) List<String> skipNodeOperations,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  @JsonCreator
  public ResourceSliceSpec(
      @JsonProperty("driver") String driver,
      @JsonProperty("pool") ResourcePool pool,
      @JsonProperty("nodeName") Optional<String> nodeName,
      @JsonProperty("nodeSelector") Optional<NodeSelector> nodeSelector,
      @JsonProperty("allNodes") boolean allNodes,
      @JsonProperty("perDeviceNodeSelection") boolean perDeviceNodeSelection,
      @JsonProperty("devices") List<Device> devices,
      @JsonProperty("sharedCounters") List<CounterSet> sharedCounters,
      @JsonProperty("partitionTypeAttribute") Optional<String> partitionTypeAttribute,
      @JsonProperty("skipNodeOperations") List<String> skipNodeOperations,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.driver = Objects.requireNonNull(driver, "driver");
    this.pool = Objects.requireNonNull(pool, "pool");
    this.nodeName = nodeName == null ? Optional.empty() : nodeName;
    this.nodeSelector = nodeSelector == null ? Optional.empty() : nodeSelector;
    this.allNodes = allNodes;
    this.perDeviceNodeSelection = perDeviceNodeSelection;
    this.devices = devices == null ? List.of() : List.copyOf(devices);
    this.sharedCounters = sharedCounters == null ? List.of() : List.copyOf(sharedCounters);
    this.partitionTypeAttribute =
        partitionTypeAttribute == null ? Optional.empty() : partitionTypeAttribute;
    this.skipNodeOperations =
        skipNodeOperations == null ? List.of() : List.copyOf(skipNodeOperations);
    this.unknownFields =
        unknownFields == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(unknownFields));
  }

  public ResourceSliceSpec withPool(ResourcePool value) {
    return new ResourceSliceSpec(
        driver,
        value,
        nodeName,
        nodeSelector,
        allNodes,
        perDeviceNodeSelection,
        devices,
        sharedCounters,
        partitionTypeAttribute,
        skipNodeOperations,
        unknownFields);
  }

  public ResourceSliceSpec withDevices(List<Device> value) {
    return new ResourceSliceSpec(
        driver,
        pool,
        nodeName,
        nodeSelector,
        allNodes,
        perDeviceNodeSelection,
        value,
        sharedCounters,
        partitionTypeAttribute,
        skipNodeOperations,
        unknownFields);
  }

  /**
   * {@code spec.pool}.
   *
   * @param name the pool name
   * @param generation bumped in all slices of the pool when the pool changes
   * @param resourceSliceCount total slices of the pool at this generation
   * @param unknownFields fields of newer API versions
   */
  public record ResourcePool(
      String name,
      long generation,
      long resourceSliceCount,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

    @JsonCreator
    public ResourcePool(
        @JsonProperty("name") String name,
        @JsonProperty("generation") long generation,
        @JsonProperty("resourceSliceCount") long resourceSliceCount,
        @JsonAnySetter Map<String, Object> unknownFields) {
      this.name = Objects.requireNonNull(name, "pool name");
      this.generation = generation;
      this.resourceSliceCount = resourceSliceCount;
      this.unknownFields =
          unknownFields == null || unknownFields.isEmpty()
              ? Map.of()
              : java.util.Collections.unmodifiableMap(new TreeMap<>(unknownFields));
    }

    /** A pool without fields of newer API versions. */
    public ResourcePool(String name, long generation, long resourceSliceCount) {
      this(name, generation, resourceSliceCount, Map.of());
    }
  }
}
