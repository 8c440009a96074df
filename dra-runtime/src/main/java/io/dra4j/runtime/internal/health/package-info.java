/**
 * Device health: from the provider's {@link io.dra4j.api.health.HealthSink} reports to the two
 * places Kubernetes looks.
 *
 * <p>{@link io.dra4j.runtime.internal.health.HealthHub} is the one entry point. It feeds the
 * kubelet's health streams (a {@link io.dra4j.runtime.internal.kubelet.HealthSource}: the full
 * device list, resent well within the kubelet's staleness timeout) and computes device taints as a
 * pure overlay over the driver's pools ({@link
 * io.dra4j.runtime.internal.health.HealthHub#applyTaints}): a device is tainted as soon as it is
 * reported unhealthy and the taint is lifted only after the device stayed healthy for the recovery
 * delay, so a flapping device does not flap in the scheduler. The driver composes the overlay with
 * the rest of its publishing pipeline and republishes when {@link
 * io.dra4j.runtime.internal.health.HealthHub#addTaintListener} fires.
 *
 * <p>{@link io.dra4j.runtime.report.HealthView} is the state for people (status endpoints).
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.health;
