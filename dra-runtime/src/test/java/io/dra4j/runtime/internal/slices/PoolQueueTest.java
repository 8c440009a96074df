package io.dra4j.runtime.internal.slices;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolQueueTest {

  @Test
  void aPoolIsQueuedOnceAtItsEarliestTime() {
    PoolQueue q = new PoolQueue();
    q.add("a", 100);
    q.add("a", 50);
    q.add("a", 300);
    assertThat(q.nextDue()).contains(50L);
    assertThat(q.pollDue(49)).isEmpty();
    assertThat(q.pollDue(50)).contains("a");
    assertThat(q.pollDue(1000)).isEmpty();
    assertThat(q.isEmpty()).isTrue();
  }

  @Test
  void theEarliestDuePoolComesFirst() {
    PoolQueue q = new PoolQueue();
    q.add("late", 30);
    q.add("early", 10);
    q.add("middle", 20);
    assertThat(q.pollDue(100)).contains("early");
    assertThat(q.pollDue(100)).contains("middle");
    assertThat(q.pollDue(100)).contains("late");
    assertThat(q.nextDue()).isEqualTo(Optional.empty());
  }

  @Test
  void resourceVersionsCompareAsNumbersWhenTheyAreNumbers() {
    assertThat(KnownSlices.compareVersions("10", "9")).isPositive();
    assertThat(KnownSlices.compareVersions("9", "10")).isNegative();
    assertThat(KnownSlices.compareVersions("abc", "abc")).isZero();
    // Opaque versions: only equality is known; a different one counts as newer.
    assertThat(KnownSlices.compareVersions("abc", "abd")).isPositive();
  }
}
