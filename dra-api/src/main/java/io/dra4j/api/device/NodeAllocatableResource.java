package io.dra4j.api.device;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dra4j.api.feature.FeatureGate;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How allocating a device accounts for a node-allocatable resource such as {@code cpu}: the
 * resource.k8s.io/v1 {@code NodeAllocatableResource}. At least one of mapping and overhead is set.
 */
@FeatureGate(name = "DRANodeAllocatableResources", stage = ALPHA)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonAutoDetect(
    fieldVisibility = Visibility.ANY,
    getterVisibility = Visibility.NONE,
    isGetterVisibility = Visibility.NONE)
public final class NodeAllocatableResource {
  private final Optional<Mapping> mapping;
  private final Optional<Overhead> overhead;
  @JsonAnyGetter private final Map<String, Object> unknownFields;

  @JsonCreator
  private NodeAllocatableResource(
      @JsonProperty("mapping") Optional<Mapping> mapping,
      @JsonProperty("overhead") Optional<Overhead> overhead,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.mapping = Maps.optional(mapping);
    this.overhead = Maps.optional(overhead);
    this.unknownFields = Maps.sorted(unknownFields);
  }

  /** An accounting by a mapping alone. */
  public static NodeAllocatableResource of(Mapping mapping) {
    return new NodeAllocatableResource(Optional.of(mapping), Optional.empty(), Map.of());
  }

  /** An accounting by an overhead alone. */
  public static NodeAllocatableResource of(Overhead overhead) {
    return new NodeAllocatableResource(Optional.empty(), Optional.of(overhead), Map.of());
  }

  /** Nothing set (not valid on its own: add a mapping or an overhead). */
  public static NodeAllocatableResource empty() {
    return new NodeAllocatableResource(Optional.empty(), Optional.empty(), Map.of());
  }

  public NodeAllocatableResource withMapping(Mapping value) {
    return new NodeAllocatableResource(Optional.of(value), overhead, unknownFields);
  }

  public NodeAllocatableResource withOverhead(Overhead value) {
    return new NodeAllocatableResource(mapping, Optional.of(value), unknownFields);
  }

  public Optional<Mapping> mapping() {
    return mapping;
  }

  public Optional<Overhead> overhead() {
    return overhead;
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
    return o instanceof NodeAllocatableResource r
        && mapping.equals(r.mapping)
        && overhead.equals(r.overhead);
  }

  @Override
  public int hashCode() {
    return Objects.hash(mapping, overhead);
  }

  @Override
  public String toString() {
    return "NodeAllocatableResource[mapping="
        + mapping
        + ", overhead="
        + overhead
        + Maps.unknown(unknownFields)
        + "]";
  }

  /**
   * The {@code NodeAllocatableMapping}: either {@code capacityKey} with {@code capacityMultiplier},
   * or {@code deviceMultiplier}.
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonAutoDetect(
      fieldVisibility = Visibility.ANY,
      getterVisibility = Visibility.NONE,
      isGetterVisibility = Visibility.NONE)
  public static final class Mapping {
    private final Optional<String> capacityKey;
    private final Optional<Quantity> capacityMultiplier;
    private final Optional<Quantity> deviceMultiplier;
    @JsonAnyGetter private final Map<String, Object> unknownFields;

    @JsonCreator
    private Mapping(
        @JsonProperty("capacityKey") Optional<String> capacityKey,
        @JsonProperty("capacityMultiplier") Optional<Quantity> capacityMultiplier,
        @JsonProperty("deviceMultiplier") Optional<Quantity> deviceMultiplier,
        @JsonAnySetter Map<String, Object> unknownFields) {
      this.capacityKey = Maps.optional(capacityKey);
      this.capacityMultiplier = Maps.optional(capacityMultiplier);
      this.deviceMultiplier = Maps.optional(deviceMultiplier);
      this.unknownFields = Maps.sorted(unknownFields);
    }

    /** The resource scales with the device's capacity {@code capacityKey} times the multiplier. */
    public static Mapping capacity(String capacityKey, Quantity capacityMultiplier) {
      return new Mapping(
          Optional.of(capacityKey), Optional.of(capacityMultiplier), Optional.empty(), Map.of());
    }

