package io.dra4j.api.provider;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;
import static io.dra4j.api.feature.FeatureGate.Stage.BETA;

import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.feature.FeatureGate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A resource pool: the unit the scheduler reasons about. The runtime splits a pool into
 * ResourceSlices within the API limits itself; a provider lists its devices, and the settings of
 * the slices' spec that apply to the whole pool.
 */
public final class Pool {
  private final String name;
  private final List<Device> devices;
  private final List<CounterSet> counterSets;
  private final PoolScope scope;
  private final Optional<String> partitionTypeAttribute;
  private final Set<SkipNodeOperation> skipNodeOperations;

  private Pool(Builder b) {
    this.name = b.name;
    this.devices = List.copyOf(b.devices);
    this.counterSets = List.copyOf(b.counterSets);
    this.scope = b.scope;
    this.partitionTypeAttribute = b.partitionTypeAttribute;
    this.skipNodeOperations =
        b.skipNodeOperations.isEmpty()
            ? Set.of()
            : Collections.unmodifiableSet(EnumSet.copyOf(b.skipNodeOperations));
  }

  /** A node-local pool without counters. */
  public static Pool of(String name, List<Device> devices) {
    return builder(name).devices(devices).build();
  }

  /**
   * A builder: a node-local pool ({@link PoolScope#node()}) without devices or counters unless
   * said.
   *
   * @param name one or more DNS subdomains separated by {@code /}; node-local pools are usually
   *     named after the node
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** A builder that starts from this pool. */
  public Builder toBuilder() {
    Builder b = new Builder(name);
    b.devices.addAll(devices);
    b.counterSets.addAll(counterSets);
    b.scope = scope;
    b.partitionTypeAttribute = partitionTypeAttribute;
    b.skipNodeOperations.addAll(skipNodeOperations);
    return b;
  }

  /** This pool with other devices. */
  public Pool withDevices(List<Device> value) {
    return toBuilder().devices(value).build();
  }

  /** One or more DNS subdomains separated by {@code /}. */
  public String name() {
    return name;
  }

  /** Devices, in the order the scheduler should prefer them. */
  public List<Device> devices() {
    return devices;
  }

  /** Shared counters of partitionable devices ({@code sharedCounters}). */
  @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
  public List<CounterSet> counterSets() {
    return counterSets;
  }

  /** Where the devices can be used. */
  public PoolScope scope() {
    return scope;
  }

  /**
   * The fully qualified name ({@code domain/name}) of the string attribute that says the type of
   * each partitionable device: devices with the same value consume the same counters. The runtime
   * puts it on the slices that hold devices consuming counters; each of those devices must carry
   * the attribute (an unqualified attribute in the driver's domain counts) as a string.
   */
  @FeatureGate(name = "DRAPartitionableDevicesType", stage = ALPHA)
  public Optional<String> partitionTypeAttribute() {
    return partitionTypeAttribute;
  }

  /** The kubelet calls the pool's devices do not need; on every slice of the pool. */
  @FeatureGate(name = "DRAOptionalNodeOperations", stage = ALPHA)
  public Set<SkipNodeOperation> skipNodeOperations() {
    return skipNodeOperations;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Pool p
        && name.equals(p.name)
        && devices.equals(p.devices)
        && counterSets.equals(p.counterSets)
        && scope.equals(p.scope)
        && partitionTypeAttribute.equals(p.partitionTypeAttribute)
        && skipNodeOperations.equals(p.skipNodeOperations);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        name, devices, counterSets, scope, partitionTypeAttribute, skipNodeOperations);
  }

  @Override
  public String toString() {
    return "Pool[name="
        + name
        + ", devices="
        + devices
        + ", counterSets="
        + counterSets
        + ", scope="
        + scope
        + ", partitionTypeAttribute="
        + partitionTypeAttribute
        + ", skipNodeOperations="
        + skipNodeOperations
        + "]";
  }

  /** Builds a {@link Pool}. */
  public static final class Builder {
    private final String name;
    private final List<Device> devices = new ArrayList<>();
    private final List<CounterSet> counterSets = new ArrayList<>();
    private PoolScope scope = PoolScope.node();
    private Optional<String> partitionTypeAttribute = Optional.empty();
    private final Set<SkipNodeOperation> skipNodeOperations =
        EnumSet.noneOf(SkipNodeOperation.class);

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "pool name");
    }

    /** The devices instead of those set so far. */
    public Builder devices(List<Device> value) {
      devices.clear();
      devices.addAll(value);
      return this;
    }

    /** The counter sets instead of those set so far. */
    @FeatureGate(name = "DRAPartitionableDevices", stage = BETA)
    public Builder counterSets(List<CounterSet> value) {
      counterSets.clear();
      counterSets.addAll(value);
      return this;
    }

    public Builder scope(PoolScope value) {
      scope = Objects.requireNonNull(value, "scope");
      return this;
    }

    @FeatureGate(name = "DRAPartitionableDevicesType", stage = ALPHA)
    public Builder partitionTypeAttribute(String fullyQualifiedName) {
      partitionTypeAttribute = Optional.of(fullyQualifiedName);
      return this;
    }

    @FeatureGate(name = "DRAOptionalNodeOperations", stage = ALPHA)
    public Builder skipNodeOperations(SkipNodeOperation... operations) {
      skipNodeOperations.clear();
      skipNodeOperations.addAll(List.of(operations));
      return this;
    }

    public Pool build() {
      return new Pool(this);
    }
  }
}
