package io.dra4j.testkit.apiserver;

import static io.dra4j.testkit.apiserver.KubeClientContractTest.DRIVER;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.allocation;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.claim;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.deviceStatusPatch;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.Preconditions;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.kube.Watch;
import io.dra4j.kube.WatchEvent;
import io.dra4j.runtime.testsupport.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Server behaviour beyond the shared contract, and the client's resilience against it. */
@SuppressWarnings("try") // watches are opened for their side effect and closed by the block
class FakeApiServerTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  private FakeApiServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpKubeClient fastRetryClient() {
    return server
        .clientBuilder()
        .rateLimit(1000, 1000)
        .retries(5, Duration.ofMillis(1), Duration.ofMillis(10))
        .build();
  }

  @Test
  void requestsWithoutTheTokenAreUnauthorized() {
    server = FakeApiServer.start();
    KubeConfig wrong = KubeConfig.builder(server.url()).token("not-the-token").build();
    try (HttpKubeClient c = HttpKubeClient.builder(wrong).build()) {
      assertThatThrownBy(() -> c.get(ResourceSlice.TYPE, "", "x"))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                assertThat(e.status()).isEqualTo(401);
                assertThat(e.reason()).isEqualTo("Unauthorized");
              });
    }
  }

  @Test
  void anonymousRequestsAreServedOnlyWhenAllowed() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    for (boolean allowed : new boolean[] {false, true}) {
      server = FakeApiServer.builder().allowAnonymous(allowed).build().startServer();
      try {
        URI nodes = server.url().resolve("/api/v1/nodes");
        HttpResponse<String> none =
            http.send(HttpRequest.newBuilder(nodes).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(none.statusCode())
            .as("no credentials, allowed=" + allowed)
            .isEqualTo(allowed ? 200 : 401);
        HttpResponse<String> wrong =
            http.send(
                HttpRequest.newBuilder(nodes).header("Authorization", "Bearer wrong").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(wrong.statusCode()).as("a wrong token is refused either way").isEqualTo(401);
      } finally {
        server.close();
        server = null;
      }
    }
  }

  @Test
  void retriesReadsOn503WithRetryAfterAndOn429() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = fastRetryClient()) {
      c.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
      server.faults().failNext("get", "resourceslices", 2, 503, 0);
      assertThat(c.get(ResourceSlice.TYPE, "", "s").metadata().name()).isEqualTo("s");
      assertThat(server.requests("get", "resourceslices")).isEqualTo(3);

      server.faults().failNext("list", "resourceslices", 1, 429, 0);
      assertThat(c.list(ResourceSlice.TYPE, "", ListOptions.ALL).items()).hasSize(1);
      assertThat(server.requests("list", "resourceslices")).isEqualTo(2);
      assertThat(c.retriedAttempts()).isEqualTo(3);
    }
  }

  @Test
  void createIsRetriedOnlyWhenTheServerSaysItDidNotProcessIt() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = fastRetryClient()) {
      // 429: rejected before processing, safe to repeat even with generateName.
      server.faults().failNext("create", "resourceslices", 1, 429, 0);
      ResourceSlice gen =
          slice("", "node-1", DRIVER).withMetadata(ObjectMeta.generated("", "gen-"));
      c.create(ResourceSlice.TYPE, gen);
      assertThat(server.requests("create", "resourceslices")).isEqualTo(2);
      assertThat(server.objects(ResourceSlice.TYPE)).hasSize(1);

      // A 500 without Retry-After is ambiguous for a create: not repeated.
      server.faults().failNext("create", "resourceslices", 1, 500);
      assertThatThrownBy(() -> c.create(ResourceSlice.TYPE, gen))
          .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.status()).isEqualTo(500));
      assertThat(server.requests("create", "resourceslices")).isEqualTo(3);

      // The same 500 on an update (it carries the resourceVersion) is repeated.
      ResourceSlice stored = server.objects(ResourceSlice.TYPE).get(0);
      server.faults().failNext("update", "resourceslices", 1, 500);
      c.update(
          ResourceSlice.TYPE,
          stored.withSpec(
              stored.spec().withPool(new ResourceSliceSpec.ResourcePool("node-1", 5, 1))));
      assertThat(server.requests("update", "resourceslices")).isEqualTo(2);
    }
  }

  @Test
  void errorsCarryTheStatusReasonAndMessage() {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      assertThatThrownBy(() -> c.get(ResourceClaim.TYPE, "ns", "missing"))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                assertThat(e.status()).isEqualTo(404);
                assertThat(e.reason()).isEqualTo("NotFound");
                assertThat(e.getMessage())
                    .contains("GET /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/missing")
                    .contains("resourceclaims.resource.k8s.io \"missing\" not found");
              });
      assertThatThrownBy(() -> c.list(ResourceSlice.TYPE, "", ListOptions.fields("spec.bogus=1")))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.getMessage()).contains("field label not supported: spec.bogus");
              });
    }
  }

  @Test
  void aCallFailsAtItsDeadline() {
    server = FakeApiServer.start();
    server.faults().latency(Duration.ofSeconds(3));
    try (HttpKubeClient c = server.clientBuilder().callTimeout(Duration.ofMillis(300)).build()) {
      assertThatThrownBy(() -> c.get(ResourceSlice.TYPE, "", "x"))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                assertThat(e.status()).isZero();
                assertThat(e.reason()).isEqualTo("Timeout");
              });
    }
  }

  @Test
  void theRateLimitAllowsTheBurstThenFailsCallsThatWouldWaitPastTheirDeadline() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c =
        server
            .clientBuilder()
            .rateLimit(0.001, 3) // one token per 1000 s after the burst
            .callTimeout(Duration.ofSeconds(5))
            .build()) {
      for (int i = 0; i < 3; i++) {
        c.list(ResourceSlice.TYPE, "", ListOptions.ALL);
      }
      assertThatThrownBy(() -> c.list(ResourceSlice.TYPE, "", ListOptions.ALL))
          .isInstanceOfSatisfying(
              KubeException.class, e -> assertThat(e.reason()).isEqualTo("ClientRateLimited"));
      assertThat(server.requests("list", "resourceslices")).isEqualTo(3);
    }
  }

  @Test
  void theRateLimitDelaysCallsBeyondTheBurst() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.clientBuilder().rateLimit(1, 1).build()) {
      for (int i = 0; i < 3; i++) {
        c.list(ResourceSlice.TYPE, "", ListOptions.ALL);
      }
      // 1 from the burst; the other 2 waited for a token (1 s each). Counted, not timed.
      assertThat(c.throttledCalls()).isEqualTo(2);
      assertThat(server.requests("list", "resourceslices")).isEqualTo(3);
    }
  }

  @Test
  void aWatchFromACompactedResourceVersionEndsWithGone() throws Exception {
    server = FakeApiServer.builder().historyLimit(3).build().startServer();
    try (HttpKubeClient c = server.newClient()) {
      c.create(ResourceSlice.TYPE, slice("first", "node-1", DRIVER));
      String rv = c.list(ResourceSlice.TYPE, "", ListOptions.ALL).resourceVersion();
      for (int i = 0; i < 5; i++) {
        c.create(ResourceSlice.TYPE, slice("s" + i, "node-1", DRIVER));
      }
      KubeClientContractTest.Recorder<ResourceSlice> rec = new KubeClientContractTest.Recorder<>();
      try (Watch w =
          c.watch(ResourceSlice.TYPE, "", ListOptions.ALL.withResourceVersion(rv), rec)) {
        Optional<KubeException> end = rec.closed.poll(10, TimeUnit.SECONDS);
        assertThat(end).isNotNull();
        assertThat(end).hasValueSatisfying(e -> assertThat(e.isGone()).isTrue());
        assertThat(end.get().reason()).isEqualTo("Expired");
      }
      // Within the history a watch replays what it missed.
      String recent =
          server.object(ResourceSlice.TYPE, "", "s2").orElseThrow().metadata().resourceVersion();
      KubeClientContractTest.Recorder<ResourceSlice> rec2 = new KubeClientContractTest.Recorder<>();
      try (Watch w =
          c.watch(ResourceSlice.TYPE, "", ListOptions.ALL.withResourceVersion(recent), rec2)) {
        assertThat(rec2.next().object().metadata().name()).isEqualTo("s3");
        assertThat(rec2.next().object().metadata().name()).isEqualTo("s4");
      }
    }
  }

  @Test
  void bookmarksCarryTheCurrentResourceVersion() throws Exception {
    server = FakeApiServer.builder().bookmarkInterval(Duration.ofMillis(50)).build().startServer();
    try (HttpKubeClient c = server.newClient()) {
      c.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
      KubeClientContractTest.Recorder<ResourceSlice> rec = new KubeClientContractTest.Recorder<>();
      try (Watch w = c.watch(ResourceSlice.TYPE, "", ListOptions.ALL.withBookmarks(), rec)) {
        WatchEvent<ResourceSlice> e;
        do {
          e = rec.events.poll(10, TimeUnit.SECONDS);
          assertThat(e).isNotNull();
        } while (e.type() != WatchEvent.Type.BOOKMARK);
        assertThat(e.resourceVersion()).isEqualTo(Long.toString(server.resourceVersion()));
      }
      // Without allowWatchBookmarks there are none.
      KubeClientContractTest.Recorder<ResourceSlice> plain =
          new KubeClientContractTest.Recorder<>();
      try (Watch w = c.watch(ResourceSlice.TYPE, "", ListOptions.ALL, plain)) {
        assertThat(plain.next().type()).isEqualTo(WatchEvent.Type.ADDED);
        assertThat(plain.events.poll(300, TimeUnit.MILLISECONDS)).isNull();
      }
    }
  }

  @Test
  void droppedWatchesEndCleanly() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      KubeClientContractTest.Recorder<ResourceSlice> rec = new KubeClientContractTest.Recorder<>();
      try (Watch w = c.watch(ResourceSlice.TYPE, "", ListOptions.ALL, rec)) {
        awaitOpenWatches(1);
        server.faults().dropWatches();
        assertThat(rec.closed.poll(10, TimeUnit.SECONDS)).isEmpty();
      }
    }
  }

  private void awaitOpenWatches(int n) {
    Await.until(n + " open watches", WAIT, () -> server.openWatches() == n);
  }

  @Test
  void deleteCollectionWithAFieldSelectorDeletesOnlyThatNodesSlices() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      c.create(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
      c.create(ResourceSlice.TYPE, slice("b", "node-1", "net.example.com"));
      c.create(ResourceSlice.TYPE, slice("c", "node-2", DRIVER));
      c.deleteCollection(ResourceSlice.TYPE, "", ListOptions.fields("spec.nodeName=node-1"));
      assertThat(server.objects(ResourceSlice.TYPE))
          .extracting(s -> s.metadata().name())
          .containsExactly("c");
      assertThat(server.requests("deletecollection", "resourceslices")).isEqualTo(1);
    }
  }

  @Test
  void finalizersTurnADeleteIntoATerminatingObject() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      ResourceClaim cl = claim("ns", "c", Map.of());
      ObjectMeta withFinalizer =
          new ObjectMeta(
              "c",
              "",
              "ns",
              "",
              "",
              0,
              "",
              Optional.empty(),
              Map.of(),
              Map.of(),
              List.of(),
              List.of("gpu.example.com/protect"),
              Map.of());
      c.create(ResourceClaim.TYPE, cl.withMetadata(withFinalizer));
      c.delete(ResourceClaim.TYPE, "ns", "c", Preconditions.NONE);
      ResourceClaim terminating = c.get(ResourceClaim.TYPE, "ns", "c");
      assertThat(terminating.metadata().deletionTimestamp()).isPresent();
      ObjectMeta m = terminating.metadata();
      ObjectMeta cleared =
          new ObjectMeta(
              m.name(),
              m.generateName(),
              m.namespace(),
              m.uid(),
              m.resourceVersion(),
              m.generation(),
              m.creationTimestamp(),
              m.deletionTimestamp(),
              m.labels(),
              m.annotations(),
              m.ownerReferences(),
              List.of(),
              m.unknownFields());
      c.update(ResourceClaim.TYPE, terminating.withMetadata(cleared));
      assertThat(server.object(ResourceClaim.TYPE, "ns", "c")).isEmpty();
    }
  }

  @Test
  void metricsCountRequestsWithTheRealServersLabels() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      ResourceClaim cl = c.create(ResourceClaim.TYPE, claim("ns", "c", Map.of()));
      c.updateStatus(ResourceClaim.TYPE, cl.withStatus(allocation("gpu-0")));
      c.get(ResourceClaim.TYPE, "ns", "c");
      c.apply(
          ResourceClaim.TYPE,
          "ns",
          "c",
          "status",
          deviceStatusPatch("ns", "c", "gpu-0"),
          new ApplyOptions("driver-a", true));
      c.list(ResourceSlice.TYPE, "", ListOptions.ALL);
    }
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(server.url().resolve("/metrics"))
                    .header("Authorization", "Bearer " + server.token())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    String claims = "group=\"resource.k8s.io\",resource=\"resourceclaims\",";
    assertThat(r.body())
        .contains("# TYPE apiserver_request_total counter")
        .contains(
            "apiserver_request_total{"
                + claims
                + "scope=\"namespace\",subresource=\"\",verb=\"POST\",version=\"v1\"} 1")
        .contains(
            "apiserver_request_total{"
                + claims
                + "scope=\"resource\",subresource=\"status\",verb=\"PUT\",version=\"v1\"} 1")
        .contains(
            "apiserver_request_total{"
                + claims
                + "scope=\"resource\",subresource=\"\",verb=\"GET\",version=\"v1\"} 1")
        .contains(
            "apiserver_request_total{"
                + claims
                + "scope=\"resource\",subresource=\"status\",verb=\"APPLY\",version=\"v1\"} 1")
        .contains(
            "apiserver_request_total{group=\"resource.k8s.io\",resource=\"resourceslices\","
                + "scope=\"cluster\",subresource=\"\",verb=\"LIST\",version=\"v1\"} 1");
  }

  @Test
  void aStreamingListSendsTheObjectsThenTheInitialEventsEndBookmark() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      c.create(ResourceSlice.TYPE, slice("a", "node-1", DRIVER));
      c.create(ResourceSlice.TYPE, slice("b", "node-1", DRIVER));
    }
    HttpClient http = HttpClient.newHttpClient();
    String path = "/apis/resource.k8s.io/v1/resourceslices?watch=true&timeoutSeconds=1";
    String streaming = "&sendInitialEvents=true&allowWatchBookmarks=true";
    HttpResponse<java.util.stream.Stream<String>> r =
        http.send(
            HttpRequest.newBuilder(
                    server.url().resolve(path + streaming + "&resourceVersionMatch=NotOlderThan"))
                .header("Authorization", "Bearer " + server.token())
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    // The periodic bookmarks may follow; the first three events are the streaming list.
    List<JsonNode> events =
        r.body()
            .limit(3)
            .map(
                line -> {
                  try {
                    return KubeJson.mapper().readTree(line);
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                })
            .toList();
    assertThat(events)
        .extracting(e -> e.path("type").asText())
        .containsExactly("ADDED", "ADDED", "BOOKMARK");
    JsonNode end = events.get(2).path("object").path("metadata");
    assertThat(end.path("annotations").path("k8s.io/initial-events-end").asText())
        .isEqualTo("true");
    assertThat(end.path("resourceVersion").asLong()).isEqualTo(server.resourceVersion());

    HttpResponse<String> invalid =
        http.send(
            HttpRequest.newBuilder(server.url().resolve(path + streaming))
                .header("Authorization", "Bearer " + server.token())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(invalid.statusCode()).as("without resourceVersionMatch=NotOlderThan").isEqualTo(422);
  }

  @Test
  void applyConflictsWithAnotherManagersDeviceUnlessForced() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      ResourceClaim cl = c.create(ResourceClaim.TYPE, claim("ns", "c", Map.of()));
      c.updateStatus(ResourceClaim.TYPE, cl.withStatus(allocation("gpu-0")));
      c.apply(
          ResourceClaim.TYPE,
          "ns",
          "c",
          "status",
          deviceStatusPatch("ns", "c", "gpu-0"),
          new ApplyOptions("driver-a", false));
      Map<String, Object> changed = deviceStatusPatch("ns", "c", "gpu-0");
      @SuppressWarnings("unchecked")
      Map<String, Object> entry =
          (Map<String, Object>)
              ((List<?>) ((Map<?, ?>) changed.get("status")).get("devices")).get(0);
      entry.put("data", Map.of("owner", "b"));
      assertThatThrownBy(
              () ->
                  c.apply(
                      ResourceClaim.TYPE,
                      "ns",
                      "c",
                      "status",
                      changed,
                      new ApplyOptions("driver-b", false)))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                assertThat(e.isConflict()).isTrue();
                assertThat(e.getMessage()).contains("driver-a");
              });
      ResourceClaim forced =
          c.apply(
              ResourceClaim.TYPE, "ns", "c", "status", changed, new ApplyOptions("driver-b", true));
      assertThat(forced.status().devices().get(0).data())
          .hasValueSatisfying(d -> assertThat(d.path("owner").asText()).isEqualTo("b"));
      JsonNode raw = server.raw(ResourceClaim.TYPE, "ns", "c").orElseThrow();
      assertThat(raw.path("metadata").path("managedFields").toString())
          .contains("driver-a")
          .contains("driver-b")
          .contains("\"subresource\":\"status\"");
    }
  }

  @Test
  void statusForADeviceThatIsNotAllocatedIsInvalid() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      ResourceClaim cl = c.create(ResourceClaim.TYPE, claim("ns", "c", Map.of()));
      c.updateStatus(ResourceClaim.TYPE, cl.withStatus(allocation("gpu-0")));
      assertThatThrownBy(
              () ->
                  c.apply(
                      ResourceClaim.TYPE,
                      "ns",
                      "c",
                      "status",
                      deviceStatusPatch("ns", "c", "gpu-7"),
                      new ApplyOptions("driver-a", true)))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                assertThat(e.status()).isEqualTo(422);
                assertThat(e.getMessage()).contains("must be an allocated device in the claim");
              });
    }
  }

  @Test
  void mergePatchOnTheStatusSubresource() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      c.create(ResourceClaim.TYPE, claim("ns", "c", Map.of("keep", "me")));
      String patch = KubeJson.mapper().writeValueAsString(Map.of("status", allocation("gpu-0")));
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              server.url()
                                  + "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status"))
                      .header("Authorization", "Bearer " + server.token())
                      .header("Content-Type", "application/merge-patch+json")
                      .method("PATCH", HttpRequest.BodyPublishers.ofString(patch))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      ResourceClaim got = c.get(ResourceClaim.TYPE, "ns", "c");
      assertThat(got.status().allocation()).isPresent();
      assertThat(got.metadata().labels()).containsEntry("keep", "me");
      assertThat(server.requests("patch", "resourceclaims/status")).isEqualTo(1);
      assertThat(server.writes("resourceclaims")).isEqualTo(2);
    }
  }

  @Test
  void specChangesBumpGenerationAndNoOpWritesBumpNothing() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      ResourceSlice v1 = c.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
      assertThat(v1.metadata().generation()).isEqualTo(1);
      ResourceSlice same = c.update(ResourceSlice.TYPE, v1);
      assertThat(same.metadata().resourceVersion()).isEqualTo(v1.metadata().resourceVersion());
      ResourceSlice v2 =
          c.update(
              ResourceSlice.TYPE,
              v1.withSpec(v1.spec().withPool(new ResourceSliceSpec.ResourcePool("node-1", 2, 1))));
      assertThat(v2.metadata().generation()).isEqualTo(2);
      // The node name is immutable, as in the API server.
      ResourceSliceSpec moved =
          new ResourceSliceSpec(
              DRIVER,
              v2.spec().pool(),
              Optional.of("node-9"),
              Optional.empty(),
              false,
              false,
              v2.spec().devices(),
              List.of(),
              Optional.empty(),
              List.of(),
              Map.of());
      assertThatThrownBy(() -> c.update(ResourceSlice.TYPE, v2.withSpec(moved)))
          .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.status()).isEqualTo(422));
    }
  }

  @Test
  void stopAndRestartServeTheSameObjectsOnTheSamePort() throws Exception {
    server = FakeApiServer.start();
    int port = server.port();
    try (HttpKubeClient c =
        server.clientBuilder().retries(0, Duration.ofMillis(1), Duration.ofMillis(1)).build()) {
      c.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
      server.stop();
      assertThatThrownBy(() -> c.get(ResourceSlice.TYPE, "", "s"))
          .isInstanceOfSatisfying(
              KubeException.class,
              e -> {
                assertThat(e.status()).isZero();
                assertThat(e.reason()).isEqualTo("ConnectionFailed");
              });
      server.restart();
      assertThat(server.port()).isEqualTo(port);
      assertThat(c.get(ResourceSlice.TYPE, "", "s").metadata().name()).isEqualTo("s");
    }
  }

  @Test
  void connectionRefusedIsRetriedUntilTheServerIsBack() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c =
        server.clientBuilder().retries(50, Duration.ofMillis(20), Duration.ofMillis(100)).build()) {
      c.create(ResourceSlice.TYPE, slice("s", "node-1", DRIVER));
      server.stop();
      Thread restarter =
          new Thread(
              () -> {
                Await.until("a retried attempt", WAIT, () -> c.retriedAttempts() > 0);
                server.restart();
              });
      restarter.start();
      // Even a create: connection refused means nothing was sent.
      c.create(ResourceSlice.TYPE, slice("t", "node-1", DRIVER));
      restarter.join();
      assertThat(server.objects(ResourceSlice.TYPE)).hasSize(2);
      assertThat(c.retriedAttempts()).isPositive();
    }
  }

  @Test
  void aWatchWithASelectorSeesObjectsMoveInAndOut() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      ResourceClaim cl = c.create(ResourceClaim.TYPE, claim("ns", "c", Map.of("app", "a")));
      KubeClientContractTest.Recorder<ResourceClaim> rec = new KubeClientContractTest.Recorder<>();
      try (Watch w = c.watch(ResourceClaim.TYPE, "ns", ListOptions.labels("app=a"), rec)) {
        assertThat(rec.next().type()).isEqualTo(WatchEvent.Type.ADDED); // initial state
        ResourceClaim moved =
            c.update(
                ResourceClaim.TYPE, cl.withMetadata(cl.metadata().withLabels(Map.of("app", "b"))));
        WatchEvent<ResourceClaim> out = rec.next();
        assertThat(out.type()).isEqualTo(WatchEvent.Type.DELETED);
        assertThat(out.resourceVersion()).isEqualTo(moved.metadata().resourceVersion());
        c.update(
            ResourceClaim.TYPE,
            moved.withMetadata(moved.metadata().withLabels(Map.of("app", "a"))));
        assertThat(rec.next().type()).isEqualTo(WatchEvent.Type.ADDED);
        c.create(ResourceClaim.TYPE, claim("other-ns", "x", Map.of("app", "a")));
        c.create(ResourceClaim.TYPE, claim("ns", "y", Map.of("app", "z")));
        c.create(ResourceClaim.TYPE, claim("ns", "z", Map.of("app", "a")));
        WatchEvent<ResourceClaim> z = rec.next();
        assertThat(z.object().metadata().name()).isEqualTo("z");
      }
    }
  }

  @Test
  void malformedSelectorsAreBadRequests() {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      assertThatThrownBy(() -> c.list(ResourceClaim.TYPE, "", ListOptions.labels("a=b,,c")))
          .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.status()).isEqualTo(400));
      assertThatThrownBy(() -> c.list(ResourceSlice.TYPE, "", ListOptions.fields("spec.driver")))
          .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.status()).isEqualTo(400));
    }
  }

  @Test
  void applyOnTheObjectCreatesThenMerges() throws Exception {
    server = FakeApiServer.start();
    try (HttpKubeClient c = server.newClient()) {
      Map<String, Object> first =
          Map.of(
              "apiVersion",
              "resource.k8s.io/v1",
              "kind",
              "DeviceClass",
              "metadata",
              Map.of("name", "gpu.example.com", "labels", Map.of("a", "1")),
              "spec",
              Map.of(
                  "selectors",
                  List.of(Map.of("cel", Map.of("expression", "device.driver == 'x'")))));
      io.dra4j.kube.DeviceClass created =
          c.apply(
              io.dra4j.kube.DeviceClass.TYPE,
              "",
              "gpu.example.com",
              "",
              first,
              new ApplyOptions("installer", false));
      assertThat(created.metadata().uid()).isNotEmpty();
      Map<String, Object> second =
          Map.of(
              "apiVersion", "resource.k8s.io/v1",
              "kind", "DeviceClass",
              "metadata", Map.of("name", "gpu.example.com", "labels", Map.of("b", "2")));
      io.dra4j.kube.DeviceClass merged =
          c.apply(
              io.dra4j.kube.DeviceClass.TYPE,
              "",
              "gpu.example.com",
              "",
              second,
              new ApplyOptions("labeller", false));
      assertThat(merged.metadata().labels()).containsEntry("a", "1").containsEntry("b", "2");
      assertThat(merged.spec().selectors()).hasSize(1);
      assertThat(merged.metadata().generation()).isEqualTo(1);
      // An apply without apiVersion/kind is refused, as by the API server.
      assertThatThrownBy(
              () ->
                  c.apply(
                      io.dra4j.kube.DeviceClass.TYPE,
                      "",
                      "gpu.example.com",
                      "",
                      Map.of("metadata", Map.of("name", "gpu.example.com")),
                      new ApplyOptions("x", false)))
          .isInstanceOfSatisfying(KubeException.class, e -> assertThat(e.status()).isEqualTo(400));
    }
  }
}
