package io.dra4j.testkit.load;

import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What a long-running driver must give back: threads, open file descriptors and heap in use after a
 * GC, of this JVM. Load tests take one before the load and one after it, once things settled.
 *
 * @param threads live threads
 * @param fds entries of {@code /proc/self/fd}
 * @param heapBytes heap in use after {@code System.gc()}
 */
public record Resources(int threads, long fds, long heapBytes) {
  /** Above the baseline after the load: pooled connections and their threads come and go. */
  public static final int THREAD_SLACK = 8;

  public static final int FD_SLACK = 32;

  /** Heap may grow by this much plus half the baseline (caches filled, JIT data, pools). */
  public static final long HEAP_SLACK_BYTES = 32L << 20;

  public static Resources now() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    long fds;
    try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
      fds = s.count();
    } catch (IOException e) {
      fds = -1;
    }
    return new Resources(
        ManagementFactory.getThreadMXBean().getThreadCount(),
        fds,
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
  }

  /**
   * Waits until the resources are back within the slack of {@code baseline}: idle pool threads and
   * connections time out after a while (the JDK's HTTP client keeps idle threads 60 s).
   */
  public static Resources settled(Resources baseline, Duration timeout) {
    return Await.until(
        "threads, file descriptors and heap back within their slack of " + baseline,
        timeout,
        () -> Optional.of(now()).filter(r -> r.within(baseline)),
        () -> "now: " + now());
  }

  /** True when every figure is within its slack of {@code baseline}. */
  public boolean within(Resources baseline) {
    return threads <= baseline.threads + THREAD_SLACK
        && fds <= baseline.fds + FD_SLACK
        && heapBytes <= heapLimit(baseline);
  }

  public static long heapLimit(Resources baseline) {
    return baseline.heapBytes * 3 / 2 + HEAP_SLACK_BYTES;
  }

  @Override
  public String toString() {
    return threads + " threads, " + fds + " fds, heap " + (heapBytes >> 20) + " MiB";
  }
}
