package io.dra4j.runtime.internal.slices;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.errors.DroppedFieldsException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Fields the API server silently dropped from a slice it stored, and the feature gates that are
 * probably disabled because of it. An API server with a DRA feature gate off strips the gated
 * fields on create and update instead of rejecting them; a publisher that keeps resending them
 * loops forever. The Go controller reports the same thing ({@code DroppedFieldsError}) and then
 * adopts the stored form as its desired state; the publisher should do the same.
 *
 * @param disabledFeatures gate names, in upstream's order (ORDER below); {@code unknown} when the
 *     stored spec differs in a way no known gate explains
 */
public record DroppedFields(List<String> disabledFeatures) {
  public static final String DEVICE_TAINTS = "DRADeviceTaints";
  public static final String PARTITIONABLE_DEVICES = "DRAPartitionableDevices";
  public static final String BINDING_CONDITIONS = "DRADeviceBindingConditions";
  public static final String CONSUMABLE_CAPACITY = "DRAConsumableCapacity";
  public static final String PARTITIONABLE_DEVICES_TYPE = "DRAPartitionableDevicesType";
  public static final String OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations";
  public static final String COMPATIBILITY_GROUPS = "DRADeviceCompatibilityGroups";
  public static final String LIST_TYPE_ATTRIBUTES = "DRAListTypeAttributes";
  public static final String NODE_ALLOCATABLE_RESOURCES = "DRANodeAllocatableResources";
  public static final String UNKNOWN = DroppedFieldsException.UNKNOWN;

  /**
   * The order of the report: upstream's {@code DroppedFieldsError.DisabledFeatures()}
   * (k8s.io/dynamic-resource-allocation v0.37.2 resourceslice/resourceslicecontroller.go), then the
   * two gates upstream reports as unknown, although its API server drops their fields too.
   */
  private static final List<String> ORDER =
      List.of(
          DEVICE_TAINTS,
          PARTITIONABLE_DEVICES,
          BINDING_CONDITIONS,
          CONSUMABLE_CAPACITY,
          PARTITIONABLE_DEVICES_TYPE,
          OPTIONAL_NODE_OPERATIONS,
          COMPATIBILITY_GROUPS,
          LIST_TYPE_ATTRIBUTES,
          NODE_ALLOCATABLE_RESOURCES);

  public DroppedFields {
    disabledFeatures = List.copyOf(disabledFeatures);
  }

  /**
   * Compares what was sent with what the API server returned from the create or update. Server
   * defaults (taint {@code timeAdded}) are not a drop.
   *
   * @return empty when the server stored the devices, counter sets and node selection as sent
   */
  public static Optional<DroppedFields> detect(ResourceSliceSpec sent, ResourceSliceSpec stored) {
    ResourceSliceSpec expected = SliceDiff.withTaintTimesFrom(sent, stored);
    boolean same =
        SliceDiff.devicesEqual(expected.devices(), stored.devices())
            && expected.sharedCounters().equals(stored.sharedCounters())
            && expected.perDeviceNodeSelection() == stored.perDeviceNodeSelection()
            && expected.partitionTypeAttribute().equals(stored.partitionTypeAttribute())
            && expected.skipNodeOperations().equals(stored.skipNodeOperations());
    if (same) {
      return Optional.empty();
    }
    Set<String> gates = new HashSet<>();
    if ((sent.perDeviceNodeSelection() && !stored.perDeviceNodeSelection())
        || sent.sharedCounters().size() > stored.sharedCounters().size()) {
      gates.add(PARTITIONABLE_DEVICES);
    }
    if (sent.partitionTypeAttribute().isPresent() && stored.partitionTypeAttribute().isEmpty()) {
      gates.add(PARTITIONABLE_DEVICES_TYPE);
    }
    if (!sent.skipNodeOperations().isEmpty() && stored.skipNodeOperations().isEmpty()) {
      gates.add(OPTIONAL_NODE_OPERATIONS);
    }
    Map<String, Device> storedByName = new HashMap<>();
    for (Device d : stored.devices()) {
      storedByName.putIfAbsent(d.name(), d);
    }
    for (int i = 0; i < sent.devices().size(); i++) {
      Device s = sent.devices().get(i);
      Device t = storedByName.get(s.name());
      if (t == null) {
        continue;
      }
      if (s.taints().size() > t.taints().size()) {
        gates.add(DEVICE_TAINTS);
      }
      if (s.consumesCounters().size() != t.consumesCounters().size()
          || (s.nodeName().isPresent() && t.nodeName().isEmpty())
          || (s.nodeSelector().isPresent() && t.nodeSelector().isEmpty())
          || (s.allNodes() && !t.allNodes())) {
        gates.add(PARTITIONABLE_DEVICES);
      }
      if (s.bindingConditions().size() != t.bindingConditions().size()
          || s.bindingFailureConditions().size() != t.bindingFailureConditions().size()
          || (s.bindsToNode() && !t.bindsToNode())) {
        gates.add(BINDING_CONDITIONS);
      }
      if ((s.allowMultipleAllocations() && !t.allowMultipleAllocations())
          || requestPolicyDropped(s, t)) {
        gates.add(CONSUMABLE_CAPACITY);
      }
      if (listAttributeDropped(s, t)) {
        gates.add(LIST_TYPE_ATTRIBUTES);
      }
      if (s.nodeAllocatableResources().size() > t.nodeAllocatableResources().size()) {
        gates.add(NODE_ALLOCATABLE_RESOURCES);
      }
      if (compatibilityGroupsDropped(s, t)) {
        gates.add(COMPATIBILITY_GROUPS);
      }
    }
    if (gates.isEmpty()) {
      return Optional.of(new DroppedFields(List.of(UNKNOWN)));
    }
    return Optional.of(new DroppedFields(ORDER.stream().filter(gates::contains).toList()));
  }

  private static boolean requestPolicyDropped(Device sent, Device stored) {
    return sent.capacity().entrySet().stream()
        .anyMatch(
            e ->
                e.getValue().requestPolicy().isPresent()
                    && (stored.capacity().get(e.getKey()) == null
                        || stored.capacity().get(e.getKey()).requestPolicy().isEmpty()));
  }

  /** Groups sent on a consumption that the server stored without them. */
  private static boolean compatibilityGroupsDropped(Device sent, Device stored) {
    for (DeviceCounterConsumption c : sent.consumesCounters()) {
      if (c.compatibilityGroups().isEmpty()) {
        continue;
      }
      boolean kept =
          stored.consumesCounters().stream()
              .anyMatch(
                  t -> t.counterSet().equals(c.counterSet()) && !t.compatibilityGroups().isEmpty());
      if (!kept) {
        return true;
      }
    }
    return false;
  }

  private static boolean listAttributeDropped(Device sent, Device stored) {
    return sent.attributes().entrySet().stream()
        .anyMatch(
            e -> {
              if (!e.getValue().listForm()) {
                return false;
              }
              DeviceAttribute s = stored.attributes().get(e.getKey());
              return s == null || !s.listForm();
            });
  }

  /** The report of one slice, as the publisher hands it to the driver's error handler. */
  public DroppedFieldsException exception(String pool, int sliceIndex) {
    return new DroppedFieldsException(pool, sliceIndex, disabledFeatures);
  }

  /** A log message naming the pool, the slice index and the gates that are probably off. */
  public String message(String pool, int sliceIndex) {
    return exception(pool, sliceIndex).getMessage();
  }
}
