package io.dra4j.runtime.internal.checkpoint;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A file in the checkpoint directory that {@link CheckpointStore#list()} could not turn into a
 * record. It is reported, never silently dropped: a corrupt file is moved aside, a record from a
 * newer dra4j is left in place.
 *
 * @param file the file as found
 * @param claimUid the claim UID its name gives, if it names one
 * @param message what is wrong
 * @param movedTo where a corrupt file now is
 */
public record CheckpointProblem(
    Path file, Optional<String> claimUid, String message, Optional<Path> movedTo) {
  public CheckpointProblem {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(claimUid, "claimUid");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(movedTo, "movedTo");
  }
}
