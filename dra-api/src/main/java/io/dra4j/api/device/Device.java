package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One device as published in a ResourceSlice: the resource.k8s.io/v1 {@code Device}, field for
 * field, serializing to the Kubernetes JSON directly.
 *
 * <p>Attribute and capacity keys are qualified names: an unqualified key ({@code memory}) is in the
 * driver's own domain; standard and third-party attributes carry a domain ({@code
 * resource.kubernetes.io/pcieRoot}). Build devices with {@link #builder(String)}.
 *
 * @param name DNS label, unique in its pool
 * @param attributes qualified name to value
 * @param capacity qualified name to capacity
 * @param consumesCounters counters drawn from the pool's counter sets (at most 2 entries)
 * @param nodeName per-device node selection (only with perDeviceNodeSelection)
 * @param nodeSelector per-device node selection (only with perDeviceNodeSelection)
 * @param allNodes per-device node selection (only with perDeviceNodeSelection)
 * @param taints at most 16
 * @param bindsToNode pin the allocation to the chosen node (binding conditions)
 * @param bindingConditions at most 4, set together with bindingFailureConditions
 * @param bindingFailureConditions at most 4
 * @param allowMultipleAllocations the device can be shared by several claims (consumable capacity)
 * @param nodeAllocatableResources Kubernetes 1.37 alpha
 * @param unknownFields fields of newer API versions, kept so read-modify-write loses nothing
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Device(
    // Required by the API: always written, so an empty name reaches the server (which refuses it
    // naming the field) and reads back as it was, instead of vanishing (found by fuzzing).
    @JsonInclude(JsonInclude.Include.ALWAYS) String name,
    Map<String, DeviceAttribute> attributes,
    Map<String, DeviceCapacity> capacity,
    List<DeviceCounterConsumption> consumesCounters,
    Optional<String> nodeName,
    Optional<NodeSelector> nodeSelector,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean allNodes,
    List<DeviceTaint> taints,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean bindsToNode,
    List<String> bindingConditions,
    List<String> bindingFailureConditions,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean allowMultipleAllocations,
    Map<String, NodeAllocatableResource> nodeAllocatableResources,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  @JsonCreator
  public Device(
      @JsonProperty("name") String name,
      @JsonProperty("attributes") Map<String, DeviceAttribute> attributes,
      @JsonProperty("capacity") Map<String, DeviceCapacity> capacity,
      @JsonProperty("consumesCounters") List<DeviceCounterConsumption> consumesCounters,
      @JsonProperty("nodeName") Optional<String> nodeName,
      @JsonProperty("nodeSelector") Optional<NodeSelector> nodeSelector,
      @JsonProperty("allNodes") boolean allNodes,
      @JsonProperty("taints") List<DeviceTaint> taints,
      @JsonProperty("bindsToNode") boolean bindsToNode,
      @JsonProperty("bindingConditions") List<String> bindingConditions,
      @JsonProperty("bindingFailureConditions") List<String> bindingFailureConditions,
      @JsonProperty("allowMultipleAllocations") boolean allowMultipleAllocations,
      @JsonProperty("nodeAllocatableResources")
          Map<String, NodeAllocatableResource> nodeAllocatableResources,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.name = Objects.requireNonNull(name, "device name");
    this.attributes = Maps.sorted(attributes);
    this.capacity = Maps.sorted(capacity);
    this.consumesCounters = Maps.list(consumesCounters);
    this.nodeName = nodeName == null ? Optional.empty() : nodeName;
    this.nodeSelector = nodeSelector == null ? Optional.empty() : nodeSelector;
    this.allNodes = allNodes;
    this.taints = Maps.list(taints);
    this.bindsToNode = bindsToNode;
    this.bindingConditions = Maps.list(bindingConditions);
    this.bindingFailureConditions = Maps.list(bindingFailureConditions);
    this.allowMultipleAllocations = allowMultipleAllocations;
    this.nodeAllocatableResources = Maps.sorted(nodeAllocatableResources);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /** A builder for a device with the given name. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** A builder that starts from this device. */
  public Builder toBuilder() {
    Builder b = new Builder(name);
    b.attributes.putAll(attributes);
    b.capacity.putAll(capacity);
    b.consumesCounters.addAll(consumesCounters);
    b.nodeName = nodeName;
    b.nodeSelector = nodeSelector;
    b.allNodes = allNodes;
    b.taints.addAll(taints);
    b.bindsToNode = bindsToNode;
    b.bindingConditions.addAll(bindingConditions);
    b.bindingFailureConditions.addAll(bindingFailureConditions);
    b.allowMultipleAllocations = allowMultipleAllocations;
    b.nodeAllocatableResources.putAll(nodeAllocatableResources);
    b.unknownFields.putAll(unknownFields);
    return b;
  }

  /** The attribute with this qualified name, if present. */
  public Optional<DeviceAttribute> attribute(String qualifiedName) {
    return Optional.ofNullable(attributes.get(qualifiedName));
  }

  /**
   * Whether the device uses a feature that lowers the per-slice limit from 128 to 64 devices:
   * taints, counter consumption or list-typed attributes.
   */
  public boolean usesAdvancedFeatures() {
    return !taints.isEmpty()
        || !consumesCounters.isEmpty()
        || attributes.values().stream().anyMatch(DeviceAttribute::listForm);
  }

  /** Builds a {@link Device}. */
  public static final class Builder {
    private final String name;
    private final Map<String, DeviceAttribute> attributes = new TreeMap<>();
    private final Map<String, DeviceCapacity> capacity = new TreeMap<>();
    private final List<DeviceCounterConsumption> consumesCounters = new ArrayList<>();
    private Optional<String> nodeName = Optional.empty();
    private Optional<NodeSelector> nodeSelector = Optional.empty();
    private boolean allNodes;
    private final List<DeviceTaint> taints = new ArrayList<>();
    private boolean bindsToNode;
    private final List<String> bindingConditions = new ArrayList<>();
    private final List<String> bindingFailureConditions = new ArrayList<>();
    private boolean allowMultipleAllocations;
    private final Map<String, NodeAllocatableResource> nodeAllocatableResources = new TreeMap<>();
    private final Map<String, Object> unknownFields = new LinkedHashMap<>();

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "device name");
    }

    public Builder attribute(String qualifiedName, DeviceAttribute value) {
      attributes.put(qualifiedName, value);
      return this;
    }

    public Builder attribute(String qualifiedName, String value) {
      return attribute(qualifiedName, DeviceAttribute.of(value));
    }

    public Builder attribute(String qualifiedName, long value) {
      return attribute(qualifiedName, DeviceAttribute.of(value));
    }

    public Builder attribute(String qualifiedName, boolean value) {
      return attribute(qualifiedName, DeviceAttribute.of(value));
    }

    public Builder removeAttribute(String qualifiedName) {
      attributes.remove(qualifiedName);
      return this;
    }

    public Builder capacity(String qualifiedName, DeviceCapacity value) {
      capacity.put(qualifiedName, value);
      return this;
    }

    public Builder capacity(String qualifiedName, Quantity value) {
      return capacity(qualifiedName, DeviceCapacity.of(value));
    }

    public Builder consumesCounters(DeviceCounterConsumption consumption) {
      consumesCounters.add(consumption);
      return this;
    }

    public Builder nodeName(String value) {
      nodeName = Optional.of(value);
      return this;
    }

    public Builder nodeSelector(NodeSelector value) {
      nodeSelector = Optional.of(value);
      return this;
    }

    public Builder allNodes(boolean value) {
      allNodes = value;
      return this;
    }

    public Builder taint(DeviceTaint taint) {
      taints.add(taint);
      return this;
    }

    public Builder taints(List<DeviceTaint> value) {
      taints.clear();
      taints.addAll(value);
      return this;
    }

    public Builder bindsToNode(boolean value) {
      bindsToNode = value;
      return this;
    }

    public Builder bindingConditions(List<String> conditions, List<String> failureConditions) {
      bindingConditions.clear();
      bindingConditions.addAll(conditions);
      bindingFailureConditions.clear();
      bindingFailureConditions.addAll(failureConditions);
      return this;
    }

    public Builder allowMultipleAllocations(boolean value) {
      allowMultipleAllocations = value;
      return this;
    }

    public Builder nodeAllocatableResource(String resource, NodeAllocatableResource value) {
      nodeAllocatableResources.put(resource, value);
      return this;
    }

    public Device build() {
      return new Device(
          name,
          attributes,
          capacity,
          consumesCounters,
          nodeName,
          nodeSelector,
          allNodes,
          taints,
          bindsToNode,
          bindingConditions,
          bindingFailureConditions,
          allowMultipleAllocations,
          nodeAllocatableResources,
          unknownFields);
    }
  }
}
