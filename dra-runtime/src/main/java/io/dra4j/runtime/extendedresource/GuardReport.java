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
 * @param conflicts extended resource names this node still advertises while a DeviceClass selects
 *     this driver's devices for them
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
    List<Conflict> conflicts,
    List<Duplicate> duplicates,
    List<UnusableName> unusableImplicitNames,
    List<String> problems,
    Optional<Instant> waitingSince) {

  public GuardReport {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(policy, "policy");
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
   * A name served both ways on this node: the node advertises it (a device plugin) and a
   * DeviceClass maps it to this driver's devices.
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
          + " still advertises it (capacity "
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
