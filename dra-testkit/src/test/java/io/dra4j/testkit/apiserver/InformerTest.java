package io.dra4j.testkit.apiserver;

import static io.dra4j.testkit.apiserver.KubeClientContractTest.DRIVER;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.slice;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.RequestObserver;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.runtime.testsupport.Await;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Informer against the fake API server: list once, watch, resume, re-list only when needed. */
class InformerTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  private FakeApiServer server;
  private HttpKubeClient client;
  private Informer<ResourceSlice> informer;
  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  private final Queue<String> attempts = new ConcurrentLinkedQueue<>();

  @AfterEach
  void stop() {
    if (informer != null) {
      informer.close();
    }
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private void startInformer(ListOptions options) throws InterruptedException {
    startInformer(options, 0);
  }

  private void startInformer(ListOptions options, int clientRetries) throws InterruptedException {
    client =
        server
            .clientBuilder()
            .rateLimit(1000, 1000)
            .retries(clientRetries, Duration.ofMillis(1), Duration.ofMillis(1))
            .observer(
                new RequestObserver() {
                  @Override
                  public void attempted(String verb, String resource, int status, long nanos) {
                    attempts.add(verb + (status == 0 ? " refused" : ""));
                  }

                  @Override
                  public void rateLimited(String verb, long nanos) {}
                })
            .build();
    informer =
        Informer.builder(client, ResourceSlice.TYPE)
            .options(options)
            .backoff(Duration.ofMillis(20), Duration.ofMillis(200))
            .handler(
                new InformerHandler<>() {
                  @Override
                  public void onAdd(ResourceSlice s) {
                    events.add("add " + s.metadata().name());
                  }

                  @Override
                  public void onUpdate(ResourceSlice oldObj, ResourceSlice newObj) {
                    events.add(
                        "update "
                            + newObj.metadata().name()
                            + " "
                            + oldObj.spec().pool().generation()
                            + "->"
                            + newObj.spec().pool().generation());
                  }

                  @Override
                  public void onDelete(ResourceSlice s) {
                    events.add("delete " + s.metadata().name());
                  }
                })
            .build()
            .start();
    assertThat(informer.awaitSynced(Duration.ofSeconds(10))).isTrue();
  }

  private String next() throws InterruptedException {
    String e = events.poll(10, TimeUnit.SECONDS);
    assertThat(e).as("an informer event within 10 s").isNotNull();
    return e;
  }

  private void awaitWatches(long opened) {
    Await.until(
        opened + " watches opened, one open",
        WAIT,
        () -> server.openWatches() >= 1 && server.watchesOpened() >= opened);
  }

  @Test
  void listsOnceThenFollowsTheWatch() throws Exception {
    server = FakeApiServer.start();
    server.put(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
    startInformer(ListOptions.fields("spec.nodeName=node-1"));
    assertThat(next()).isEqualTo("add a");
    awaitWatches(1);

    try (HttpKubeClient writer = server.newClient()) {
      writer.create(ResourceSlice.TYPE, slice("b", "node-1", DRIVER));
      writer.create(ResourceSlice.TYPE, slice("other", "node-2", DRIVER));
      ResourceSlice a = writer.get(ResourceSlice.TYPE, "", "a");
      writer.update(
          ResourceSlice.TYPE,
          a.withSpec(a.spec().withPool(new ResourceSliceSpec.ResourcePool("node-1", 2, 1))));
      writer.delete(ResourceSlice.TYPE, "", "b", Preconditions.NONE);
    }
    assertThat(next()).isEqualTo("add b");
    assertThat(next()).isEqualTo("update a 1->2");
    assertThat(next()).isEqualTo("delete b");
    assertThat(informer.get("", "a").orElseThrow().spec().pool().generation()).isEqualTo(2);
    assertThat(informer.list()).extracting(s -> s.metadata().name()).containsExactly("a");
    // One list for all of that: no re-list per event.
    assertThat(informer.listCount()).isEqualTo(1);
    assertThat(server.requests("list", "resourceslices")).isEqualTo(1);
  }

  @Test
  void resumesACleanlyEndedWatchWithoutListing() throws Exception {
    server = FakeApiServer.start();
    startInformer(ListOptions.ALL);
    awaitWatches(1);
    // An event first: a watch that ends within 1 s without one is a failure, as for client-go.
    try (HttpKubeClient writer = server.newClient()) {
      writer.create(ResourceSlice.TYPE, slice("before", "node-1", DRIVER));
      assertThat(next()).isEqualTo("add before");
      server.faults().dropWatches();
      awaitWatches(2);
      writer.create(ResourceSlice.TYPE, slice("after", "node-1", DRIVER));
    }
    assertThat(next()).isEqualTo("add after");
    assertThat(informer.listCount()).isEqualTo(1);
    assertThat(server.requests("list", "resourceslices")).isEqualTo(1);
  }

  @Test
  void listsAgainOnGoneAndReportsOnlyRealChanges() throws Exception {
    server = FakeApiServer.start();
    server.put(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
    startInformer(ListOptions.ALL);
    assertThat(next()).isEqualTo("add a");
    awaitWatches(1);
    // The next watch start answers 410; then the stream is cut so the informer re-watches.
    server.faults().failNext("watch", "resourceslices", 1, 410);
    server.put(ResourceSlice.TYPE, slice("b", "node-1", DRIVER));
    assertThat(next()).isEqualTo("add b");
    server.faults().dropWatches();
    awaitWatches(2);
    Await.until("a second list", WAIT, () -> informer.listCount() >= 2);
    assertThat(informer.listCount()).isEqualTo(2);
    // The re-list found nothing new: no duplicate adds, no spurious updates.
    assertThat(events.poll(300, TimeUnit.MILLISECONDS)).isNull();
    assertThat(informer.list()).hasSize(2);
  }

  @Test
  void listsAgainAfterTheServerWasDownAndCatchesUp() throws Exception {
    server = FakeApiServer.builder().historyLimit(2).build().startServer();
    server.put(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
    server.put(ResourceSlice.TYPE, slice("b", "node-1", DRIVER));
    startInformer(ListOptions.ALL);
    assertThat(next()).isEqualTo("add a");
    assertThat(next()).isEqualTo("add b");
    awaitWatches(1);

    server.stop(); // the stream breaks: the informer backs off and lists again
    ResourceSlice a = server.object(ResourceSlice.TYPE, "", "a").orElseThrow();
    server.put(ResourceSlice.TYPE, slice("c", "node-1", DRIVER));
    server.put(ResourceSlice.TYPE, slice("d", "node-1", DRIVER));
    server.put(ResourceSlice.TYPE, slice("e", "node-1", DRIVER));
    server.restart();

    assertThat(java.util.List.of(next(), next(), next()))
        .containsExactlyInAnyOrder("add c", "add d", "add e");
    assertThat(informer.listCount()).isGreaterThanOrEqualTo(2);
    assertThat(informer.get("", "a")).contains(a);
    assertThat(events.poll(300, TimeUnit.MILLISECONDS)).isNull();
  }

  @Test
  void whileTheServerIsAwayItOnlyWatchesAgainOnItsBackoffAndResumesWithoutAList() throws Exception {
    server = FakeApiServer.start();
    server.put(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
    // The client would retry a refused call 5 times: an informer's list and watch it must not.
    startInformer(ListOptions.ALL, 5);
    assertThat(next()).isEqualTo("add a");
    awaitWatches(1);
    // An event first: a watch that ends within 1 s without one is a failure, as for client-go.
    server.put(ResourceSlice.TYPE, slice("b", "node-1", DRIVER));
    assertThat(next()).isEqualTo("add b");

    server.stop();
    Thread.sleep(1000); // not a wait for a condition: the outage, whose attempts are counted
    List<String> whileAway = List.copyOf(attempts);
    server.restart();
    server.put(ResourceSlice.TYPE, slice("c", "node-1", DRIVER));
    assertThat(next()).isEqualTo("add c");

    // One list at the start, one watch; then, while away, only watches, each refused once: the
    // backoff (20 ms doubling to 200 ms, each d·[1, 2)) allows at most 9 in 1 s.
    assertThat(whileAway.subList(0, 2)).containsExactly("list", "watch");
    assertThat(whileAway.subList(2, whileAway.size()))
        .isNotEmpty()
        .hasSizeLessThanOrEqualTo(9)
        .allMatch(a -> a.equals("watch refused"));
    // Back, it watches on from where it was: no list, so no stampede of lists at a restart.
    assertThat(informer.listCount()).isEqualTo(1);
    assertThat(attempts).containsOnlyOnce("list");
    assertThat(server.requests("list", "resourceslices")).isEqualTo(1);
  }
}
