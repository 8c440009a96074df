package io.dra4j.cel;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Many threads sharing one compiler and one compiled selector. */
class ConcurrencyTest {

  private static final String DRIVER = "gpu.example.com";
  private static final String EXPR =
      "device.driver == 'gpu.example.com'"
          + " && device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
          + " && device.attributes['gpu.example.com'].index % 2 == 0";

  private static Device device(int i) {
    return Device.builder("gpu-" + i)
        .attribute("index", i)
        .capacity("memory", Quantity.parse((i % 3 == 0 ? 80 : 24) + "Gi"))
        .build();
  }

  /** Expected by plain Java: even index and 80Gi (i divisible by 3). */
  private static boolean expected(int i) {
    return i % 2 == 0 && i % 3 == 0;
  }

  @Test
  void oneCompiledSelectorEvaluatedByManyThreads() throws Exception {
    CelSelectors selectors = new CelSelectors();
    int threads = 8;
    int perThread = 1_000;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t;
        Callable<Integer> task =
            () -> {
              start.await();
              // Every thread compiles too: the cache must hand all of them one selector.
              CompiledSelector s = selectors.compile(EXPR);
              int wrong = 0;
              for (int k = 0; k < perThread; k++) {
                int i = k * threads + offset;
                if (s.matches(DRIVER, device(i)) != expected(i)) {
                  wrong++;
                }
                // Errors must stay per evaluation as well: this device lacks "index".
                if (k % 100 == 0) {
                  Device bare =
                      Device.builder("bare-" + i)
                          .capacity("memory", Quantity.parse("80Gi"))
                          .build();
                  try {
                    s.matches(DRIVER, bare);
                    wrong++;
                  } catch (SelectorEvaluationException e) {
                    if (!e.deviceName().equals("bare-" + i)) {
                      wrong++;
                    }
                  }
                }
              }
              return wrong;
            };
        results.add(pool.submit(task));
      }
      start.countDown();
      for (Future<Integer> f : results) {
        assertThat(f.get(2, TimeUnit.MINUTES)).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(selectors.compilations()).isEqualTo(1);
  }
}
