/**
 * Fault injection between a driver and any Kubernetes API server: {@link
 * io.dra4j.testkit.faults.FaultProxy} forwards HTTP to the test kit's server or a real
 * kube-apiserver and, following a seeded {@link io.dra4j.testkit.faults.FaultPlan}, throttles,
 * fails, delays, resets, cuts watches and goes away, counting every fault and request so a soak
 * test can check what the driver made of them.
 */
package io.dra4j.testkit.faults;
