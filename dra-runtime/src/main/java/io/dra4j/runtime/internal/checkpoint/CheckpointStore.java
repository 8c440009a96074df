package io.dra4j.runtime.internal.checkpoint;

import io.dra4j.kube.internal.Failures;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.files.ClaimUids;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint: one file per prepared claim, {@code <pluginDataDir>/checkpoints/<claimUID>.json},
 * so preparing a claim costs the same however many claims the node holds (no rewrite of a shared
 * file).
 *
 * <p>Each write goes to {@code .<claimUID>.json.tmp}, is forced to disk, renamed over the record
 * and the directory forced: after a crash a record is either the old or the new one. Reads only
 * look at {@code <claimUID>.json}; temporary files are reused by the next write of the claim and
 * removed when the store is opened. A corrupt file is reported and moved aside to {@code
 * <claimUID>.json.corrupt}; a record from a newer dra4j that this version must not interpret is
 * reported and left in place. Records are written with mode 0600.
 *
 * <p>Calls for different claims may run concurrently; calls for the same claim are expected to be
 * serialized by the caller. One process owns the directory at a time.
 */
public final class CheckpointStore {
  private static final String CHECKPOINT = "a checkpoint file";

  /** The directory under the plugin data directory that holds the records. */
  public static final String DIRECTORY_NAME = "checkpoints";

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointStore.class);
  private static final Set<PosixFilePermission> RECORD_MODE =
      PosixFilePermissions.fromString("rw-------");
  private static final String SUFFIX = ".json";
  private static final String TEMP_SUFFIX = ".json.tmp";
  private static final String CORRUPT_SUFFIX = ".json.corrupt";

  private final Path directory;
  private final String bootId;

  private CheckpointStore(Path directory, String bootId) {
    this.directory = directory;
    this.bootId = bootId;
  }

  /**
   * Opens the store in {@code <pluginDataDir>/checkpoints}, creating it if needed, with the boot id
   * of the running kernel.
   */
  public static CheckpointStore open(Path pluginDataDir) throws IOException {
    return open(pluginDataDir, BootId.DEFAULT_FILE);
  }

  /**
   * Opens the store in {@code <pluginDataDir>/checkpoints}, reading the current boot id from {@code
   * bootIdFile}. It leaves temporary files alone: in a rolling update the other process may be
   * writing one ({@link #removeInterruptedWrites}).
   */
  public static CheckpointStore open(Path pluginDataDir, Path bootIdFile) throws IOException {
    Path dir = pluginDataDir.resolve(DIRECTORY_NAME);
    AtomicFiles.createPrivateDirectory(dir);
    if (Files.isSymbolicLink(dir)) {
      throw new IOException(dir + " is a symbolic link; refusing to keep checkpoints through it");
    }
    return new CheckpointStore(dir, BootId.read(bootIdFile));
  }

  /** The directory holding the records. */
  public Path directory() {
    return directory;
  }

  /** The boot id of the running host, read when the store was opened. */
  public String bootId() {
    return bootId;
  }

  /** Whether {@code record} was written before the host last booted. */
  public boolean fromEarlierBoot(ClaimCheckpoint record) {
    return !record.bootId().equals(bootId);
  }

  /** Atomically creates or replaces the record of {@code record.claim()}. */
  public void write(ClaimCheckpoint record) throws IOException {
    String uid = ClaimUids.check(record.claim().uid(), CHECKPOINT);
    AtomicFiles.write(
        file(uid),
        directory.resolve("." + uid + TEMP_SUFFIX),
        CheckpointCodec.encode(record),
        RECORD_MODE);
    LOG.debug(
        "claim {}: checkpoint {} written for driver {}",
        record.claim(),
        record.state(),
        record.driverName());
  }

  /**
   * The record of a claim.
   *
   * @return empty when the claim has no record
   * @throws CheckpointException when the file is corrupt (it is then moved aside) or was written by
   *     a newer dra4j in a form this version cannot interpret (left in place)
   */
  public Optional<ClaimCheckpoint> read(String claimUid) throws IOException {
    Path file = file(ClaimUids.check(claimUid, CHECKPOINT));
    Optional<byte[]> content = AtomicFiles.readIfPresent(file);
    return content.isEmpty()
        ? Optional.empty()
        : Optional.of(decode(file, claimUid, content.get()));
  }

  /**
   * Removes a claim's record. Idempotent.
   *
   * @return whether a record was removed
   */
  public boolean delete(String claimUid) throws IOException {
    String uid = ClaimUids.check(claimUid, CHECKPOINT);
    boolean removed = AtomicFiles.delete(file(uid), directory.resolve("." + uid + TEMP_SUFFIX));
    if (removed) {
      LOG.debug("claim {}: checkpoint removed", uid);
    }
    return removed;
  }

  /**
   * Every record, for startup recovery and the CDI orphan cleanup. Never fails because of one bad
   * file: corrupt files are moved aside, and each unreadable file is logged and reported in {@link
   * CheckpointListing#problems()}.
   */
  public CheckpointListing list() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (name.endsWith(SUFFIX) && !name.startsWith(".")) {
          files.add(p);
        }
      }
    }
    files.sort(Comparator.comparing(p -> p.getFileName().toString()));
    List<ClaimCheckpoint> records = new ArrayList<>(files.size());
    List<CheckpointProblem> problems = new ArrayList<>();
    for (Path p : files) {
      String name = p.getFileName().toString();
      String uid = name.substring(0, name.length() - SUFFIX.length());
      if (!ClaimUids.isValid(uid)) {
        String msg = "file name is not <claimUID>.json; left alone";
        LOG.warn("checkpoint directory entry {}: {}", p, msg);
        problems.add(new CheckpointProblem(p, Optional.empty(), msg, Optional.empty()));
        continue;
      }
      try {
        records.add(decode(p, uid, AtomicFiles.read(p)));
      } catch (CheckpointException e) {
        problems.add(new CheckpointProblem(p, Optional.of(uid), e.getMessage(), e.movedTo()));
      } catch (NoSuchFileException e) {
        // Deleted since the directory was read: nothing to recover.
      } catch (IOException e) {
        String msg =
            "checkpoint " + p + " for claim " + uid + " cannot be read: " + Failures.describe(e);
        LOG.error(msg);
        problems.add(new CheckpointProblem(p, Optional.of(uid), msg, Optional.empty()));
      }
    }
    return new CheckpointListing(records, problems);
  }

  private ClaimCheckpoint decode(Path file, String uid, byte[] content) throws IOException {
    ClaimCheckpoint record;
    try {
      record = CheckpointCodec.decode(content);
      if (!record.claim().uid().equals(uid)) {
        throw CheckpointCodec.FormatException.corrupt(
            "claim.uid \"" + record.claim().uid() + "\" does not match the file name");
      }
    } catch (CheckpointCodec.FormatException e) {
      if (!e.corrupt) {
        String msg =
            "checkpoint " + file + " for claim " + uid + " is left alone: " + e.getMessage();
        LOG.error(msg);
        throw new CheckpointException(msg, file, Optional.empty());
      }
      String what = "checkpoint " + file + " for claim " + uid + " is corrupt (" + e.getMessage();
      Path aside;
      try {
        aside = moveAside(file, uid);
      } catch (IOException moveFailure) {
        String msg = what + "); it could not be moved aside: " + Failures.describe(moveFailure);
        LOG.error(msg);
        throw new CheckpointException(msg, file, Optional.empty());
      }
      String msg = what + "); moved to " + aside.getFileName() + " and ignored";
      LOG.error(msg);
      throw new CheckpointException(msg, file, Optional.of(aside));
    }
    return record;
  }

  private Path moveAside(Path file, String uid) throws IOException {
    for (int n = 0; ; n++) {
      Path target = directory.resolve(uid + CORRUPT_SUFFIX + (n == 0 ? "" : "." + n));
      if (Files.exists(target)) {
        continue;
      }
      try {
        // No REPLACE_EXISTING: the rename must not overwrite an earlier corrupt copy.
        Files.move(file, target);
        AtomicFiles.syncDirectory(directory);
        return target;
      } catch (FileAlreadyExistsException raced) {
        // Another corrupt copy appeared meanwhile; try the next name.
      }
    }
  }

  /**
   * Removes the temporary files of writes a crash interrupted. Only where no other process writes
   * records: under the serialization lock, in a rolling update the old instance may be writing one
   * (the new one's start once removed it mid-write, and the old one's prepare failed).
   */
  public void removeInterruptedWrites() throws IOException {
    List<Path> temps = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory, "." + "*" + TEMP_SUFFIX)) {
      ds.forEach(temps::add);
    }
    for (Path p : temps) {
      Files.deleteIfExists(p);
      LOG.info("removed {}, left by an interrupted checkpoint write", p);
    }
    if (!temps.isEmpty()) {
      AtomicFiles.syncDirectory(directory);
    }
  }

  private Path file(String uid) {
    return directory.resolve(uid + SUFFIX);
  }
}
