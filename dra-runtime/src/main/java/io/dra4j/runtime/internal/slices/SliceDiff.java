package io.dra4j.runtime.internal.slices;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.kube.ResourceSliceSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Change detection between a desired slice spec and the spec an existing slice has on the API
 * server, so the publisher writes only what changed.
 *
 * <p>The comparison is semantic where the API server rewrites values and exact everywhere else:
 *
 * <ul>
 *   <li>quantities compare by value ({@code 1024Mi} equals {@code 1Gi}), as {@code Quantity} does;
 *   <li>a taint's {@code timeAdded} is filled in by the API server: a missing time on either side
 *       matches any time, two times match when they are at most one second apart (the server stores
 *       seconds);
 *   <li>order matters everywhere (devices, taints, counter sets, list attributes): the order of
 *       devices is the scheduler's preference, so a reordering is a change;
 *   <li>fields this version of dra4j does not model ({@code unknownFields}) are ignored: dra4j
 *       never sets them, and comparing them would turn every field a newer API server adds into an
 *       endless update loop.
 * </ul>
 */
final class SliceDiff {
  private SliceDiff() {}

  private static final Duration TAINT_TIME_TOLERANCE = Duration.ofSeconds(1);

  /** Whether {@code existing} must be updated to match {@code desired}. */
  public static boolean needsUpdate(ResourceSliceSpec desired, ResourceSliceSpec existing) {
    return !differences(desired, existing).isEmpty();
  }

  /**
   * The names of the top-level spec fields that differ ({@code pool}, {@code devices}, ...), in a
   * fixed order; empty when no update is needed. Meant for logs.
   */
  public static List<String> differences(ResourceSliceSpec desired, ResourceSliceSpec existing) {
    List<String> out = new ArrayList<>();
    diff(out, "driver", desired.driver(), existing.driver());
    diff(out, "pool", desired.pool(), existing.pool());
    diff(out, "nodeName", desired.nodeName(), existing.nodeName());
    diff(out, "nodeSelector", desired.nodeSelector(), existing.nodeSelector());
    diff(out, "allNodes", desired.allNodes(), existing.allNodes());
    diff(
        out,
        "perDeviceNodeSelection",
        desired.perDeviceNodeSelection(),
        existing.perDeviceNodeSelection());
    if (!devicesEqual(desired.devices(), existing.devices())) {
      out.add("devices");
    }
    diff(out, "sharedCounters", desired.sharedCounters(), existing.sharedCounters());
    diff(
        out,
        "partitionTypeAttribute",
        desired.partitionTypeAttribute(),
        existing.partitionTypeAttribute());
    diff(out, "skipNodeOperations", desired.skipNodeOperations(), existing.skipNodeOperations());
    return out;
  }

  /** Device lists compared as described in the class comment. */
  public static boolean devicesEqual(List<Device> a, List<Device> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!deviceEqual(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** One device compared as described in the class comment. */
  public static boolean deviceEqual(Device a, Device b) {
    return a.name().equals(b.name())
        && a.attributes().equals(b.attributes())
        && a.capacity().equals(b.capacity())
        && a.consumesCounters().equals(b.consumesCounters())
        && a.nodeName().equals(b.nodeName())
        && a.nodeSelector().equals(b.nodeSelector())
        && a.allNodes() == b.allNodes()
        && taintsEqual(a.taints(), b.taints())
        && a.bindsToNode() == b.bindsToNode()
        && a.bindingConditions().equals(b.bindingConditions())
        && a.bindingFailureConditions().equals(b.bindingFailureConditions())
        && a.allowMultipleAllocations() == b.allowMultipleAllocations()
        && a.nodeAllocatableResources().equals(b.nodeAllocatableResources());
  }

  private static boolean taintsEqual(List<DeviceTaint> a, List<DeviceTaint> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      DeviceTaint x = a.get(i);
      DeviceTaint y = b.get(i);
      if (!x.sameAs(y)) {
        return false;
      }
      if (x.timeAdded().isPresent() && y.timeAdded().isPresent()) {
        if (!timesClose(x.timeAdded().get(), y.timeAdded().get())) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean timesClose(String a, String b) {
    Optional<Instant> x = instant(a);
    Optional<Instant> y = instant(b);
    if (x.isEmpty() || y.isEmpty()) {
      return a.equals(b);
    }
    return Duration.between(x.get(), y.get()).abs().compareTo(TAINT_TIME_TOLERANCE) <= 0;
  }

  private static Optional<Instant> instant(String rfc3339) {
    try {
      return Optional.of(OffsetDateTime.parse(rfc3339).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /**
   * {@code desired} with the taint times of {@code existing} copied in: a desired taint without
   * {@code timeAdded} takes the time of the existing taint with the same key, value and effect on
   * the device with the same name. Use it before an update so that a taint keeps the time it was
   * first added, and after a write to adopt the times the API server filled in.
   */
  public static ResourceSliceSpec withTaintTimesFrom(
      ResourceSliceSpec desired, ResourceSliceSpec existing) {
    Map<String, Device> byName = new HashMap<>();
    for (Device d : existing.devices()) {
      byName.putIfAbsent(d.name(), d);
    }
    boolean changed = false;
    List<Device> devices = new ArrayList<>(desired.devices().size());
    for (Device d : desired.devices()) {
      Device old = byName.get(d.name());
      Device copied = old == null ? d : copyTaintTimes(d, old);
      changed |= copied != d;
      devices.add(copied);
    }
    return changed ? desired.withDevices(devices) : desired;
  }

  private static Device copyTaintTimes(Device to, Device from) {
    boolean changed = false;
    List<DeviceTaint> taints = new ArrayList<>(to.taints().size());
    for (DeviceTaint t : to.taints()) {
      DeviceTaint result = t;
      if (t.timeAdded().isEmpty()) {
        for (DeviceTaint old : from.taints()) {
          if (old.sameAs(t) && old.timeAdded().isPresent()) {
            result = t.withTimeAdded(old.timeAdded().get());
            changed = true;
            break;
          }
        }
      }
      taints.add(result);
    }
    return changed ? to.toBuilder().taints(taints).build() : to;
  }

  private static void diff(List<String> out, String field, Object a, Object b) {
    if (!Objects.equals(a, b)) {
      out.add(field);
    }
  }
}
