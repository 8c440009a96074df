package io.dra4j.runtime.internal.claims;

import io.dra4j.runtime.internal.checkpoint.CheckpointProblem;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@link ClaimPreparer#recover()} found and did.
 *
 * @param kept UIDs of the claims whose completed records are valid and now guard their devices
 * @param rolledBack UIDs of the claims rolled back: interrupted prepares and records of an earlier
 *     boot
 * @param rollbackFailures one message per claim whose rollback failed; its record is kept and the
 *     rollback is tried again when the claim is next prepared or unprepared
 * @param removedFiles orphan CDI specs and metadata files removed (no checkpoint record)
 * @param problems checkpoint files that could not be read
 */
public record RecoveryReport(
    List<String> kept,
    List<String> rolledBack,
    List<String> rollbackFailures,
    List<Path> removedFiles,
    List<CheckpointProblem> problems) {
  public RecoveryReport {
    kept = List.copyOf(kept);
    rolledBack = List.copyOf(rolledBack);
    rollbackFailures = List.copyOf(rollbackFailures);
    removedFiles = List.copyOf(removedFiles);
    problems = List.copyOf(problems);
  }
}
