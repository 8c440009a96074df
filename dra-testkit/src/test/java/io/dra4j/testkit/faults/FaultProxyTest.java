package io.dra4j.testkit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.Watch;
import io.dra4j.kube.WatchEvent;
import io.dra4j.kube.WatchHandler;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fault proxy in front of the test kit's API server, with the driver's own client. */
class FaultProxyTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  final FakeApiServer api = FakeApiServer.start();
  FaultProxy proxy;
  HttpKubeClient client;

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    api.close();
  }

  HttpKubeClient through(FaultPlan plan, double qps, int burst, int retries) {
    proxy = FaultProxy.builder(api.url()).plan(plan).name("test").build().start();
    client =
        HttpKubeClient.builder(KubeConfig.builder(proxy.url()).token(api.token()).build())
            .rateLimit(qps, burst)
            .retries(retries, Duration.ofMillis(10), Duration.ofMillis(50))
            .callTimeout(Duration.ofSeconds(10))
            .build();
    return client;
  }

  @Test
  void withoutFaultsRequestsAndWatchesPassThroughWithTheClientsToken() throws Exception {
    HttpKubeClient c = through(FaultPlan.builder(1).build(), 1000, 1000, 0);
    api.putNode("node-1");
    assertThat(c.get(Node.TYPE, "", "node-1").metadata().name()).isEqualTo("node-1");
    CompletableFuture<String> added = new CompletableFuture<>();
    Watch w =
        c.watch(
            Node.TYPE,
            "",
            ListOptions.ALL,
            new WatchHandler<Node>() {
              @Override
              public void onEvent(WatchEvent<Node> e) {
                if (e.type() == WatchEvent.Type.ADDED) {
                  added.complete(e.object().metadata().name());
                }
              }

              @Override
              public void onClose(Optional<KubeException> error) {}
            });
    c.create(Node.TYPE, Node.of(ObjectMeta.named("", "node-2"), null));
    assertThat(added.get(10, TimeUnit.SECONDS)).isIn("node-1", "node-2");
    w.close();
    assertThat(proxy.requests()).isGreaterThanOrEqualTo(3);
    assertThat(proxy.watches()).isEqualTo(1);
    assertThat(proxy.injected().values()).allMatch(v -> v == 0);
    assertThat(api.requests("get", "nodes")).isEqualTo(1);
  }

  @Test
  void throttlingIsAnsweredWithoutReachingTheServer() {
    HttpKubeClient c =
        through(FaultPlan.builder(2).rate(Fault.THROTTLE, 1).build().start(), 1000, 1000, 1);
    api.putNode("node-1");
    assertThatThrownBy(() -> c.get(Node.TYPE, "", "node-1"))
        .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.status()).isEqualTo(429));
    assertThat(proxy.injected().get(Fault.THROTTLE)).isEqualTo(2);
    assertThat(api.requests("get", "nodes")).isZero();
  }

  @Test
  void aResetAfterTheServerAnsweredLosesTheAnswerButNotTheWrite() {
    HttpKubeClient c =
        through(FaultPlan.builder(3).rate(Fault.RESET_AFTER, 1).build().start(), 1000, 1000, 0);
    assertThatThrownBy(() -> c.create(Node.TYPE, Node.of(ObjectMeta.named("", "node-9"), null)))
        .isInstanceOfSatisfying(
            KubeException.class, e -> assertThat(e.reason()).isEqualTo("ConnectionFailed"));
    assertThat(api.object(Node.TYPE, "", "node-9")).isPresent();
  }

  @Test
  void anOutageRefusesConnectionsUntilItEnds() throws Exception {
    FaultPlan plan = FaultPlan.builder(4).outage(Duration.ZERO, Duration.ofMillis(1500)).build();
    HttpKubeClient c = through(plan, 1000, 1000, 0);
    api.putNode("node-1");
    plan.start();
    Await.until("the proxy down", WAIT, () -> proxy.injected().get(Fault.OUTAGE) == 1);
    assertThatThrownBy(() -> c.get(Node.TYPE, "", "node-1"))
        .isInstanceOfSatisfying(
            KubeException.class, e -> assertThat(e.reason()).isEqualTo("ConnectionFailed"));
    Await.until(
        "a read through the proxy after the outage",
        WAIT,
        () -> c.get(Node.TYPE, "", "node-1").metadata().name().equals("node-1"));
    assertThat(plan.inOutage()).isFalse();
    assertThat(proxy.injected().get(Fault.OUTAGE)).isEqualTo(1);
  }

  @Test
  void aDroppedWatchEndsWithAnErrorMidStream() throws Exception {
    FaultPlan plan =
        FaultPlan.builder(5)
            .rate(Fault.WATCH_DROP, 1)
            .watchDropDelay(Duration.ofMillis(200), Duration.ofMillis(300))
            .build()
            .start();
    HttpKubeClient c = through(plan, 1000, 1000, 0);
    api.putNode("node-1");
    CompletableFuture<Optional<KubeException>> closed = new CompletableFuture<>();
    CompletableFuture<Boolean> sawEvent = new CompletableFuture<>();
    c.watch(
        Node.TYPE,
        "",
        ListOptions.ALL,
        new WatchHandler<Node>() {
          @Override
          public void onEvent(WatchEvent<Node> e) {
            sawEvent.complete(true);
          }

          @Override
          public void onClose(Optional<KubeException> error) {
            closed.complete(error);
          }
        });
    assertThat(sawEvent.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(closed.get(10, TimeUnit.SECONDS)).isPresent();
    assertThat(proxy.injected().get(Fault.WATCH_DROP)).isEqualTo(1);
  }

  @Test
  void theRateCheckTellsALimitedClientFromAnUnlimitedOne() throws Exception {
    api.putNode("node-1");
    HttpKubeClient limited = through(FaultPlan.builder(6).build(), 20, 5, 0);
    for (int i = 0; i < 25; i++) {
      limited.get(Node.TYPE, "", "node-1");
    }
    assertThat(proxy.rateExcess(20, 5)).isLessThanOrEqualTo(1.0);
    assertThat(proxy.peakPerSecond()).isLessThanOrEqualTo(26);
    tearDownClient();
    HttpKubeClient unlimited = through(FaultPlan.builder(7).build(), 10_000, 10_000, 0);
    for (int i = 0; i < 25; i++) {
      unlimited.get(Node.TYPE, "", "node-1");
    }
    assertThat(proxy.rateExcess(20, 5)).isGreaterThan(5.0);
  }

  /**
   * A reset pooled connection is sent again only as one of the client's own attempts, each through
   * the limiter: nothing below the client re-sends on its own.
   */
  @Test
  void aResetPooledConnectionCostsOneRequestPerClientAttempt() throws Exception {
    api.putNode("node-1");
    FaultPlan plan = FaultPlan.builder(8).rate(Fault.RESET, 1).build();
    HttpKubeClient c = through(plan, 1000, 1000, 1);
    c.get(Node.TYPE, "", "node-1"); // not started yet: opens the connection the pool reuses
    plan.start();
    assertThatThrownBy(() -> c.get(Node.TYPE, "", "node-1")).isInstanceOf(KubeException.class);
    assertThat(proxy.requests()).as("the first GET and two attempts, no more").isEqualTo(3);
  }

  private void tearDownClient() {
    client.close();
    proxy.close();
  }
}
