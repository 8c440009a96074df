package io.dra4j.testkit.allocator;

import io.dra4j.kube.DeviceClass;
import io.dra4j.runtime.extendedresource.ExtendedResourceNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * kube-scheduler's map from extended resource names to DeviceClasses as it keeps it: changed one
 * DeviceClass event at a time, never recomputed from the classes present ({@code
 * k8s.io/dynamic-resource-allocation@v0.37.2
 * deviceclass/extendedresourcecache/extendedresourcecache.go}, fed by the scheduler's DeviceClass
 * informer before its own handlers, {@code pkg/scheduler/eventhandlers.go:784-803} at v1.37.2).
 * With one class per name that is the same as recomputing; with several classes carrying one {@code
 * extendedResourceName} it is not:
 *
 * <ul>
 *   <li>Added or updated ({@code updateResourceName2class}, 157-210): a class whose explicit name
 *       another class holds takes it only when it comes first in {@link
 *       ExtendedResourceNames#SCHEDULER_ORDER} (newer, or as old and first by name); one that does
 *       not take it returns early (178-186) and so gets no implicit name either. Otherwise the
 *       names of its old version are removed, whoever holds them (189-195), and its own are set.
 *   <li>Deleted ({@code removeResourceName2class}, 229-241): its implicit name and its explicit
 *       name are removed, whichever class holds them. Deleting the class that lost (or renaming its
 *       name) unmaps the name until a class carrying it is added or updated, or the scheduler
 *       restarts.
 * </ul>
 *
 * <p>{@link #sync} turns the difference between the classes listed now and those listed at the
 * previous call into those events: at the first call, one add per class in name order (the
 * informer's initial list, in the API server's key order); later, adds and updates in
 * resourceVersion order, then deletions (their own order is unknown from two lists; create the
 * replacement, then delete the old class is what a migration does). Changes made between two calls
 * in another order can end differently in kube-scheduler; call the scheduler between them to pin
 * the order.
 *
 * <p>Names a pod cannot request are left out, as they were by {@link ExtendedResourceMapping}: an
 * invalid {@code extendedResourceName} (the API server refuses it) and the implicit name of a class
 * whose name cannot be a name part.
 *
 * <p>Thread-safe.
 */
final class ExtendedResourceCache {
  private final Map<String, DeviceClass> byResource = new TreeMap<>(); // guarded by this

  /** Every class as last listed, by UID; null before the first sync. */
  private Map<String, DeviceClass> listed; // guarded by this

  /**
   * Applies what changed since the previous call as DeviceClass events.
   *
   * @return every mapped name and its class, as the scheduler holds it now
   */
  synchronized Map<String, DeviceClass> sync(Collection<DeviceClass> classes) {
    Map<String, DeviceClass> now = new LinkedHashMap<>();
    classes.forEach(c -> now.put(c.metadata().uid(), c));
    if (listed == null) {
      List<DeviceClass> byName = new ArrayList<>(classes);
      byName.sort(Comparator.comparing(c -> c.metadata().name()));
      byName.forEach(c -> update(Optional.empty(), c));
    } else {
      List<DeviceClass> changed = new ArrayList<>();
      for (DeviceClass c : now.values()) {
        DeviceClass before = listed.get(c.metadata().uid());
        if (before == null
            || !before.metadata().resourceVersion().equals(c.metadata().resourceVersion())) {
          changed.add(c);
        }
      }
      // resourceVersions are numbers on both API servers: shorter is older.
      changed.sort(
          Comparator.comparingInt((DeviceClass c) -> c.metadata().resourceVersion().length())
              .thenComparing(c -> c.metadata().resourceVersion()));
      for (DeviceClass c : changed) {
        update(Optional.ofNullable(listed.get(c.metadata().uid())), c);
      }
      // OnDelete.
      listed.forEach(
          (uid, c) -> {
            if (!now.containsKey(uid)) {
              remove(c);
            }
          });
    }
    listed = now;
    return Map.copyOf(byResource);
  }

  /** {@code OnAdd} (no old version) and {@code OnUpdate}. */
  private void update(Optional<DeviceClass> old, DeviceClass c) {
    Optional<String> explicit = explicitName(c);
    if (explicit.isPresent()) {
      DeviceClass holder = byResource.get(explicit.get());
      if (holder != null && ExtendedResourceNames.SCHEDULER_ORDER.compare(c, holder) >= 0) {
        return;
      }
    }
    old.ifPresent(this::remove);
    explicit.ifPresent(n -> byResource.put(n, c));
    ExtendedResourceMapping.implicitName(c.metadata().name()).ifPresent(n -> byResource.put(n, c));
  }

  /** The class's names, whichever class holds them now. */
  private void remove(DeviceClass c) {
    ExtendedResourceMapping.implicitName(c.metadata().name()).ifPresent(byResource::remove);
    explicitName(c).ifPresent(byResource::remove);
  }

  private static Optional<String> explicitName(DeviceClass c) {
    return c.spec().extendedResourceName().filter(n -> ExtendedResourceNames.explicit(n).isEmpty());
  }
}
