package io.dra4j.runtime.internal.checkpoint;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.claim.RecordedDevice;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One device of a checkpointed claim: enough to answer a repeated prepare with exactly the same
 * response, to rebuild the overlap guard at startup, and to hand the provider what it recorded when
 * the claim is unprepared.
 *
 * @param request the base request name (no {@code /subrequest}); the kubelet's answer names this
 *     one request
 * @param pool pool name
 * @param device device name
 * @param shareId share id of a device allocated with consumable capacity
 * @param adminAccess whether the device was allocated with admin access (does not block others)
 * @param cdiDeviceIds the qualified CDI ids returned to the kubelet; empty before prepare completes
 *     or when the device has no container edits
 * @param recorded what the provider recorded ({@link PreparedDevice#recorded()}); empty before
 *     prepare completes
 * @param status the device's claim status as JSON (opaque here), applied again when a repeated
 *     prepare is answered from the checkpoint; empty when the provider reported none
 */
public record CheckpointDevice(
    String request,
    String pool,
    String device,
    Optional<String> shareId,
    boolean adminAccess,
    List<String> cdiDeviceIds,
    Map<String, String> recorded,
    Optional<String> status) {

  public CheckpointDevice {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(shareId, "shareId");
    cdiDeviceIds = List.copyOf(cdiDeviceIds);
    recorded = Map.copyOf(recorded);
    Objects.requireNonNull(status, "status");
  }

  /** An allocated device whose prepare has not finished: no CDI ids, nothing recorded. */
  public static CheckpointDevice allocated(AllocatedDevice d) {
    return new CheckpointDevice(
        d.request(),
        d.pool(),
        d.device(),
        d.shareId(),
        d.adminAccess(),
        List.of(),
        Map.of(),
        Optional.empty());
  }

  /** A prepared device with the CDI ids returned for it and its status (as JSON). */
  public static CheckpointDevice prepared(
      PreparedDevice p, List<String> cdiDeviceIds, Optional<String> status) {
    AllocatedDevice d = p.device();
    return new CheckpointDevice(
        d.request(),
        d.pool(),
        d.device(),
        d.shareId(),
        d.adminAccess(),
        cdiDeviceIds,
        p.recorded(),
        status);
  }

  /** What {@code DeviceProvider.unprepare} gets for this device. */
  public RecordedDevice toRecordedDevice() {
    RecordedDevice d = RecordedDevice.of(request, pool, device).withRecorded(recorded);
    return shareId.map(d::withShareId).orElse(d);
  }
}
