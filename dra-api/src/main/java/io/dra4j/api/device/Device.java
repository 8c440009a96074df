package io.dra4j.api.device;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;
import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dra4j.api.feature.FeatureGate;
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
 * resource.kubernetes.io/pcieRoot}). Build devices with {@link #builder(String)}; fields of a newer
 * Kubernetes that this version does not model are kept ({@link #unknownFields()}), so that a
 * read-modify-write loses nothing.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class Device {
  // Required by the API: always written, so an empty name reaches the server (which refuses it
  // naming the field) and reads back as it was, instead of vanishing (found by fuzzing).
  @JsonInclude(JsonInclude.Include.ALWAYS)
  private final String name;

  private final Map<String, DeviceAttribute> attributes;
  private final Map<String, DeviceCapacity> capacity;
  private final List<DeviceCounterConsumption> consumesCounters;
  private final Optional<String> nodeName;
  private final Optional<NodeSelector> nodeSelector;

  @JsonInclude(JsonInclude.Include.NON_DEFAULT)
  private final boolean allNodes;

  private final List<DeviceTaint> taints;

  @JsonInclude(JsonInclude.Include.NON_DEFAULT)
  private final boolean bindsToNode;

  private final List<String> bindingConditions;
  private final List<String> bindingFailureConditions;

  @JsonInclude(JsonInclude.Include.NON_DEFAULT)
  private final boolean allowMultipleAllocations;

  private final Map<String, NodeAllocatableResource> nodeAllocatableResources;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private Device(
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
    this.nodeName = Maps.optional(nodeName);
    this.nodeSelector = Maps.optional(nodeSelector);
    this.allNodes = allNodes;
    this.taints = Maps.list(taints);
    this.bindsToNode = bindsToNode;
    this.bindingConditions = Maps.list(bindingConditions);
    this.bindingFailureConditions = Maps.list(bindingFailureConditions);
    this.allowMultipleAllocations = allowMultipleAllocations;
    this.nodeAllocatableResources = Maps.sorted(nodeAllocatableResources);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /** DNS label, unique in its pool. */
  public String name() {
    return name;
  }

  /** Qualified name to value. */
  public Map<String, DeviceAttribute> attributes() {
    return attributes;
  }

  /** Qualified name to capacity. */
  public Map<String, DeviceCapacity> capacity() {
    return capacity;
  }

  /** Counters drawn from the pool's counter sets (at most 2 entries). */
  @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
  public List<DeviceCounterConsumption> consumesCounters() {
    return consumesCounters;
  }

  /** Per-device node selection (only with perDeviceNodeSelection). */
  @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
  public Optional<String> nodeName() {
    return nodeName;
  }

  /** Per-device node selection (only with perDeviceNodeSelection). */
  @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
  public Optional<NodeSelector> nodeSelector() {
    return nodeSelector;
  }

  /** Per-device node selection (only with perDeviceNodeSelection). */
  @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
  public boolean allNodes() {
    return allNodes;
  }

  /** At most 16 (GA in Kubernetes 1.37, gate DRADeviceTaints). */
  public List<DeviceTaint> taints() {
    return taints;
  }

  /** Pin the allocation to the chosen node (binding conditions). */
  @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
  public boolean bindsToNode() {
    return bindsToNode;
  }

  /** At most 4, set together with bindingFailureConditions. */
  @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
  public List<String> bindingConditions() {
    return bindingConditions;
  }

  /** At most 4. */
  @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
  public List<String> bindingFailureConditions() {
    return bindingFailureConditions;
  }

  /** The device can be shared by several claims (consumable capacity). */
  @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
  public boolean allowMultipleAllocations() {
    return allowMultipleAllocations;
  }

  /** Node-allocatable resources (such as {@code cpu}) that allocating the device accounts for. */
  @FeatureGate(name = "DRANodeAllocatableResources", stage = ALPHA)
  public Map<String, NodeAllocatableResource> nodeAllocatableResources() {
    return nodeAllocatableResources;
  }

  /**
   * Fields of a newer Kubernetes that this version does not model, kept for write-back. They are
   * not part of {@code equals}: a newer API server's defaults must not make a stored value differ
   * from the one a driver publishes.
   */
  public Map<String, Object> unknownFields() {
    return unknownFields;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Device d
        && name.equals(d.name)
        && attributes.equals(d.attributes)
        && capacity.equals(d.capacity)
        && consumesCounters.equals(d.consumesCounters)
        && nodeName.equals(d.nodeName)
        && nodeSelector.equals(d.nodeSelector)
        && allNodes == d.allNodes
        && taints.equals(d.taints)
        && bindsToNode == d.bindsToNode
        && bindingConditions.equals(d.bindingConditions)
        && bindingFailureConditions.equals(d.bindingFailureConditions)
        && allowMultipleAllocations == d.allowMultipleAllocations
        && nodeAllocatableResources.equals(d.nodeAllocatableResources);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
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
        nodeAllocatableResources);
  }

  @Override
  public String toString() {
    return "Device[name="
        + name
        + ", attributes="
        + attributes
        + ", capacity="
        + capacity
        + ", consumesCounters="
        + consumesCounters
        + ", nodeName="
        + nodeName
        + ", nodeSelector="
        + nodeSelector
        + ", allNodes="
        + allNodes
        + ", taints="
        + taints
        + ", bindsToNode="
        + bindsToNode
        + ", bindingConditions="
        + bindingConditions
        + ", bindingFailureConditions="
        + bindingFailureConditions
        + ", allowMultipleAllocations="
        + allowMultipleAllocations
        + ", nodeAllocatableResources="
        + nodeAllocatableResources
        + Maps.unknown(unknownFields)
        + "]";
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

    @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
    public Builder consumesCounters(DeviceCounterConsumption consumption) {
      consumesCounters.add(consumption);
      return this;
    }

    @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
    public Builder nodeName(String value) {
      nodeName = Optional.of(value);
      return this;
    }

    @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
    public Builder nodeSelector(NodeSelector value) {
      nodeSelector = Optional.of(value);
      return this;
    }

    @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
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

    @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
    public Builder bindsToNode(boolean value) {
      bindsToNode = value;
      return this;
    }

    @FeatureGate(name = "DRADeviceBindingConditions", stage = BETA)
    public Builder bindingConditions(List<String> conditions, List<String> failureConditions) {
      bindingConditions.clear();
      bindingConditions.addAll(conditions);
      bindingFailureConditions.clear();
      bindingFailureConditions.addAll(failureConditions);
      return this;
    }

    @FeatureGate(name = "DRAConsumableCapacity", stage = BETA)
    public Builder allowMultipleAllocations(boolean value) {
      allowMultipleAllocations = value;
      return this;
    }

    @FeatureGate(name = "DRANodeAllocatableResources", stage = ALPHA)
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
