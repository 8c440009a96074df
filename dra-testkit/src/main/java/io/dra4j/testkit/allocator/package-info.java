/**
 * A small scheduler-like allocator for tests and the no-cluster demo.
 *
 * <ul>
 *   <li>{@link io.dra4j.testkit.allocator.Allocator}: pure allocation of one ResourceClaim on one
 *       node from ResourceSlices and DeviceClasses, producing {@code status.allocation} as
 *       kube-scheduler writes it, or an {@link
 *       io.dra4j.testkit.allocator.AllocationOutcome.Unsatisfiable} that names the request and what
 *       failed.
 *   <li>{@link io.dra4j.testkit.allocator.ExtendedResourceMapping}: KEP-5004 extended resource
 *       names of DeviceClasses and the claim the scheduler builds for a pod that requests them.
 *   <li>{@link io.dra4j.testkit.allocator.ClusterAllocator}: the same against an API server
 *       (typically the test kit's fake one): allocate and reserve claims, schedule pods.
 * </ul>
 *
 * <p>Deliberate differences from kube-scheduler: a claim config naming several requests appears
 * once in the allocation (the scheduler's loop can add it once per named request); a pool whose
 * newest generation has no slice for the node is ignored even when the older generation looks
 * complete; several claims of one pod are allocated one after the other, not searched jointly.
 */
package io.dra4j.testkit.allocator;
