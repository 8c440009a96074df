package io.dra4j.api.claim;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.metadata.DeviceMetadata;
import io.dra4j.api.status.DeviceStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The outcome of preparing one allocated device: container edits (the runtime writes them into the
 * claim's CDI spec), CDI device ids of specs the provider manages itself, or both.
 */
public final class PreparedDevice {
  private final AllocatedDevice device;
  private final ContainerEdits edits;
  private final Optional<DeviceStatus> status;
  private final Map<String, String> recorded;
  private final List<String> cdiDeviceIds;
  private final Optional<DeviceMetadata> metadata;

  private PreparedDevice(
      AllocatedDevice device,
      ContainerEdits edits,
      Optional<DeviceStatus> status,
      Map<String, String> recorded,
      List<String> cdiDeviceIds,
      Optional<DeviceMetadata> metadata) {
    this.device = Objects.requireNonNull(device, "device");
    this.edits = Objects.requireNonNull(edits, "edits");
    this.status = status;
    this.recorded = Map.copyOf(recorded);
    this.cdiDeviceIds = List.copyOf(cdiDeviceIds);
    this.metadata = metadata;
  }

  public static PreparedDevice of(AllocatedDevice device, ContainerEdits edits) {
    return new PreparedDevice(
        device, edits, Optional.empty(), Map.of(), List.of(), Optional.empty());
  }

  public static Builder builder(AllocatedDevice device) {
    return new Builder(device);
  }

  /** This outcome for another allocation (the same device as the runtime resolved it). */
  public PreparedDevice withDevice(AllocatedDevice value) {
    return new PreparedDevice(value, edits, status, recorded, cdiDeviceIds, metadata);
  }

  /** This outcome with other container edits. */
  public PreparedDevice withEdits(ContainerEdits value) {
    return new PreparedDevice(device, value, status, recorded, cdiDeviceIds, metadata);
  }

  /** The allocation this result is for. */
  public AllocatedDevice device() {
    return device;
  }

  /**
   * Container edits, which the runtime writes into the claim's CDI spec; empty edits produce no CDI
   * device.
   */
  public ContainerEdits edits() {
    return edits;
  }

  /** Optional {@code status.devices} entry for the claim. */
  public Optional<DeviceStatus> status() {
    return status;
  }

  /**
   * Side effects to remember (e.g. a created partition id): kept in the checkpoint and handed back
   * to {@code unprepare}, so prepare stays deterministic and unprepare exact.
   */
  public Map<String, String> recorded() {
    return recorded;
  }

  /**
   * Fully qualified ids ({@code vendor/class=name}) of CDI devices in specs the provider manages
   * itself, such as the static spec {@code nvidia-ctk cdi generate} writes to {@code /etc/cdi}; the
   * kubelet gets them after the id of this device's edits, if any. The runtime checks before it
   * answers that each names a device of a spec in the CDI spec directories, and never writes or
   * removes such a spec. Empty by default.
   */
  public List<String> cdiDeviceIds() {
    return cdiDeviceIds;
  }

  /**
   * What workloads learn about this device from its device metadata file from the first write on
   * (when the driver writes device metadata; ignored otherwise): laid over what the runtime writes
   * itself, as a later {@code RequestMetadataWriter.update} would be (the Go helper's {@code
   * kubeletplugin.Device.Metadata}, k8s.io/dynamic-resource-allocation v0.37.2 {@code
   * kubeletplugin/draplugin.go:284-292}, written at prepare by {@code metadata.go:294-302}). Empty
   * by default.
   */
  public Optional<DeviceMetadata> metadata() {
    return metadata;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PreparedDevice p
        && device.equals(p.device)
        && edits.equals(p.edits)
        && status.equals(p.status)
        && recorded.equals(p.recorded)
        && cdiDeviceIds.equals(p.cdiDeviceIds)
        && metadata.equals(p.metadata);
  }

  @Override
  public int hashCode() {
    return Objects.hash(device, edits, status, recorded, cdiDeviceIds, metadata);
  }

  @Override
  public String toString() {
    return "PreparedDevice[device="
        + device
        + ", edits="
        + edits
        + ", status="
        + status
        + ", recorded="
        + recorded
        + ", cdiDeviceIds="
        + cdiDeviceIds
        + ", metadata="
        + metadata
        + "]";
  }

  /**
   * Builds a {@link PreparedDevice}: no edits, no status, nothing recorded, no CDI device ids of
   * the provider's, no device metadata of the provider's unless said.
   */
  public static final class Builder {
    private final AllocatedDevice device;
    private ContainerEdits edits = ContainerEdits.NONE;
    private Optional<DeviceStatus> status = Optional.empty();
    private final Map<String, String> recorded = new TreeMap<>();
    private final List<String> cdiDeviceIds = new ArrayList<>();
    private Optional<DeviceMetadata> metadata = Optional.empty();

    private Builder(AllocatedDevice device) {
      this.device = device;
    }

    public Builder edits(ContainerEdits value) {
      edits = value;
      return this;
    }

    public Builder status(DeviceStatus value) {
      status = Optional.of(value);
      return this;
    }

    public Builder record(String key, String value) {
      recorded.put(key, value);
      return this;
    }

    /** Records every entry of {@code values}. */
    public Builder record(Map<String, String> values) {
      recorded.putAll(values);
      return this;
    }

    /**
     * Adds the id of a CDI device in a spec the provider manages itself, {@code vendor/class=name}
     * (see {@link PreparedDevice#cdiDeviceIds()}).
     */
    public Builder cdiDeviceId(String qualifiedName) {
      cdiDeviceIds.add(Objects.requireNonNull(qualifiedName, "qualifiedName"));
      return this;
    }

    /**
     * The device metadata workloads see from the first write on (see {@link
     * PreparedDevice#metadata()}).
     *
     * @param value metadata of this builder's device, e.g. {@code DeviceMetadata.builder(device)}
     * @throws IllegalArgumentException when {@code value} is another device's
     */
    public Builder metadata(DeviceMetadata value) {
      if (!value.pool().equals(device.pool()) || !value.device().equals(device.device())) {
        throw new IllegalArgumentException(
            "device metadata of "
                + value.pool()
                + "/"
                + value.device()
                + " given for prepared device "
                + device.pool()
                + "/"
                + device.device());
      }
      metadata = Optional.of(value);
      return this;
    }

    public PreparedDevice build() {
      return new PreparedDevice(device, edits, status, recorded, cdiDeviceIds, metadata);
    }
  }
}
