package io.dra4j.api.metadata;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import java.util.List;

/**
 * Rewrites the device metadata file of one request of a prepared claim, as the Go helper's {@code
 * Helper.UpdateRequestMetadata} does (k8s.io/dynamic-resource-allocation v0.37.2, {@code
 * kubeletplugin/metadata.go:202-246}, {@code :418-444}): the file's generation goes up by one and
 * every version the driver writes is written again, atomically. Thread-safe; runs under the claim's
 * lock, so it never overlaps a prepare or unprepare of the same claim.
 *
 * <p>Call it after the claim is prepared and before the pod's containers start (e.g. from a runtime
 * hook after the pod's network is set up): a container already running keeps the file it was
 * started with, since each write replaces the file.
 */
public interface RequestMetadataWriter {

  /**
   * Updates the metadata of the given devices of one request; the request's other devices keep what
   * they had.
   *
   * @param claim the prepared claim
   * @param request the request's name, with its {@code /subrequest} for a {@code firstAvailable}
   *     request ({@code gpu/large}) or without; the file of the base request is rewritten, under
   *     this name
   * @param devices devices of this request that this driver prepared
   * @throws DeviceException when the driver writes no device metadata, the claim or request is not
   *     prepared by this driver, a device is not one of the request's, or the file cannot be
   *     written (the file is then unchanged)
   */
  void update(ClaimRef claim, String request, List<DeviceMetadata> devices) throws DeviceException;
}
