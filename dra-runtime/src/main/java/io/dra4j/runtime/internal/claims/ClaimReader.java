package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceClaim;
import java.io.IOException;

/**
 * Reads and checks the kubelet's claims before the serialization lock, as the Go helper does: the
 * API server's round trip holds up no other call. A claim that is not found, was replaced, is not
 * allocated or carries an invalid config is refused on its own; an API server that cannot answer
 * fails the whole call.
 */
final class ClaimReader {

  /** A claim as read: ready to prepare, or refused with the reason. */
  sealed interface Read permits Readable, Refused {}

  record Readable(ResolvedClaim claim) implements Read {}

  record Refused(ClaimException reason) implements Read {}

  private final ClaimEvents events;
  private final ClaimSource source;
  private final OpaqueConfigs configs;

  ClaimReader(ClaimEvents events, ClaimSource source, OpaqueConfigs configs) {
    this.events = events;
    this.source = source;
    this.configs = configs;
  }

  /**
   * Reads and checks one claim.
   *
   * @throws IOException when the API server cannot answer: nothing is wrong with the claim, and the
   *     whole call fails so that the kubelet retries it
   */
  Read read(ClaimRef ref) throws IOException {
    String driver = events.driver();
    ResourceClaim claim;
    try {
      claim = source.get(ref.namespace(), ref.name());
    } catch (KubeException e) {
      if (e.status() == 0 || e.status() >= 500 || e.status() == 429) {
        // The API server is unreachable or overloaded: nothing about this claim is wrong, fail the
        // call (UNAVAILABLE) and let the kubelet retry it whole.
        throw new IOException(
            "cannot read ResourceClaim " + ref + " for driver " + driver + ": " + e.getMessage(),
            e);
      }
      return new Refused(
          new ClaimException(
              "cannot read ResourceClaim "
                  + ref
                  + (e.isNotFound()
                      ? ": not found"
                      : ": HTTP " + e.status() + " " + e.getMessage()),
              e));
    }
    try {
      ResolvedClaim r = ResolvedClaim.resolve(ref, claim, driver, configs);
      if (claim.metadata().deletionTimestamp().isPresent()) {
        // The kubelet still prepares claims of running pods (e.g. after its restart) while the
        // claim waits for them to finish: refusing would break those pods.
        events
            .log()
            .info(
                "driver {} claim {}: the claim is being deleted; preparing it anyway", driver, ref);
      }
      return new Readable(r);
    } catch (ClaimException e) {
      return new Refused(e);
    }
  }
}
