package io.dra4j.runtime.extendedresource;

import io.dra4j.api.device.Quantity;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What the extended-resource guard decided, and why: for a status endpoint, logs and tests.
 *
 * @param driver the driver name
 * @param node the node name
 * @param policy what the guard does about a conflict
 * @param synced whether DeviceClasses and the Node have been read; before that, WAIT publishes
 *     nothing
 * @param nodeFound whether the Node object exists (without it no conflict can be seen)
 * @param names every extended resource name the Node's status lists (at any value) whose
 *     DeviceClass selects this driver's devices, with its phase on this node
 * @param conflicts the names among them that the node still makes allocatable (a device plugin
 *     serves them, as the scheduler sees it)
 * @param duplicates explicit names mapped by several DeviceClasses, of which one selects this
 *     driver's devices
 * @param unusableImplicitNames implicit names of classes selecting this driver's devices that
 *     cannot be requested
 * @param problems DeviceClasses the guard could not evaluate fully (a selector that does not
 *     compile selects nothing; one of an unknown kind is ignored)
 * @param waitingSince under WAIT, since when devices have been held back
 */
public record GuardReport(
    String driver,
    String node,
    ExtendedResourceGuard.Policy policy,
    boolean synced,
    boolean nodeFound,
    List<NameStatus> names,
    List<Conflict> conflicts,
    List<Duplicate> duplicates,
    List<UnusableName> unusableImplicitNames,
    List<String> problems,
    Optional<Instant> waitingSince) {

  public GuardReport {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(policy, "policy");
    names = List.copyOf(names);
    conflicts = List.copyOf(conflicts);
    duplicates = List.copyOf(duplicates);
    unusableImplicitNames = List.copyOf(unusableImplicitNames);
    problems = List.copyOf(problems);
    Objects.requireNonNull(waitingSince, "waitingSince");
  }

  /** Whether {@link ExtendedResourceGuard#filter} holds devices back now. */
  public boolean blocking() {
    return policy == ExtendedResourceGuard.Policy.WAIT && (!synced || !conflicts.isEmpty());
  }

  /** Every device held back (or, under WARN and FAIL, that would be), in order, once. */
  public List<DeviceRef> affectedDevices() {
    return conflicts.stream()
        .flatMap(c -> c.affectedDevices().stream())
        .distinct()
        .collect(Collectors.toUnmodifiableList());
  }

  /**
   * Where a name stands on this node, read from the Node's status as the kubelet writes it and the
   * scheduler reads it.
   *
   * <p>The scheduler hands a name to DRA exactly when the node's allocatable for it is 0 or absent
   * ({@code pkg/scheduler/framework/plugins/noderesources/fit.go:273-291} {@code
   * shouldDelegateResourceToDRA}, {@code dynamicresources/extendeddynamicresources.go:241-246} at
   * v1.37.2); capacity plays no part. The kubelet's device manager sets allocatable to the plugin's
   * healthy devices, so a stopped plugin shows allocatable 0 at the next node status update (its
   * devices are marked unhealthy: {@code pkg/kubelet/cm/devicemanager/manager.go:256-283}
   * PluginDisconnected, 447-458 markResourceUnhealthy), while capacity keeps counting them for
   * {@code endpointStopGracePeriod}, 5 minutes ({@code types.go:121-125}, {@code
   * manager.go:472-521} GetCapacity), and then shows 0 for good ({@code
   * pkg/kubelet/nodestatus/setters.go:274-284}).
   */
  public enum Phase {
    /** Allocatable above 0: the scheduler sends pods asking for the name to the device plugin. */
    DEVICE_PLUGIN("device-plugin"),
    /**
     * Capacity above 0, allocatable 0: the device plugin stopped less than 5 minutes ago, or runs
     * with every device unhealthy. The scheduler already sends pods asking for the name to DRA.
     */
    PLUGIN_STOPPED("plugin-stopped"),
    /** Capacity and allocatable 0 or absent: no device plugin serves the name here. */
    DRA("dra");

    private final String json;

    Phase(String json) {
      this.json = json;
    }

    /** The phase's name in JSON and log lines: {@code device-plugin}, {@code plugin-stopped}... */
    public String json() {
      return json;
    }
  }

  /**
   * One name the Node's status lists whose DeviceClass selects this driver's devices.
   *
   * @param resourceName the extended resource name
   * @param deviceClass the class the scheduler uses for the name
   * @param capacity the node's {@code status.capacity} for the name, if present
   * @param allocatable the node's {@code status.allocatable} for the name, if present
   * @param phase where the name stands on this node
   * @param published whether this driver publishes the class's devices now; with phase {@link
   *     Phase#DEVICE_PLUGIN} that is a conflict (the {@code warn} policy)
   */
  public record NameStatus(
      String resourceName,
      String deviceClass,
      Optional<Quantity> capacity,
      Optional<Quantity> allocatable,
      Phase phase,
      boolean published) {
    public NameStatus {
      Objects.requireNonNull(resourceName, "resourceName");
      Objects.requireNonNull(deviceClass, "deviceClass");
      Objects.requireNonNull(capacity, "capacity");
      Objects.requireNonNull(allocatable, "allocatable");
      Objects.requireNonNull(phase, "phase");
    }
  }

  /**
   * A name served both ways on this node: the node makes it allocatable (a device plugin serves it)
   * and a DeviceClass maps it to this driver's devices.
   *
   * @param resourceName the extended resource name
   * @param deviceClasses the class the scheduler uses for the name
   * @param node the node name
   * @param capacity the node's {@code status.capacity} for the name, if present
   * @param allocatable the node's {@code status.allocatable} for the name, if present
   * @param affectedDevices this driver's devices the class selects
   */
  public record Conflict(
      String resourceName,
      List<String> deviceClasses,
      String node,
      Optional<Quantity> capacity,
      Optional<Quantity> allocatable,
      List<DeviceRef> affectedDevices) {
    public Conflict {
      Objects.requireNonNull(resourceName, "resourceName");
      deviceClasses = List.copyOf(deviceClasses);
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(capacity, "capacity");
      Objects.requireNonNull(allocatable, "allocatable");
      affectedDevices = List.copyOf(affectedDevices);
    }

    /** One sentence for logs and fatal errors: class, name, node and values. */
    public String describe() {
      return "extended resource "
          + resourceName
          + " is mapped by DeviceClass "
          + String.join(", ", deviceClasses)
          + " to "
          + affectedDevices.size()
          + " device(s) of this driver, but node "
          + node
          + " still makes it allocatable (capacity "
          + capacity.map(Quantity::toString).orElse("absent")
          + ", allocatable "
          + allocatable.map(Quantity::toString).orElse("absent")
          + "): a device plugin serves it here, and serving one name both ways over-admits pods";
    }
  }

  /**
   * Several DeviceClasses with the same explicit extended resource name: the scheduler uses one.
   *
   * @param resourceName the name
   * @param winner the class the scheduler uses (the newest; on equal creation times the
   *     lexicographically first name)
   * @param ignored the other classes, which the name does not reach
   */
  public record Duplicate(String resourceName, String winner, List<String> ignored) {
    public Duplicate {
      Objects.requireNonNull(resourceName, "resourceName");
      Objects.requireNonNull(winner, "winner");
      ignored = List.copyOf(ignored);
    }
  }

  /**
   * An implicit name no pod can request.
   *
   * @param deviceClass the class
   * @param resourceName {@code deviceclass.resource.kubernetes.io/<class>}
   * @param reason the rule it breaks
   */
  public record UnusableName(String deviceClass, String resourceName, String reason) {
    public UnusableName {
      Objects.requireNonNull(deviceClass, "deviceClass");
      Objects.requireNonNull(resourceName, "resourceName");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** One device of this driver. */
  public record DeviceRef(String pool, String device) {
    public DeviceRef {
      Objects.requireNonNull(pool, "pool");
      Objects.requireNonNull(device, "device");
    }

    @Override
    public String toString() {
      return pool + "/" + device;
    }
  }
}
