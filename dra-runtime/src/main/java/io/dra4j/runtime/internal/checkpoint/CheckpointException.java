package io.dra4j.runtime.internal.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A checkpoint file that cannot be used: corrupt (moved aside, see {@link #movedTo()}) or written
 * by a newer dra4j in a form this version must not interpret (left in place).
 */
public final class CheckpointException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final transient Path movedTo;

  CheckpointException(String message, Path file, Optional<Path> movedTo) {
    super(message);
    this.file = Objects.requireNonNull(file, "file");
    this.movedTo = movedTo.orElse(null);
  }

  /** The checkpoint file. */
  public Path file() {
    return file;
  }

  /** Where a corrupt file was moved; empty when the file was left in place. */
  public Optional<Path> movedTo() {
    return Optional.ofNullable(movedTo);
  }
}
