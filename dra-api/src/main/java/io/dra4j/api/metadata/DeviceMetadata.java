package io.dra4j.api.metadata;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.status.NetworkDeviceData;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a provider tells workloads about one prepared device, beyond what the runtime writes itself
 * (the attributes the device is published with, the network data of its claim status): the Go
 * helper's {@code kubeletplugin.Device} with its {@code Metadata}
 * (k8s.io/dynamic-resource-allocation v0.37.2, {@code kubeletplugin/draplugin.go:253-321}).
 */
public final class DeviceMetadata {
  private final String pool;
  private final String device;
  private final Map<String, DeviceAttribute> attributes;
  private final Optional<NetworkDeviceData> networkData;

  private DeviceMetadata(
      String pool,
      String device,
      Map<String, DeviceAttribute> attributes,
      Optional<NetworkDeviceData> networkData) {
    this.pool = Objects.requireNonNull(pool, "pool");
    this.device = Objects.requireNonNull(device, "device");
    this.attributes = Map.copyOf(attributes);
    this.networkData = networkData;
  }

  /** Metadata for the device of an allocation, as {@code prepare} got it. */
  public static Builder builder(AllocatedDevice device) {
    return new Builder(device.pool(), device.device());
  }

  /** Metadata for device {@code device} of pool {@code pool}. */
  public static Builder builder(String pool, String device) {
    return new Builder(pool, device);
  }

  /** The pool of the device. */
  public String pool() {
    return pool;
  }

  /** The device's name in its pool. */
  public String device() {
    return device;
  }

  /**
   * Attributes as in a ResourceSlice ({@code model}, {@code resource.kubernetes.io/pciBusID}): they
   * replace the published attributes of the same name, at most 32 in all.
   */
  public Map<String, DeviceAttribute> attributes() {
    return attributes;
  }

  /** Network data (interface, addresses); replaces what the claim status had, when present. */
  public Optional<NetworkDeviceData> networkData() {
    return networkData;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceMetadata m
        && pool.equals(m.pool)
        && device.equals(m.device)
        && attributes.equals(m.attributes)
        && networkData.equals(m.networkData);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pool, device, attributes, networkData);
  }

  @Override
  public String toString() {
    return "DeviceMetadata[pool="
        + pool
        + ", device="
        + device
        + ", attributes="
        + attributes
        + ", networkData="
        + networkData
        + "]";
  }

  /** Builds a {@link DeviceMetadata}: no attributes and no network data unless said. */
  public static final class Builder {
    private final String pool;
    private final String device;
    private final Map<String, DeviceAttribute> attributes = new TreeMap<>();
    private Optional<NetworkDeviceData> networkData = Optional.empty();

    private Builder(String pool, String device) {
      this.pool = pool;
      this.device = device;
    }

    public Builder attribute(String name, DeviceAttribute value) {
      attributes.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, name));
      return this;
    }

    /** Adds every entry of {@code values}. */
    public Builder attributes(Map<String, DeviceAttribute> values) {
      values.forEach(this::attribute);
      return this;
    }

    public Builder networkData(NetworkDeviceData value) {
      networkData = Optional.of(value);
      return this;
    }

    public DeviceMetadata build() {
      return new DeviceMetadata(pool, device, attributes, networkData);
    }
  }
}
