package io.dra4j.api.health;

/** Health of a device, as the kubelet's health stream knows it. */
public enum HealthStatus {
  HEALTHY,
  UNHEALTHY,
  UNKNOWN
}
