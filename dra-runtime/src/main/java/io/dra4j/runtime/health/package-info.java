/**
 * Device health: from the provider's {@link io.dra4j.api.health.HealthSink} reports to the two
 * places Kubernetes looks.
 *
 * <p>{@link io.dra4j.runtime.health.HealthHub} is the one entry point. It feeds the kubelet's
 * health streams (a {@link io.dra4j.runtime.kubelet.HealthSource}: the full device list, resent
 * well within the kubelet's staleness timeout) and computes device taints as a pure overlay over
 * the driver's pools ({@link io.dra4j.runtime.health.HealthHub#applyTaints}): a device is tainted
 * as soon as it is reported unhealthy and the taint is lifted only after the device stayed healthy
 * for the recovery delay, so a flapping device does not flap in the scheduler. The driver composes
 * the overlay with the rest of its publishing pipeline and republishes when {@link
 * io.dra4j.runtime.health.HealthHub#addTaintListener} fires.
 *
 * <p>{@link io.dra4j.runtime.health.HealthView} is the state for people (status endpoints).
 */
package io.dra4j.runtime.health;
