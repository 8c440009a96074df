package io.dra4j.runtime.files;

import io.dra4j.kube.internal.Failures;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * Crash-safe file replacement and removal for state that must survive a power loss: the content is
 * written to a temporary file in the same directory, forced to disk, renamed over the target, and
 * the directory is forced so the rename itself is durable. A reader therefore sees either the old
 * complete file or the new complete file, never a partial one.
 *
 * <p>The caller names the temporary file: it must lie in the target's directory and be a name that
 * readers of that directory ignore (CDI runtimes load only {@code *.json} and {@code *.yaml}). A
 * temporary file left by a crash is simply truncated and reused by the next write of the same
 * target. Writes and removals of the same target within this JVM are serialized, so two threads
 * writing one target cannot interleave in the shared temporary file.
 */
public final class AtomicFiles {
  private static final int STRIPES = 64;
  private static final ReentrantLock[] LOCKS = new ReentrantLock[STRIPES];

  static {
    for (int i = 0; i < STRIPES; i++) {
      LOCKS[i] = new ReentrantLock();
    }
  }

  private AtomicFiles() {}

  /**
   * Atomically replaces {@code target} with {@code content}, leaving it with exactly {@code mode}
   * (the process umask does not apply).
   *
   * @param target the file to create or replace
   * @param temp the temporary file, in the same directory as {@code target}
   * @param content the new content
   * @param mode the final permissions
   * @throws IOException when any step fails; {@code target} is then unchanged and {@code temp} is
   *     removed
   */
  public static void write(Path target, Path temp, byte[] content, Set<PosixFilePermission> mode)
      throws IOException {
    Objects.requireNonNull(content, "content");
    Path dir = directoryOf(target);
    if (!dir.equals(directoryOf(temp))) {
      throw new IllegalArgumentException(
          "temporary file " + temp + " must be in the directory of " + target);
    }
    ReentrantLock lock = lockFor(target);
    lock.lock();
    try {
      try {
        // A temporary file left by a crash, or a link someone put in its place, is removed (never
        // followed): the new one is created afresh, refusing to open through a link.
        deleteIfPresent(temp);
        try (FileChannel ch =
            FileChannel.open(
                temp,
                Set.of(
                    StandardOpenOption.WRITE,
                    StandardOpenOption.CREATE_NEW,
                    LinkOption.NOFOLLOW_LINKS),
                PosixFilePermissions.asFileAttribute(mode))) {
          ByteBuffer buf = ByteBuffer.wrap(content);
          while (buf.hasRemaining()) {
            ch.write(buf);
          }
          ch.force(true);
        }
        // Set explicitly (permissions given at creation are reduced by the umask), on the file
        // itself and never through a link.
        Files.getFileAttributeView(temp, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
            .setPermissions(mode);
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException | RuntimeException e) {
        try {
          deleteIfPresent(temp);
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        if (e instanceof IOException io) {
          throw failed("write", target, io);
        }
        throw e;
      }
      syncDirectory(dir);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Reads a whole file that must be a regular file itself: a symbolic link in the driver's own
   * folders is refused, not followed, so a link planted there cannot make the driver read (or
   * report) a file elsewhere on the host.
   *
   * @throws NoSuchFileException when there is no such file
   * @throws IOException naming the file when it is a link or cannot be read
   */
  public static byte[] read(Path file) throws IOException {
    requireNotLink(file);
    try (SeekableByteChannel ch =
        Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return Channels.newInputStream(ch).readAllBytes();
    } catch (FileSystemException e) {
      if (Files.isSymbolicLink(file)) {
        throw linkRefused(file);
      }
      throw e;
    }
  }

  /**
   * {@link #read}, answering an absent file with empty: the common case for a claim's record before
   * its first prepare. The absence is found without an exception: NIO's own probes of an absent
   * file each throw and catch two internally, six for a failed {@link #read}, every one filling in
   * a stack trace on the kubelet's call path.
   */
  public static Optional<byte[]> readIfPresent(Path file) throws IOException {
    // java.io.File answers from stat() alone. It follows a link, so a dangling one reads as absent
    // (the next write renames over the link itself); a link to a file goes on to be refused.
    if (!file.toFile().exists()) {
      return Optional.empty();
    }
    try {
      return Optional.of(read(file));
    } catch (NoSuchFileException e) {
      return Optional.empty(); // removed meanwhile
    }
  }

  /**
   * Creates {@code dir} below {@code root} (which must exist), refusing any symbolic link between
   * them: a link planted in one of the driver's folders must not redirect a write out of it. The
   * root itself may be a link (an operator's choice, e.g. {@code /var/run -> /run}).
   */
  public static void createDirectoriesBelow(Path root, Path dir) throws IOException {
    Path base = root.toAbsolutePath().normalize();
    Path target = dir.toAbsolutePath().normalize();
    if (!target.startsWith(base)) {
      throw new IllegalArgumentException(dir + " is not below " + root);
    }
    requireNoLinkBelow(base, target);
    createDirectories(target);
    // Checked again after creating: a link that appeared meanwhile is refused too.
    requireNoLinkBelow(base, target);
  }

  private static void requireNoLinkBelow(Path base, Path target) throws IOException {
    Path p = base;
    for (Path name : base.relativize(target)) {
      if (!name.toString().isEmpty()) {
        p = p.resolve(name);
        requireNotLink(p);
      }
    }
  }

  private static void requireNotLink(Path p) throws IOException {
    if (Files.isSymbolicLink(p)) {
      throw linkRefused(p);
    }
  }

  private static IOException linkRefused(Path p) {
    return new FileSystemException(
        p.toString(), null, "is a symbolic link; refusing to follow it out of the driver's folder");
  }

  /**
   * Removes {@code target} and its temporary file, if present, and forces the directory so the
   * removal is durable.
   *
   * @return whether {@code target} existed
   */
  public static boolean delete(Path target, Path temp) throws IOException {
    ReentrantLock lock = lockFor(target);
    lock.lock();
    try {
      boolean existed = deleteIfPresent(target);
      boolean hadTemp = deleteIfPresent(temp);
      if (existed || hadTemp) {
        syncDirectory(directoryOf(target));
      }
      return existed;
    } catch (IOException e) {
      throw failed("remove", target, e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@link Files#deleteIfExists} without its internal exceptions for an absent file (the temporary
   * file is absent on nearly every write and removal). {@link File#delete} removes a file, a link
   * itself (never its target) or an empty directory and answers false for an absent one; only a
   * file that is there but cannot be removed goes on to NIO, for the system's reason.
   */
  private static boolean deleteIfPresent(Path p) throws IOException {
    File f = p.toFile();
    if (f.delete()) {
      return true;
    }
    if (f.exists()) {
      Files.delete(p); // throws the reason it cannot be removed
      return true;
    }
    return false;
  }

  /**
   * Forces a directory's entries (creations, renames, removals) to disk.
   *
   * @throws NoSuchFileException when the directory does not exist
   */
  public static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** Deletes a directory and everything below it; nothing happens when it does not exist. */
  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * {@link #deleteTree} for scratch and temporary directories, where one left behind is harmless: a
   * failure is ignored.
   */
  public static void deleteTreeQuietly(Path dir) {
    try {
      deleteTree(dir);
    } catch (IOException e) {
      // Harmless by contract: the caller only cleans up after itself.
    }
  }

  /**
   * The mode of the driver's own folders (the plugin data directory, its checkpoints): the driver
   * alone reads them. The kubelet, which connects to the sockets in them, runs as root and needs no
   * permission bits.
   */
  public static final Set<PosixFilePermission> PRIVATE_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");

  /**
   * {@link #createDirectories}, and {@code dir} gets {@link #PRIVATE_DIRECTORY} when it is created
   * here. An existing directory keeps its mode: an operator may have chosen it.
   */
  public static void createPrivateDirectory(Path dir) throws IOException {
    createDirectory(dir, Optional.of(PRIVATE_DIRECTORY));
  }

  /**
   * Creates a directory and its missing parents, forcing each new entry to disk; existing
   * directories are left as they are.
   */
  public static void createDirectories(Path dir) throws IOException {
    createDirectory(dir, Optional.empty());
  }

  /** {@code dir} and its missing parents; only {@code dir} itself gets {@code mode}, if given. */
  private static void createDirectory(Path dir, Optional<Set<PosixFilePermission>> mode)
      throws IOException {
    Path abs = dir.toAbsolutePath().normalize();
    if (Files.isDirectory(abs)) {
      return;
    }
    Path parent = abs.getParent();
    if (parent != null) {
      createDirectory(parent, Optional.empty());
    }
    try {
      if (mode.isPresent()) {
        Files.createDirectory(abs, PosixFilePermissions.asFileAttribute(mode.get()));
      } else {
        Files.createDirectory(abs);
      }
    } catch (java.nio.file.FileAlreadyExistsException e) {
      if (!Files.isDirectory(abs)) {
        throw e;
      }
      return;
    }
    if (mode.isPresent()) {
      // Set explicitly: the mode given to mkdir is filtered by the umask.
      Files.setPosixFilePermissions(abs, mode.get());
    }
    if (parent != null) {
      syncDirectory(parent);
    }
  }

  /**
   * The failure as a node operator reads it: what was done to which file and the system's reason
   * ("cannot write /var/run/cdi/x.json: No space left on device"), whichever step (the temporary
   * file, the rename, the directory sync) failed. The JDK's own message names the file only for
   * some errors, and never names the target of an atomic write.
   */
  private static IOException failed(String what, Path target, IOException e) {
    // Without the system's reason (a file that vanished, one that is there already), the file the
    // step failed on and what happened to it, in words.
    String reason =
        e instanceof FileSystemException f && f.getReason() != null
            ? f.getReason()
            : Failures.describe(e);
    return new IOException("cannot " + what + " " + target + ": " + reason, e);
  }

  private static Path directoryOf(Path file) {
    Path parent = file.toAbsolutePath().normalize().getParent();
    if (parent == null) {
      throw new IllegalArgumentException(file + " has no parent directory");
    }
    return parent;
  }

  private static ReentrantLock lockFor(Path target) {
    int h = target.toAbsolutePath().normalize().hashCode();
    return LOCKS[Math.floorMod(h ^ (h >>> 16), STRIPES)];
  }
}
