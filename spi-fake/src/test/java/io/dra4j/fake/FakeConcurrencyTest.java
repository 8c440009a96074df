package io.dra4j.fake;

import static io.dra4j.fake.Fixtures.NODE;
import static io.dra4j.fake.Fixtures.discovered;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class FakeConcurrencyTest {

  @Test
  void thePropertyMakesTheProviderAskForSerializedCalls() {
    System.setProperty(FakeDeviceProvider.THREAD_SAFE_PROPERTY, "false");
    try {
      assertThat(new FakeDeviceProvider().threadSafe()).isFalse();
    } finally {
      System.clearProperty(FakeDeviceProvider.THREAD_SAFE_PROPERTY);
    }
    assertThat(new FakeDeviceProvider().threadSafe()).isTrue();
  }

  @Test
  void concurrentClaimsNeverShareAnExclusiveDevice() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("devices", "8"));
    assertThat(p.threadSafe()).isTrue();
    int claims = 128;
    Map<String, PrepareResult> won = new ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < claims; i++) {
        String uid = "c" + i;
        // Every claim wants two devices; 16 claims compete for each pair.
        AllocatedDevice a = AllocatedDevice.of("r", NODE, "gpu-" + (i % 4) * 2);
        AllocatedDevice b = AllocatedDevice.of("r", NODE, "gpu-" + ((i % 4) * 2 + 1));
        Callable<Void> task =
            () -> {
              start.await();
              try {
                won.put(uid, p.prepare(FakePrepareTest.claim(uid, a, b)));
              } catch (DeviceException expected) {
                // another claim holds a device
              }
              return null;
            };
        futures.add(pool.submit(task));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    Map<String, Set<String>> prepared = p.prepared();
    assertThat(prepared.keySet()).isEqualTo(won.keySet());
    assertThat(prepared).hasSize(4);
    Set<String> held = new HashSet<>();
    prepared.values().forEach(keys -> keys.forEach(k -> assertThat(held.add(k)).as(k).isTrue()));
    assertThat(held).hasSize(8);
  }

  @Test
  void concurrentSharedAllocationsAllSucceed() throws Exception {
    FakeDeviceProvider p = discovered(Map.of("devices", "2", "consumable", "true"));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<PrepareResult>> futures = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        String uid = "s" + i;
        AllocatedDevice d = FakePrepareTest.shared("r", "gpu-" + (i % 2), "share-" + i, "1Gi");
        futures.add(pool.submit(() -> p.prepare(FakePrepareTest.claim(uid, d))));
      }
      for (Future<PrepareResult> f : futures) {
        assertThat(f.get().devices()).hasSize(1);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(p.prepared()).hasSize(64);
  }
}
