package io.dra4j.testkit.kubelet;

import io.dra4j.api.health.HealthStatus;

/** One device of a health stream message. */
public record DeviceHealthReport(
    String poolName,
    String deviceName,
    HealthStatus health,
    long lastUpdatedSeconds,
    long healthCheckTimeoutSeconds,
    String message) {}
