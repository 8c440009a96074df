package io.dra4j.api.health;

/**
 * Capability: the provider monitors device health. The runtime streams it to the kubelet (pod
 * status) and taints unhealthy devices in the driver's ResourceSlices, lifting the taint once the
 * device has stayed healthy for a while.
 */
public interface HealthReporting {

  /**
   * Starts monitoring, after the first discover. Return promptly: run any blocking watch on a
   * thread of your own and stop it in {@link io.dra4j.api.provider.DeviceProvider#close()}.
   */
  void startHealthMonitoring(HealthSink sink) throws Exception;
}
