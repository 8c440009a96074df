package io.dra4j.api.claim;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.status.DeviceStatus;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The outcome of preparing one allocated device.
 *
 * @param device the allocation this result is for
 * @param edits container edits; empty edits produce no CDI device
 * @param status optional {@code status.devices} entry for the claim
 * @param recorded side effects to remember (e.g. a created partition id): kept in the checkpoint
 *     and handed back to {@code unprepare}, so prepare stays deterministic and unprepare exact
 */
public record PreparedDevice(
    AllocatedDevice device,
    ContainerEdits edits,
    Optional<DeviceStatus> status,
    Map<String, String> recorded) {

  public PreparedDevice {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(edits, "edits");
    Objects.requireNonNull(status, "status");
    recorded = Map.copyOf(recorded);
  }

  public static PreparedDevice of(AllocatedDevice device, ContainerEdits edits) {
    return new PreparedDevice(device, edits, Optional.empty(), Map.of());
  }

  public static Builder builder(AllocatedDevice device) {
    return new Builder(device);
  }

  /** Builds a {@link PreparedDevice}. */
  public static final class Builder {
    private final AllocatedDevice device;
    private ContainerEdits edits = ContainerEdits.NONE;
    private Optional<DeviceStatus> status = Optional.empty();
    private final Map<String, String> recorded = new TreeMap<>();

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

    public PreparedDevice build() {
      return new PreparedDevice(device, edits, status, recorded);
    }
  }
}
