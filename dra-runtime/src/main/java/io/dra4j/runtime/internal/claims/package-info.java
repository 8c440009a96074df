/**
 * The claim preparation pipeline ({@link io.dra4j.runtime.internal.claims.ClaimPreparer}): the
 * {@link io.dra4j.runtime.internal.claims.NodeService} that turns the kubelet's prepare and
 * unprepare calls into provider calls, CDI specs, checkpoint records, claim status and device
 * metadata, crash-safe and idempotent. It knows nothing of the kubelet's wire: its answer is the
 * checkpoint record's devices, which the kubelet plugin server turns into messages.
 *
 * <h2>Forms of a prepared device</h2>
 *
 * Three, each at a boundary: the provider's {@link io.dra4j.api.claim.PreparedDevice} (the vendor
 * API), the checkpoint record's {@link io.dra4j.runtime.internal.checkpoint.CheckpointDevice} (what
 * survives a crash and what every answer to the kubelet is made from) and the kubelet's protobuf
 * {@code Device} (the wire).
 *
 * <h2>Decisions</h2>
 *
 * <ul>
 *   <li>Claim lookups happen before the serialization lock. A claim that is not found, was replaced
 *       (another UID), is not allocated or carries an invalid config fails on its own (per-claim
 *       error naming it): the kubelet treats a per-claim error and a failed call alike (the pod's
 *       prepare fails and is retried), and the per-claim form names the claim and lets the other
 *       claims of the call be prepared. An API server that cannot be reached (no answer, 5xx, 429)
 *       fails the whole call with UNAVAILABLE: nothing about the claims is wrong.
 *   <li>A claim being deleted is still prepared: the kubelet prepares claims of running pods again
 *       after its restart, while the claim waits for them to finish. Unprepare never reads the API.
 *   <li>Claim status is applied with server-side apply ({@code resourceclaims/status}, field
 *       manager = driver name, force) after the PrepareCompleted record. A failed apply fails the
 *       claim: the kubelet retries, the repeat prepare is answered from the checkpoint and applies
 *       the status again (it is kept in the record, checkpoint format 2; format 1 kept it under the
 *       recorded key {@code dra4j.io/status} and is migrated on read). A condition keeps its {@code
 *       lastTransitionTime} while its status is unchanged.
 *   <li>Device metadata files are written as k8s.io/dynamic-resource-allocation v0.37.2 writes them
 *       ({@link io.dra4j.runtime.internal.claims.DeviceMetadataFiles}, {@link
 *       io.dra4j.runtime.internal.claims.DeviceMetadataStream}). They are part of a prepare: a
 *       write error fails and rolls back the claim (upstream only logs it and answers without the
 *       metadata CDI device, {@code kubeletplugin/draplugin.go:1326-1330}), so a prepared claim's
 *       containers always find their file. A provider's update runs under the claim's lock.
 *   <li>Concurrency has one owner, {@link io.dra4j.runtime.internal.claims.ClaimSerializer}, built
 *       per driver from its pod UID and the provider's {@code threadSafe()}; the kubelet server
 *       itself never serializes. A provider that is not thread-safe gets one call at a time. A
 *       thread-safe one gets calls in parallel: the process holds the cross-process file lock
 *       (rolling update) while any of its calls runs, so two driver processes never interleave;
 *       claims are ordered by a per-claim mutex and the overlap guard is one atomic index. A small
 *       owner file, kept by the serializer, tells a process that another one held the lock
 *       meanwhile; it then rebuilds the index from the records.
 * </ul>
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.claims;
