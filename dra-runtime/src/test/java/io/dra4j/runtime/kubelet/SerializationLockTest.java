package io.dra4j.runtime.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("try") // locks are held, not used
class SerializationLockTest {

  @TempDir Path dir;

  @Test
  void secondHolderWaitsUntilTheFirstReleases() throws Exception {
    SerializationLock lock = SerializationLock.inProcess();
    assertExclusive(lock, lock);
  }

  @Test
  void twoLocksOnTheSameFileInOneJvmShareOneInProcessLock() throws Exception {
    Path file = dir.resolve("serialize.lock");
    // Without the shared in-process lock the second FileChannel.lock() would throw
    // OverlappingFileLockException instead of waiting.
    assertExclusive(
        SerializationLock.crossProcess(file),
        SerializationLock.crossProcess(dir.resolve("./serialize.lock")));
    assertThat(file).exists();
  }

  @Test
  void reentrantOnOneThread() throws Exception {
    SerializationLock lock = SerializationLock.crossProcess(dir.resolve("serialize.lock"));
    try (SerializationLock.Held outer = lock.acquire();
        SerializationLock.Held inner = lock.acquire()) {
      assertThat(lock.isEnabled()).isTrue();
    }
    // Released fully: another thread can take it.
    Thread t =
        new Thread(
            () -> {
              try (SerializationLock.Held h = lock.acquire()) {
                // ok
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    t.start();
    t.join(10_000);
    assertThat(t.isAlive()).isFalse();
  }

  @Test
  void disabledNeverBlocks() throws Exception {
    SerializationLock lock = SerializationLock.disabled();
    CountDownLatch otherDone = new CountDownLatch(1);
    try (SerializationLock.Held held = lock.acquire()) {
      Thread t =
          new Thread(
              () -> {
                try (SerializationLock.Held h = lock.acquire()) {
                  otherDone.countDown();
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
              });
      t.start();
      assertThat(otherDone.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(lock.isEnabled()).isFalse();
    assertThat(lock.toString()).isEqualTo("disabled");
  }

  /**
   * Proves ordering: thread B asks for the lock while A holds it, and B's "enter" is logged only
   * after A's "exit".
   */
  private static void assertExclusive(SerializationLock a, SerializationLock b) throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch aInside = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    Thread ta =
        new Thread(
            () -> {
              try (SerializationLock.Held h = a.acquire()) {
                log.add("A enter");
                aInside.countDown();
                releaseA.await();
                log.add("A exit");
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    ta.start();
    assertThat(aInside.await(10, TimeUnit.SECONDS)).isTrue();
    Thread tb =
        new Thread(
            () -> {
              log.add("B requested");
              try (SerializationLock.Held h = b.acquire()) {
                log.add("B enter");
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    tb.start();
    // Wait until B is blocked in acquire(), then let A go.
    while (tb.getState() != Thread.State.WAITING && tb.getState() != Thread.State.TERMINATED) {
      Thread.sleep(1);
    }
    releaseA.countDown();
    ta.join(10_000);
    tb.join(10_000);
    assertThat(log).containsExactly("A enter", "B requested", "A exit", "B enter");
  }
}
