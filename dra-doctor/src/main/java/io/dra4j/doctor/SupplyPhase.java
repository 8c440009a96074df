package io.dra4j.doctor;

import io.dra4j.runtime.extendedresource.GuardReport.Phase;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator;

/**
 * Where a name stands on a node in the migration: the guard's phase ({@link GuardEvaluator#phase},
 * the phase a driver's {@code /status} shows, read from the Node's status as the v1.37.2 kubelet
 * writes it and the scheduler reads it), and {@link #CONFLICT} where the device plugin serves the
 * name while untainted DRA devices for it are published on the node.
 */
enum SupplyPhase {
  /** Allocatable above 0: the scheduler sends pods asking for the name to the device plugin. */
  DEVICE_PLUGIN(Phase.DEVICE_PLUGIN.json()),
  /** Allocatable above 0 while untainted DRA devices for the name are published on the node. */
  CONFLICT("conflict"),
  /**
   * Capacity above 0, allocatable 0: the plugin stopped less than 5 minutes ago, or runs with all
   * its devices unhealthy; the scheduler already uses DRA where a DeviceClass maps the name.
   */
  PLUGIN_STOPPED(Phase.PLUGIN_STOPPED.json()),
  /** Capacity and allocatable 0 or absent: no device plugin here. */
  DRA(Phase.DRA.json());

  /** The value of {@code supply[].phase}. */
  final String json;

  SupplyPhase(String json) {
    this.json = json;
  }

  static SupplyPhase of(Phase guard, int untaintedDraDevices) {
    return switch (guard) {
      case DEVICE_PLUGIN -> untaintedDraDevices > 0 ? CONFLICT : DEVICE_PLUGIN;
      case PLUGIN_STOPPED -> PLUGIN_STOPPED;
      case DRA -> DRA;
    };
  }

  static SupplyPhase fromJson(String json) {
    for (SupplyPhase p : values()) {
      if (p.json.equals(json)) {
        return p;
      }
    }
    throw new IllegalArgumentException("no phase " + json);
  }

  /**
   * The phase in a few words, for the table.
   *
   * @param mapped whether a DeviceClass maps the name (without one the scheduler never uses DRA)
   * @param draDevices devices on the node the class selects
   */
  String words(boolean mapped, int draDevices) {
    return switch (this) {
      case DEVICE_PLUGIN -> "plugin serving";
      case CONFLICT -> "CONFLICT: plugin and DRA";
      case PLUGIN_STOPPED ->
          "plugin stopped < 5 min ago or unhealthy" + (mapped ? "; scheduler uses DRA" : "");
      case DRA -> mapped && draDevices > 0 ? "migrated" : "no plugin";
    };
  }
}
