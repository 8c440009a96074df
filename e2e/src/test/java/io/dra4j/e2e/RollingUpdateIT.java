package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A DaemonSet rolling update (maxSurge 1, maxUnavailable 0) on a real claim: the new driver pod
 * (its own {@code --pod-uid}, the same host folders) registers next to the old one, the old one is
 * stopped with SIGTERM, and the kubelet's prepare/unprepare calls, running all the time against
 * whichever instance it last registered, never fail.
 */
class RollingUpdateIT {
  static final String NS = "e2e-rolling";
  static final String CLASS = "gpu-rolling.example.com";

  Cluster cluster = Cluster.shared();
  DriverNode node;
  Scenario scenario;
  DriverProcess next;

  @BeforeEach
  void start() {
    cluster.apply(Resources.namespace(NS));
    node =
        DriverNode.start(
            cluster, "rolling-node", b -> b.flag("devices", "2").flag("pod-uid", "pod-old"));
    node.awaitDevices(2);
    cluster.apply(Resources.deviceClass(CLASS, Resources.GPU_SELECTOR));
    scenario = new Scenario(cluster, node, NS);
  }

  @AfterEach
  void stop() {
    if (next != null) {
      next.close();
    }
    scenario.cleanUp("deviceclass/" + CLASS);
    node.close();
  }

  @Test
  void noPrepareFailsWhileTheOldInstanceStops() throws Exception {
    cluster.apply(Resources.claim(NS, "steady", CLASS, 1, "true", Optional.empty()));
    cluster.apply(Resources.podWithClaim(NS, "steady", "steady", Optional.empty()));
    scenario.allocated("steady");
    scenario.bound("steady");
    ClaimRef ref = scenario.ref("steady");
    PluginInstance old = node.plugin();

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger pairs = new AtomicInteger();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    Thread kubelet =
        new Thread(
            () -> {
              while (running.get()) {
                // The kubelet calls the instance it registered last.
                PluginInstance p = node.kubelet.plugin(DriverProcess.DRIVER).orElseThrow();
                try {
                  ClaimResult r = p.prepare(List.of(ref)).get(ref.uid());
                  r.error().ifPresent(e -> failures.add("prepare at " + p.endpoint() + ": " + e));
                  p.unprepare(List.of(ref))
                      .get(ref.uid())
                      .ifPresent(e -> failures.add("unprepare at " + p.endpoint() + ": " + e));
                  pairs.incrementAndGet();
                } catch (RuntimeException e) {
                  failures.add("call to " + p.endpoint() + " failed: " + e);
                }
              }
            },
            "kubelet-calls");
    kubelet.start();
    awaitPairs(pairs, 5);

    // The surge pod: same host folders, its own pod UID, so its own sockets.
    next =
        DriverProcess.builder(node.work, node.name, node.kubeconfig)
            .folders(
                node.driver.registryDir(),
                node.driver.pluginDir().getParent(),
                node.driver.cdiDir())
            .logName("driver-new")
            .flag("devices", "2")
            .flag("pod-uid", "pod-new")
            .start();
    PluginInstance fresh =
        node.await(
            "the new instance registered",
            () ->
                node.kubelet
                    .plugin(DriverProcess.DRIVER)
                    .filter(p -> !p.endpoint().equals(old.endpoint())));
    assertThat(fresh.registrationSocket()).isNotEqualTo(old.registrationSocket());
    int beforeStop = pairs.get();
    awaitPairs(pairs, beforeStop + 5);

    // The old pod is deleted: SIGTERM; it drains and removes its sockets.
    assertThat(node.driver.stop()).as(node.context()).isEqualTo(143);
    assertThat(old.registrationSocket()).doesNotExist();
    awaitPairs(pairs, pairs.get() + 5);
    running.set(false);
    kubelet.join(Duration.ofSeconds(60).toMillis());

    assertThat(failures).as("failed kubelet calls\n" + node.context()).isEmpty();
    assertThat(pairs.get()).isGreaterThanOrEqualTo(15);
    // The new instance publishes the same inventory under the same names: nothing changed.
    node.awaitDevices(2);
  }

  private void awaitPairs(AtomicInteger pairs, int atLeast) {
    node.await(atLeast + " prepare/unprepare pairs", () -> pairs.get() >= atLeast);
  }
}
