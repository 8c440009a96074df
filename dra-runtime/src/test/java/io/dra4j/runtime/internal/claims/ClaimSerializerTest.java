package io.dra4j.runtime.internal.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.testsupport.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("try") // passes are held, not used
class ClaimSerializerTest {

  @TempDir Path dir;

  private ClaimSerializer serializer(boolean threadSafe, Optional<String> podUid) {
    return ClaimSerializer.forDriver(new TwoProcessesTest.Provider(threadSafe), dir, podUid);
  }

  @Test
  void withoutThreadSafetyTheSecondCallWaitsUntilTheFirstLeaves() throws Exception {
    ClaimSerializer s = serializer(false, Optional.empty());
    assertExclusive(() -> s.call(ClaimSerializer.NOTHING), () -> s.call(ClaimSerializer.NOTHING));
    assertThat(s.lockFile()).isEmpty();
    assertThat(s).hasToString("one call at a time");
  }

  @Test
  void threadSafeCallsOverlapButCallsForOneClaimDoNot() throws Exception {
    ClaimSerializer s = serializer(true, Optional.empty());
    try (ClaimSerializer.Pass a = s.call(ClaimSerializer.NOTHING)) {
      CountDownLatch otherInside = new CountDownLatch(1);
      Thread t =
          new Thread(
              () -> {
                try (ClaimSerializer.Pass b = s.call(ClaimSerializer.NOTHING)) {
                  otherInside.countDown();
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
              });
      t.start();
      assertThat(otherInside.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertExclusive(
        () -> s.claims(List.of(claim("uid-a"), claim("uid-b"))),
        () -> s.claims(List.of(claim("uid-c"), claim("uid-a"))));
    assertThat(s.isParallel()).isTrue();
  }

  /** Calls name their claims in any order; locked in UID order, two of them never deadlock. */
  @Test
  void callsForTheSameClaimsInOtherOrdersNeverDeadlock() throws Exception {
    ClaimSerializer s = serializer(true, Optional.empty());
    List<ClaimRef> ab = List.of(claim("uid-a"), claim("uid-b"));
    List<ClaimRef> ba = List.of(claim("uid-b"), claim("uid-a"));
    AtomicInteger done = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (List<ClaimRef> order : List.of(ab, ba, ab, ba)) {
      Thread t =
          new Thread(
              () -> {
                for (int i = 0; i < 2_000; i++) {
                  try (ClaimSerializer.Pass p = s.claims(order)) {
                    done.incrementAndGet();
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join(30_000);
    }
    assertThat(done).hasValue(8_000);
  }

  private static ClaimRef claim(String uid) {
    return ClaimRef.of("ns", "claim-" + uid, uid);
  }

  @Test
  void recoveryWaitsForParallelCalls() throws Exception {
    ClaimSerializer s = serializer(true, Optional.empty());
    assertExclusive(() -> s.call(ClaimSerializer.NOTHING), () -> s.alone(ClaimSerializer.NOTHING));
  }

  @Test
  void aRollingUpdateLocksTheFileInThePluginDirectory() throws Exception {
    ClaimSerializer s = serializer(false, Optional.of("pod-1"));
    assertThat(s.lockFile()).contains(dir.resolve("serialize.lock"));
    try (ClaimSerializer.Pass p = s.call(ClaimSerializer.NOTHING)) {
      assertThat(dir.resolve("serialize.lock")).exists();
    }
  }

  @Test
  void twoDriversOnTheSameDirectoryInOneJvmWaitForEachOther() throws Exception {
    // The JVM refuses a second lock on a file it already locks instead of waiting: the second
    // driver must wait all the same.
    ClaimSerializer a = serializer(true, Optional.of("old-pod"));
    ClaimSerializer b = serializer(true, Optional.of("new-pod"));
    assertExclusive(() -> a.call(ClaimSerializer.NOTHING), () -> b.call(ClaimSerializer.NOTHING));
  }

  @Test
  void afterOtherProcessRunsOnlyWhenAnotherProcessHeldTheFileSince() throws Exception {
    ClaimSerializer s = serializer(true, Optional.of("pod-1"));
    ClaimSerializer other = serializer(true, Optional.of("pod-2"));
    AtomicInteger resyncs = new AtomicInteger();
    ClaimSerializer.AfterOtherProcess count = resyncs::incrementAndGet;
    // No owner yet: whoever held the file before is unknown.
    try (ClaimSerializer.Pass first = s.call(count);
        ClaimSerializer.Pass second = s.call(count)) {
      assertThat(resyncs).hasValue(1);
    }
    try (ClaimSerializer.Pass again = s.call(count)) {
      assertThat(resyncs).hasValue(1);
    }
    try (ClaimSerializer.Pass theirs = other.call(ClaimSerializer.NOTHING)) {
      assertThat(dir.resolve(ClaimSerializer.OWNER_FILE)).exists();
    }
    try (ClaimSerializer.Pass afterThem = s.call(count)) {
      assertThat(resyncs).hasValue(2);
    }
  }

  @FunctionalInterface
  private interface Enter {
    ClaimSerializer.Pass enter() throws Exception;
  }

  /**
   * Proves ordering: thread B asks to enter while A is inside, and B's "enter" is logged only after
   * A's "exit".
   */
  private static void assertExclusive(Enter a, Enter b) throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch aInside = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    Thread ta =
        new Thread(
            () -> {
              try (ClaimSerializer.Pass p = a.enter()) {
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
              try (ClaimSerializer.Pass p = b.enter()) {
                log.add("B enter");
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    tb.start();
    // Wait until B is blocked (parked on a lock, or polling for the file), then let A go.
    Set<Thread.State> blocked =
        EnumSet.of(Thread.State.WAITING, Thread.State.TIMED_WAITING, Thread.State.TERMINATED);
    Await.until("B blocked", Duration.ofSeconds(60), () -> blocked.contains(tb.getState()));
    releaseA.countDown();
    ta.join(10_000);
    tb.join(10_000);
    assertThat(log).containsExactly("A enter", "B requested", "A exit", "B enter");
  }
}
