package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.runtime.files.AtomicFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which prepares, unprepares and recoveries of one driver may run at the same time: the driver's
 * only serialization, built once per driver ({@link #forDriver}) and held by the {@link
 * ClaimPreparer} around each kubelet call and around its recovery.
 *
 * <ul>
 *   <li>A provider that is not {@link DeviceProvider#threadSafe() thread-safe} gets one call at a
 *       time. A thread-safe one gets calls in parallel, and calls for the same claim one after the
 *       other ({@link #claims}), whatever the provider.
 *   <li>Recovery runs alone.
 *   <li>In a rolling update (the driver has a pod UID) an old and a new driver process share the
 *       plugin data directory. An exclusive lock on its {@value #LOCK_FILE} is held while any call
 *       of this process runs, so the two processes never interleave. The file is created on first
 *       use (mode 0600 before umask) and never deleted: deleting it would let two processes lock
 *       two different files of the same name.
 *   <li>Whoever takes the lock file writes its own token into {@value #OWNER_FILE} beside it. When
 *       this process takes the lock and finds another token there, the other process held the lock
 *       since this one did: the caller's {@code afterOtherProcess} runs before any call proceeds
 *       (the pipeline then rebuilds what it keeps in memory from the checkpoint records).
 * </ul>
 *
 * <p>Slow work stays outside: the pipeline reads the ResourceClaims before it enters, as the Go
 * helper does, and applies their statuses after it left (under {@link #claims} only).
 */
public final class ClaimSerializer {

  /** Name of the cross-process lock file in the plugin data directory. */
  public static final String LOCK_FILE = "serialize.lock";

  /** The file naming the process that last held the lock file. */
  static final String OWNER_FILE = "claims.owner";

  private static final Logger LOG = LoggerFactory.getLogger(ClaimSerializer.class);

  /** What runs when this process takes the lock file after another process held it. */
  @FunctionalInterface
  interface AfterOtherProcess {
    void run() throws IOException;
  }

  static final AfterOtherProcess NOTHING = () -> {};

  /** A place inside the serializer; {@link #close()} leaves it. */
  interface Pass extends AutoCloseable {
    @Override
    void close();
  }

  private final boolean parallel;
  private final Optional<FileGate> gate;
  // Calls of a thread-safe provider share it; other calls and recovery hold it alone.
  private final ReentrantReadWriteLock calls = new ReentrantReadWriteLock();
  private final KeyedLocks claims = new KeyedLocks();

  private ClaimSerializer(boolean parallel, Optional<Path> lockFile) {
    this.parallel = parallel;
    this.gate = lockFile.map(FileGate::new);
  }

  /**
   * The serializer of one driver.
   *
   * @param provider its {@link DeviceProvider#threadSafe()} decides whether calls run in parallel
   * @param pluginDataDirectory where the lock file lives in a rolling update
   * @param podUid present in a rolling update: calls are then serialized across processes too
   */
  public static ClaimSerializer forDriver(
      DeviceProvider provider, Path pluginDataDirectory, Optional<String> podUid) {
    return new ClaimSerializer(
        provider.threadSafe(),
        podUid.map(u -> pluginDataDirectory.resolve(LOCK_FILE).toAbsolutePath().normalize()));
  }

  /** The lock file, in a rolling update. */
  public Optional<Path> lockFile() {
    return gate.map(g -> g.file);
  }

  /** True when calls run in parallel (a thread-safe provider). */
  public boolean isParallel() {
    return parallel;
  }

  /** Waits until a kubelet call may run. */
  Pass call(AfterOtherProcess afterOtherProcess) throws IOException, InterruptedException {
    return enter(parallel ? calls.readLock() : calls.writeLock(), afterOtherProcess);
  }

  /** Waits until no other call runs, in this process or (rolling update) the other one. */
  Pass alone(AfterOtherProcess afterOtherProcess) throws IOException, InterruptedException {
    return enter(calls.writeLock(), afterOtherProcess);
  }

  /**
   * Orders the calls for the same claims: taken before {@link #call} and held past it, so that a
   * call's work after the driver's lock (the claim status) never overlaps another call for one of
   * its claims. Claims are locked in the order of their UIDs, so two calls never wait on each
   * other.
   */
  Pass claims(List<ClaimRef> refs) throws InterruptedException {
    TreeSet<String> uids = new TreeSet<>();
    for (ClaimRef r : refs) {
      uids.add(r.uid());
    }
    List<KeyedLocks.Held> held = new ArrayList<>(uids.size());
    try {
      for (String uid : uids) {
        held.add(claims.lock(uid));
      }
    } catch (InterruptedException | RuntimeException e) {
      release(held);
      throw e;
    }
    return () -> release(held);
  }

  private static void release(List<KeyedLocks.Held> held) {
    for (int i = held.size() - 1; i >= 0; i--) {
      held.get(i).close();
    }
  }

  private Pass enter(Lock lock, AfterOtherProcess afterOtherProcess)
      throws IOException, InterruptedException {
    lock.lockInterruptibly();
    if (gate.isEmpty()) {
      return lock::unlock;
    }
    FileGate g = gate.get();
    try {
      g.enter(afterOtherProcess);
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      lock.unlock();
      throw e;
    }
    return () -> {
      g.leave();
      lock.unlock();
    };
  }

  @Override
  public String toString() {
    return (parallel ? "parallel" : "one call at a time")
        + gate.map(g -> ", across processes through " + g.file).orElse("");
  }

  /**
   * The process's hold on the lock file: taken by the first call that enters, released by the last
   * one that leaves. A {@link java.nio.channels.FileLock} is not owned by a thread, so whichever
   * call leaves last releases it.
   */
  private static final class FileGate {
    // The JVM refuses a second lock on a file it already locks instead of waiting for it; only two
    // drivers sharing one plugin directory in one JVM (tests) meet that, and they poll.
    private static final Duration SAME_JVM_POLL = Duration.ofMillis(5);

    private final Path file;
    private final Path ownerFile;
    private final String token = UUID.randomUUID().toString();
    private int inside; // guarded by this
    private boolean taking; // guarded by this
    private FileChannel held; // guarded by this; open while the lock is held

    FileGate(Path file) {
      this.file = file;
      this.ownerFile = file.resolveSibling(OWNER_FILE);
    }

    void enter(AfterOtherProcess afterOtherProcess) throws IOException, InterruptedException {
      synchronized (this) {
        while (taking) {
          wait();
        }
        if (inside > 0) {
          inside++;
          return;
        }
        taking = true;
      }
      FileChannel channel = null;
      try {
        channel = lock();
        if (!ownedByThisProcess()) {
          afterOtherProcess.run();
          writeOwner();
        }
      } catch (IOException | InterruptedException | RuntimeException | Error e) {
        closeQuietly(channel, e);
        synchronized (this) {
          taking = false;
          notifyAll();
        }
        throw e;
      }
      synchronized (this) {
        held = channel;
        inside = 1;
        taking = false;
        notifyAll();
      }
    }

    private boolean ownedByThisProcess() throws IOException {
      try {
        return Files.readString(ownerFile, StandardCharsets.UTF_8).trim().equals(token);
      } catch (NoSuchFileException e) {
        return false;
      }
    }

    private void writeOwner() throws IOException {
      AtomicFiles.write(
          ownerFile,
          ownerFile.resolveSibling("." + OWNER_FILE + ".tmp"),
          (token + "\n").getBytes(StandardCharsets.UTF_8),
          PosixFilePermissions.fromString("rw-------"));
    }

    synchronized void leave() {
      if (--inside == 0) {
        try {
          // Closing the channel releases the file lock.
          held.close();
        } catch (IOException e) {
          LOG.warn("releasing the serialization lock file {} failed: {}", file, e.toString());
        }
        held = null;
      }
    }

    private FileChannel lock() throws IOException, InterruptedException {
      FileChannel channel = null;
      try {
        channel =
            FileChannel.open(
                file,
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        while (true) {
          try {
            channel.lock();
            return channel;
          } catch (OverlappingFileLockException e) {
            Thread.sleep(SAME_JVM_POLL.toMillis());
          }
        }
      } catch (IOException e) {
        closeQuietly(channel, e);
        throw new IOException("cannot lock " + file + ": " + e.getMessage(), e);
      } catch (InterruptedException | RuntimeException | Error e) {
        closeQuietly(channel, e);
        throw e;
      }
    }

    private static void closeQuietly(FileChannel channel, Throwable failure) {
      if (channel == null) {
        return;
      }
      try {
        channel.close();
      } catch (IOException suppressed) {
        failure.addSuppressed(suppressed);
      }
    }
  }
}
