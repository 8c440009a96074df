package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Prepares and unprepares claims for the kubelet: what the claim pipeline offers the kubelet plugin
 * server ({@code internal.kubelet}), which depends on this package and not the other way round.
 *
 * <p>Both methods must be idempotent: the kubelet prepares again after it restarts, and unprepares
 * claims whose prepare never finished or that are already deleted.
 *
 * <p>Results are keyed by claim UID. The server completes them: a requested UID missing from the
 * map gets an error entry (the kubelet would otherwise fail the whole call), and entries for UIDs
 * that were not requested are dropped.
 *
 * <p>Throwing fails the whole call with a gRPC status; the message is passed on unchanged. The code
 * follows the exception type: {@link IllegalArgumentException} INVALID_ARGUMENT, {@link
 * IllegalStateException} FAILED_PRECONDITION (for example a claim that is not allocated or was
 * replaced), {@link java.io.IOException} UNAVAILABLE (for example the API server is unreachable),
 * {@link java.util.concurrent.TimeoutException} DEADLINE_EXCEEDED, {@link InterruptedException}
 * CANCELLED, a gRPC {@code StatusException} its own status, anything else INTERNAL. The kubelet
 * retries either way; the code shows up in its {@code dra_grpc_operations_duration_seconds} metric.
 *
 * <p>Threads: the server calls both methods on its gRPC threads and never serializes them; calls
 * may overlap. A service serializes what must not (the claim pipeline with its {@code
 * ClaimSerializer}, after the slow API reads, as the Go helper does).
 */
public interface NodeService {

  /**
   * Prepares the claims.
   *
   * @param claims the requested claims, UIDs unique, in the kubelet's order
   * @return per claim UID, devices or an error
   */
  Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call) throws Exception;

  /**
   * Unprepares the claims; must succeed for claims that are not (or no longer) prepared.
   *
   * @return per claim UID, empty on success or the error
   */
  Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call) throws Exception;
}
