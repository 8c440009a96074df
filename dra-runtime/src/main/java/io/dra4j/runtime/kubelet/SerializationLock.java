package io.dra4j.runtime.kubelet;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serializes prepare and unprepare: within this process, and optionally across processes through an
 * exclusive lock on a file (the {@code serialize.lock} of a rolling update, where an old and a new
 * driver pod run side by side).
 *
 * <p>Reentrant within one thread. Every lock on the same file in one JVM shares one in-process
 * lock, because the JVM refuses a second {@link FileChannel#lock()} on a file it already locks.
 */
public final class SerializationLock {

  private static final Logger LOG = LoggerFactory.getLogger(SerializationLock.class);
  private static final ConcurrentMap<Path, ReentrantLock> IN_PROCESS_BY_FILE =
      new ConcurrentHashMap<>();
  private static final Held NOT_LOCKED = () -> {};

  private final boolean enabled;
  private final ReentrantLock inProcess;
  private final Optional<Path> file;

  private SerializationLock(boolean enabled, ReentrantLock inProcess, Optional<Path> file) {
    this.enabled = enabled;
    this.inProcess = inProcess;
    this.file = file;
  }

  /** A lock that never blocks (serialization turned off). */
  public static SerializationLock disabled() {
    return new SerializationLock(false, new ReentrantLock(), Optional.empty());
  }

  /** A lock for this process only. */
  public static SerializationLock inProcess() {
    return new SerializationLock(true, new ReentrantLock(), Optional.empty());
  }

  /**
   * A lock shared with every process that locks the same file. The file is created on first use
   * (mode 0600 before umask) and never deleted: deleting it would let two processes lock two
   * different files of the same name.
   */
  public static SerializationLock crossProcess(Path lockFile) {
    Path key = lockFile.toAbsolutePath().normalize();
    return new SerializationLock(
        true, IN_PROCESS_BY_FILE.computeIfAbsent(key, k -> new ReentrantLock()), Optional.of(key));
  }

  /** False for {@link #disabled()}. */
  public boolean isEnabled() {
    return enabled;
  }

  /** The lock file, for a cross-process lock. */
  public Optional<Path> lockFile() {
    return file;
  }

  /**
   * Blocks until this thread holds the lock. Close the result to release it.
   *
   * @throws InterruptedException when interrupted while waiting for the in-process lock
   * @throws IOException when the lock file cannot be opened or locked (including an interrupt while
   *     waiting for another process)
   */
  public Held acquire() throws IOException, InterruptedException {
    if (!enabled) {
      return NOT_LOCKED;
    }
    inProcess.lockInterruptibly();
    if (file.isEmpty() || inProcess.getHoldCount() > 1) {
      return new Release(inProcess, null);
    }
    FileChannel channel = null;
    try {
      channel =
          FileChannel.open(
              file.get(),
              java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      channel.lock();
      return new Release(inProcess, channel);
    } catch (IOException | RuntimeException | Error e) {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      inProcess.unlock();
      if (e instanceof IOException io) {
        throw new IOException("cannot lock " + file.get() + ": " + io.getMessage(), io);
      }
      throw e;
    }
  }

  @Override
  public String toString() {
    return !enabled ? "disabled" : file.map(f -> "file " + f).orElse("in-process");
  }

  /** A held lock; {@link #close()} releases it (once), on the thread that acquired it. */
  @FunctionalInterface
  public interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private static final class Release implements Held {
    private final ReentrantLock inProcess;
    private final FileChannel channel;
    private final AtomicBoolean released = new AtomicBoolean();

    Release(ReentrantLock inProcess, FileChannel channel) {
      this.inProcess = inProcess;
      this.channel = channel;
    }

    @Override
    public void close() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      try {
        if (channel != null) {
          // Closing the channel releases the file lock.
          channel.close();
        }
      } catch (IOException e) {
        LOG.warn("releasing the serialization lock file failed: {}", e.toString());
      } finally {
        inProcess.unlock();
      }
    }
  }
}
