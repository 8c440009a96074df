package io.dra4j.runtime.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Device;
import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.api.provider.Pool;
import io.dra4j.runtime.internal.kubelet.HealthSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Reports, overlays, subscriptions and device-list changes from many threads at once. */
class HealthHubConcurrencyTest {

  @Test
  void concurrentUseSendsEveryReportAsItIsAndEndsInTheLastReportedState() throws Exception {
    int devices = 16;
    Pool pool =
        Pool.of(
            "node-1",
            IntStream.range(0, devices).mapToObj(i -> Device.builder("gpu-" + i).build()).toList());
    List<String> problems = new CopyOnWriteArrayList<>();
    try (HealthHub hub =
        HealthHub.builder("gpu.example.com").recoveryDelay(Duration.ZERO).build()) {
      hub.setDevices(List.of(pool));
      hub.subscribe(
          (HealthSnapshot s) -> {
            // Each report names one device: a message is exactly one report.
            if (s.devices().size() != 1) {
              problems.add("message with " + s.devices().size() + " devices");
            }
          });
      ExecutorService threads = Executors.newFixedThreadPool(4);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int offset = t;
        done.add(
            threads.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < 2000; i++) {
                    String d = "gpu-" + ((i + offset) % devices);
                    hub.report(
                        i % 2 == 0
                            ? DeviceHealth.unhealthy("node-1", d, "XID" + i % 7, "")
                            : DeviceHealth.healthy("node-1", d));
                  }
                  return null;
                }));
      }
      done.add(
          threads.submit(
              () -> {
                go.await();
                for (int i = 0; i < 2000; i++) {
                  for (Device d : hub.applyTaints(List.of(pool)).get(0).devices()) {
                    if (d.taints().size() > 1) {
                      problems.add(d.name() + " has " + d.taints().size() + " taints");
                    }
                  }
                  hub.view();
                  hub.setDevices(List.of(pool));
                }
                return null;
              }));
      go.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      threads.shutdown();
      // The final word: every device unhealthy, then gpu-0 healthy (lifted at once, delay 0).
      for (int i = 0; i < devices; i++) {
        hub.report(DeviceHealth.unhealthy("node-1", "gpu-" + i, "final", ""));
      }
      hub.report(DeviceHealth.healthy("node-1", "gpu-0"));
      List<Device> out = hub.applyTaints(List.of(pool)).get(0).devices();
      assertThat(out.get(0).taints()).isEmpty();
      assertThat(out.subList(1, devices))
          .allSatisfy(
              d ->
                  assertThat(d.taints())
                      .singleElement()
                      .satisfies(t -> assertThat(t.value()).isEqualTo("final")));
      assertThat(hub.view().devices())
          .filteredOn(s -> s.status() == HealthStatus.UNHEALTHY)
          .hasSize(devices - 1);
    }
    assertThat(problems).isEmpty();
  }
}
