package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.internal.Failures;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A claim's {@code status.devices}, written with server-side apply ({@code resourceclaims/status},
 * forced, under a field manager per writer so that the prepare-time statuses and the binding
 * conditions never remove each other's entries). The one place that builds that request.
 */
final class ClaimStatusWriter {

  private final ClaimEvents events;
  private final Optional<KubeClient> client;
  private final Clock clock;

  ClaimStatusWriter(ClaimEvents events, Optional<KubeClient> client, Clock clock) {
    this.events = events;
    this.client = client;
    this.clock = clock;
  }

  /**
   * Applies {@code devices} as the claim's status entries owned by {@code fieldManager}.
   *
   * @throws KubeException with the API server's answer
   */
  static void apply(
      KubeClient client, ClaimRef claim, List<AllocatedDeviceStatus> devices, String fieldManager)
      throws KubeException {
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("apiVersion", ResourceClaim.TYPE.apiVersion());
    patch.put("kind", ResourceClaim.TYPE.kind());
    patch.put(
        "metadata",
        Map.of("name", claim.name(), "namespace", claim.namespace(), "uid", claim.uid()));
    patch.put("status", Map.of("devices", devices));
    client.apply(
        ResourceClaim.TYPE,
        claim.namespace(),
        claim.name(),
        "status",
        patch,
        new ApplyOptions(fieldManager, true));
  }

  /**
   * Applies the statuses the provider reported at prepare, as recorded in the claim's checkpoint
   * (field manager: the driver name). A condition keeps its {@code lastTransitionTime} while its
   * status is unchanged. Without an API client nothing is applied.
   *
   * @throws ClaimException when a recorded status cannot be read or the API server refuses: the
   *     claim then fails, the kubelet retries, and the repeated prepare applies the status again
   *     from the checkpoint
   */
  void applyRecorded(ResolvedClaim r, ClaimCheckpoint record) throws ClaimException {
    String driver = events.driver();
    List<AllocatedDeviceStatus> entries = new ArrayList<>();
    for (CheckpointDevice d : record.devices()) {
      if (d.status().isEmpty()) {
        continue;
      }
      DeviceStatus s;
      try {
        s = DeviceStatuses.decode(d.status().get());
      } catch (JsonProcessingException e) {
        throw new ClaimException(
            "claim "
                + r.ref()
                + ": the recorded status of device "
                + d.pool()
                + "/"
                + d.device()
                + " cannot be read: "
                + Failures.describe(e),
            e);
      }
      String key = driver + "/" + DeviceIndex.key(d.pool(), d.device(), d.shareId());
      Optional<AllocatedDeviceStatus> previous =
          r.claim().status().devices().stream().filter(p -> p.key().equals(key)).findFirst();
      entries.add(
          DeviceStatuses.toWire(
              driver, d.pool(), d.device(), d.shareId(), s, previous, clock.instant()));
    }
    if (entries.isEmpty()) {
      return;
    }
    if (client.isEmpty()) {
      events
          .log()
          .debug("driver {} claim {}: no API client; claim status not applied", driver, r.ref());
      return;
    }
    try {
      apply(client.get(), r.ref(), entries, driver);
      events
          .log()
          .info(
              "driver {} claim {}: applied status of {} devices", driver, r.ref(), entries.size());
    } catch (KubeException e) {
      throw new ClaimException(
          "claim "
              + r.ref()
              + ": devices are prepared, but applying their status failed (HTTP "
              + e.status()
              + "): "
              + e.getMessage(),
          e);
    }
  }
}
