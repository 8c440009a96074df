package io.dra4j.api.health;

/**
 * Capability: the provider monitors device health. The runtime streams it to the kubelet (pod
 * status) and taints unhealthy devices in the driver's ResourceSlices, lifting the taint once the
 * device has stayed healthy for a while.
 *
 * <p>The kubelet trusts a report only for the device's health check timeout: the provider reports
 * every device again within it, even without a change ({@link HealthSink}). The runtime does not
 * refresh reports on the provider's behalf.
 */
public interface HealthReporting {

  /**
   * Starts monitoring, after the first discover: report every device at once, then on change and
   * again within each device's timeout. Return promptly: run any blocking watch on a thread of your
   * own and stop it in {@link io.dra4j.api.provider.DeviceProvider#close()}.
   */
  void startHealthMonitoring(HealthSink sink) throws Exception;
}