    /** Each allocated device accounts for {@code deviceMultiplier} of the resource. */
    public static Mapping perDevice(Quantity deviceMultiplier) {
      return new Mapping(
          Optional.empty(), Optional.empty(), Optional.of(deviceMultiplier), Map.of());
    }

    /** A mapping without fields, to complete with the {@code with} methods. */
    public static Mapping empty() {
      return new Mapping(Optional.empty(), Optional.empty(), Optional.empty(), Map.of());
    }

    public Mapping withCapacityKey(String value) {
      return new Mapping(Optional.of(value), capacityMultiplier, deviceMultiplier, unknownFields);
    }

    public Mapping withCapacityMultiplier(Quantity value) {
      return new Mapping(capacityKey, Optional.of(value), deviceMultiplier, unknownFields);
    }

    public Mapping withDeviceMultiplier(Quantity value) {
      return new Mapping(capacityKey, capacityMultiplier, Optional.of(value), unknownFields);
    }

    public Optional<String> capacityKey() {
      return capacityKey;
    }

    public Optional<Quantity> capacityMultiplier() {
      return capacityMultiplier;
    }

    public Optional<Quantity> deviceMultiplier() {
      return deviceMultiplier;
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
      return o instanceof Mapping m
          && capacityKey.equals(m.capacityKey)
          && capacityMultiplier.equals(m.capacityMultiplier)
          && deviceMultiplier.equals(m.deviceMultiplier);
    }

    @Override
    public int hashCode() {
      return Objects.hash(capacityKey, capacityMultiplier, deviceMultiplier);
    }

    @Override
    public String toString() {
      return "Mapping[capacityKey="
          + capacityKey
          + ", capacityMultiplier="
          + capacityMultiplier
          + ", deviceMultiplier="
          + deviceMultiplier
          + Maps.unknown(unknownFields)
          + "]";
    }
  }

  /** The {@code NodeAllocatableOverhead}: extra amount charged per pod and/or per container. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonAutoDetect(
      fieldVisibility = Visibility.ANY,
      getterVisibility = Visibility.NONE,
      isGetterVisibility = Visibility.NONE)
  public static final class Overhead {
    private final Optional<Quantity> perPod;
    private final Optional<Quantity> perContainer;
    @JsonAnyGetter private final Map<String, Object> unknownFields;

    @JsonCreator
    private Overhead(
        @JsonProperty("perPod") Optional<Quantity> perPod,
        @JsonProperty("perContainer") Optional<Quantity> perContainer,
        @JsonAnySetter Map<String, Object> unknownFields) {
      this.perPod = Maps.optional(perPod);
      this.perContainer = Maps.optional(perContainer);
      this.unknownFields = Maps.sorted(unknownFields);
    }

    /** An overhead charged once per pod. */
    public static Overhead perPod(Quantity value) {
      return empty().withPerPod(value);
    }

    /** An overhead charged per container. */
    public static Overhead perContainer(Quantity value) {
      return empty().withPerContainer(value);
    }

    /** An overhead without amounts (not valid on its own). */
    public static Overhead empty() {
      return new Overhead(Optional.empty(), Optional.empty(), Map.of());
    }

    public Overhead withPerPod(Quantity value) {
      return new Overhead(Optional.of(value), perContainer, unknownFields);
    }

    public Overhead withPerContainer(Quantity value) {
      return new Overhead(perPod, Optional.of(value), unknownFields);
    }

    public Optional<Quantity> perPod() {
      return perPod;
    }

    public Optional<Quantity> perContainer() {
      return perContainer;
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
      return o instanceof Overhead h
          && perPod.equals(h.perPod)
          && perContainer.equals(h.perContainer);
    }

    @Override
    public int hashCode() {
      return Objects.hash(perPod, perContainer);
    }

    @Override
    public String toString() {
      return "Overhead[perPod="
          + perPod
          + ", perContainer="
          + perContainer
          + Maps.unknown(unknownFields)
          + "]";
    }
  }
}
