package io.dra4j.testkit.allocator;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Compatibility groups (KEP-5963) on one counter set: what the devices placed on it so far have in
 * common. A device fits when its groups intersect that; a device without groups fits only while
 * every device placed declared none, and a device with groups never fits next to one without. That
 * "all without groups" state is not an empty intersection (which would refuse a second device
 * without groups), so it is kept apart. Immutable: the search keeps the value before a placement to
 * undo it.
 *
 * @param members whether any device is placed on the counter set
 * @param withoutGroups whether every device placed declared no groups
 * @param groups the intersection of the groups of the devices placed (when some declared groups)
 */
record GroupIntersection(boolean members, boolean withoutGroups, Set<String> groups) {
  static final GroupIntersection EMPTY = new GroupIntersection(false, false, Set.of());

  GroupIntersection {
    groups = Set.copyOf(groups);
  }

  boolean admits(List<String> deviceGroups) {
    if (!members) {
      return true;
    }
    if (deviceGroups.isEmpty() || withoutGroups) {
      return deviceGroups.isEmpty() && withoutGroups;
    }
    return deviceGroups.stream().anyMatch(groups::contains);
  }

  /** The state with one more device placed; the caller checked {@link #admits} first. */
  GroupIntersection plus(List<String> deviceGroups) {
    if (!members) {
      return new GroupIntersection(true, deviceGroups.isEmpty(), Set.copyOf(deviceGroups));
    }
    if (withoutGroups || deviceGroups.isEmpty()) {
      return this;
    }
    Set<String> common = new LinkedHashSet<>(groups);
    common.retainAll(deviceGroups);
    return new GroupIntersection(true, false, common);
  }

  /** For messages: what a device must have to fit. */
  String describe() {
    return withoutGroups
        ? "devices without compatibility groups"
        : "devices of compatibility groups " + groups.stream().sorted().toList();
  }
}
