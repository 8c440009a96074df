package io.dra4j.runtime.internal.checkpoint;

import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * All checkpoint records, plus the files that could not be read.
 *
 * @param records readable records, ordered by claim UID
 * @param problems unreadable files, ordered by file name
 */
public record CheckpointListing(List<ClaimCheckpoint> records, List<CheckpointProblem> problems) {
  public CheckpointListing {
    records = List.copyOf(records);
    problems = List.copyOf(problems);
  }

  /**
   * The UIDs of every claim that has a record, readable or not: the claims whose CDI specs a
   * startup cleanup must keep.
   */
  public SortedSet<String> claimUids() {
    SortedSet<String> uids = new TreeSet<>();
    records.forEach(r -> uids.add(r.claim().uid()));
    problems.forEach(p -> p.claimUid().ifPresent(uids::add));
    return Collections.unmodifiableSortedSet(uids);
  }
}
