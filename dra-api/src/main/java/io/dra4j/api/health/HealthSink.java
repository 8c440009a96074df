package io.dra4j.api.health;

import java.util.List;

/** Where a provider reports device health. Thread-safe. */
public interface HealthSink {

  /**
   * Reports the health of some devices; devices not named keep their last known health. The runtime
   * resends the full list to the kubelet well within its staleness timeout, so report on change,
   * not on a timer.
   */
  void report(List<DeviceHealth> health);

  default void report(DeviceHealth health) {
    report(List.of(health));
  }
}
