package io.dra4j.runtime.internal.slices;

import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import java.util.List;

/**
 * The API writes that bring one pool from what the API server holds to what the driver wants, in
 * the order they must be made: deletes, then updates, then creates.
 *
 * @param generation the pool generation the written slices carry
 * @param deletes existing slices to delete (with their uid and resourceVersion as preconditions)
 * @param updates existing slices to replace, each with its new spec
 * @param creates slices to create, by desired index
 */
record SyncPlan(
    long generation, List<ResourceSlice> deletes, List<Update> updates, List<Create> creates) {
  SyncPlan {
    deletes = List.copyOf(deletes);
    updates = List.copyOf(updates);
    creates = List.copyOf(creates);
  }

  /**
   * Replace {@code existing}'s spec with {@code spec}.
   *
   * @param index the desired slice index the existing slice was matched to
   */
  record Update(int index, ResourceSlice existing, ResourceSliceSpec spec) {}

  /**
   * Create the slice for desired index {@code index}.
   *
   * @param sliceCount the pool's number of desired slices (for the name prefix width)
   */
  record Create(int index, int sliceCount, ResourceSliceSpec spec) {}

  /** The number of API writes. */
  int writes() {
    return deletes.size() + updates.size() + creates.size();
  }

  boolean isEmpty() {
    return writes() == 0;
  }
}
