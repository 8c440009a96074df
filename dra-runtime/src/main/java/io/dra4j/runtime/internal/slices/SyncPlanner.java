package io.dra4j.runtime.internal.slices;

import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Decides what to write for one pool: pure, so every rule below is unit-tested without a server.
 *
 * <p>It follows the Go {@code resourceslice} controller (1.36+ naming) with two changes, both about
 * slices the Go controller deletes and re-creates:
 *
 * <ol>
 *   <li><b>Matching.</b> Existing slices are matched to desired indices by the index prefix of
 *       their name ({@link SliceNames#match}). When two slices claim an index, the one with the
 *       highest generation wins, then the one whose content is already right, then the lower name:
 *       the loser is deleted, so the fewest writes remain. A slice whose immutable fields ({@code
 *       driver}, {@code pool.name}, {@code nodeName}) differ from the desired ones cannot be
 *       updated into shape and is deleted (the Go controller would retry an update the API server
 *       rejects, forever).
 *   <li><b>Older generations.</b> The Go controller deletes every slice whose generation is below
 *       the pool's highest and then creates replacements. Here such a slice is matched like any
 *       other: its generation differs, so it is simply updated. The result is the same pool with
 *       one write per slice instead of two, and slice names (the scheduler's order) stay put.
 * </ol>
 *
 * <p><b>Generation</b> (Go controller rule, unchanged): {@code g} is the highest generation among
 * the existing slices, and never below {@code knownGeneration} (what this publisher wrote or saw
 * before, so that a pool whose slices were all deleted does not restart at 0). If no slice has to
 * be created and at most one matched slice needs an update, {@code g} is kept: consumers then see
 * either the old or the new content of that one slice, both complete. Otherwise the pool moves to
 * {@code g + 1} and every matched slice is rewritten, so that no consumer ever mixes slices of two
 * states. {@code resourceSliceCount} is the number of desired slices.
 *
 * <p><b>Change detection</b>: {@link SliceDiff}, after copying the server's taint times into the
 * desired spec.
 */
final class SyncPlanner {
  private SyncPlanner() {}

  /**
   * The writes that turn {@code existing} into {@code desired}.
   *
   * @param pool the pool name
   * @param desired the desired slice specs in index order, as {@link SliceLayout} makes them (their
   *     {@code pool} field is replaced); empty when the pool is gone and all its slices must go
   * @param existing the pool's slices on the API server (any order)
   * @param knownGeneration the highest generation of this pool seen or written before, 0 if none
   */
  static SyncPlan plan(
      String pool,
      List<ResourceSliceSpec> desired,
      List<ResourceSlice> existing,
      long knownGeneration) {
    long g = knownGeneration;
    for (ResourceSlice s : existing) {
      g = Math.max(g, s.spec().pool().generation());
    }
    List<ResourceSlice> sortedExisting = new ArrayList<>(existing);
    sortedExisting.sort(Comparator.comparing(s -> s.metadata().name()));
    if (desired.isEmpty()) {
      return new SyncPlan(g, sortedExisting, List.of(), List.of());
    }
    int n = desired.size();
    ResourceSliceSpec first = desired.get(0);

    List<ResourceSlice> obsolete = new ArrayList<>();
    List<Candidate> candidates = new ArrayList<>();
    for (ResourceSlice s : sortedExisting) {
      if (!immutableFieldsMatch(s.spec(), first, pool)) {
        obsolete.add(s);
        continue;
      }
      OptionalInt index = SliceNames.parseIndex(s.metadata().name(), n);
      boolean right =
          index.isPresent()
              && !SliceDiff.needsUpdate(
                  target(desired.get(index.getAsInt()), s, s.spec().pool()), s.spec());
      candidates.add(new Candidate(s, right));
    }
    candidates.sort(
        Comparator.comparingLong((Candidate c) -> -c.slice.spec().pool().generation())
            .thenComparing(c -> !c.contentRight)
            .thenComparing(c -> c.slice.metadata().name()));
    SliceMatch<Candidate> match = SliceNames.match(candidates, c -> c.slice.metadata().name(), n);
    for (Candidate c : match.obsolete()) {
      obsolete.add(c.slice);
    }
    obsolete.sort(Comparator.comparing(s -> s.metadata().name()));

    ResourceSliceSpec.ResourcePool keep = new ResourceSliceSpec.ResourcePool(pool, g, n);
    Map<Integer, ResourceSliceSpec> changed = new HashMap<>();
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Optional<Candidate> c = match.at(i);
      if (c.isEmpty()) {
        missing.add(i);
        continue;
      }
      ResourceSliceSpec t = target(desired.get(i), c.get().slice, keep);
      if (SliceDiff.needsUpdate(t, c.get().slice.spec())) {
        changed.put(i, t);
      }
    }

    long generation = missing.isEmpty() && changed.size() <= 1 ? g : g + 1;
    ResourceSliceSpec.ResourcePool written =
        new ResourceSliceSpec.ResourcePool(pool, generation, n);
    List<SyncPlan.Update> updates = new ArrayList<>();
    for (Map.Entry<Integer, Candidate> e : match.matched().entrySet()) {
      int i = e.getKey();
      ResourceSlice slice = e.getValue().slice;
      if (generation == g) {
        ResourceSliceSpec t = changed.get(i);
        if (t != null) {
          updates.add(new SyncPlan.Update(i, slice, t));
        }
      } else {
        updates.add(new SyncPlan.Update(i, slice, target(desired.get(i), slice, written)));
      }
    }
    List<SyncPlan.Create> creates = new ArrayList<>();
    for (int i : missing) {
      creates.add(new SyncPlan.Create(i, n, desired.get(i).withPool(written)));
    }
    return new SyncPlan(generation, obsolete, updates, creates);
  }

  /** The desired spec with {@code pool} set and the existing slice's taint times copied in. */
  private static ResourceSliceSpec target(
      ResourceSliceSpec desired, ResourceSlice existing, ResourceSliceSpec.ResourcePool pool) {
    return SliceDiff.withTaintTimesFrom(desired.withPool(pool), existing.spec());
  }

  private static boolean immutableFieldsMatch(
      ResourceSliceSpec existing, ResourceSliceSpec desired, String pool) {
    return existing.driver().equals(desired.driver())
        && existing.pool().name().equals(pool)
        && Objects.equals(existing.nodeName(), desired.nodeName());
  }

  private record Candidate(ResourceSlice slice, boolean contentRight) {}
}
