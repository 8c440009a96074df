package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the client reads what a server sends: a watch stream, line by line (the events an informer
 * sees, whatever order the fields of an event come in, and how a stream ends), and a list.
 */
class HttpKubeClientDecodeTest {
  @TempDir Path dir;
  private HttpServer server;
  private volatile String stream = "";

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    server.createContext(
        "/",
        ex -> {
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, 0); // chunked, as the API server streams a watch
          try (OutputStream out = ex.getResponseBody()) {
            for (String line : stream.split("\n")) {
              out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
              out.flush();
            }
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static String slice(String rv, String devicesJson) {
    return """
        {"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",\
        "metadata":{"name":"s1","resourceVersion":"%s"},\
        "spec":{"driver":"d.example.com","nodeName":"n1",\
        "pool":{"name":"n1","generation":1,"resourceSliceCount":1},"devices":%s}}"""
        .formatted(rv, devicesJson);
  }

  @Test
  void eventsAreDecodedWhateverTheOrderOfTheirFields() throws Exception {
    stream =
        String.join(
            "\n",
            "{\"type\":\"ADDED\",\"object\":" + slice("5", "[{\"name\":\"gpu-0\"}]") + "}",
            // another writer may put the object first
            "{\"object\":" + slice("6", "[{\"name\":\"gpu-1\"}]") + ",\"type\":\"MODIFIED\"}",
            "",
            "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ResourceSlice\","
                + "\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"7\"}}}",
            "{\"type\":\"DELETED\",\"extra\":{\"ignored\":[1,2]},\"object\":"
                + slice("8", "[]")
                + "}");
    Recorder<ResourceSlice> r = watch(ResourceSlice.TYPE);

    assertThat(r.closed.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(r.events)
        .extracting(WatchEvent::type, WatchEvent::resourceVersion)
        .containsExactly(
            tuple(WatchEvent.Type.ADDED, "5"),
            tuple(WatchEvent.Type.MODIFIED, "6"),
            tuple(WatchEvent.Type.BOOKMARK, "7"),
            tuple(WatchEvent.Type.DELETED, "8"));
    assertThat(r.events.get(0).object().spec().devices().get(0).name()).isEqualTo("gpu-0");
    assertThat(r.events.get(1).object().spec().devices().get(0).name()).isEqualTo("gpu-1");
    assertThat(r.events.get(2).object()).isNull(); // a bookmark's bare metadata is no slice
    assertThat(r.events.get(3).object().metadata().resourceVersion()).isEqualTo("8");
  }

  @Test
  void aTreeTypeGetsTheObjectAsSent() throws Exception {
    stream = "{\"type\":\"ADDED\",\"object\":" + slice("5", "[{\"name\":\"gpu-0\"}]") + "}";
    ResourceType<JsonNode> raw =
        new ResourceType<>(
            "resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false, JsonNode.class);
    Recorder<JsonNode> r = watch(raw);

    assertThat(r.closed.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(r.events).hasSize(1);
    assertThat(r.events.get(0).resourceVersion()).isEqualTo("5");
    assertThat(r.events.get(0).object().at("/spec/devices/0/name").asText()).isEqualTo("gpu-0");
  }

  @Test
  void anErrorEventEndsTheStreamWithItsStatus() throws Exception {
    stream =
        "{\"type\":\"ADDED\",\"object\":"
            + slice("5", "[]")
            + "}\n{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
            + "\"status\":\"Failure\",\"code\":410,\"reason\":\"Expired\","
            + "\"message\":\"too old resource version: 5 (9)\"}}\n"
            + "{\"type\":\"ADDED\",\"object\":"
            + slice("10", "[]")
            + "}";
    Recorder<ResourceSlice> r = watch(ResourceSlice.TYPE);

    Optional<KubeException> end = r.closed.get(10, TimeUnit.SECONDS);
    assertThat(end).isPresent();
    assertThat(end.get().isGone()).isTrue();
    assertThat(end.get().getMessage()).contains("too old resource version");
    assertThat(r.events).hasSize(1); // nothing after the error is delivered
  }

  @Test
  void anObjectThatIsNotASliceEndsTheStreamNamingTheKind() throws Exception {
    stream =
        "{\"type\":\"ADDED\",\"object\":"
            + slice("5", "\"not a list\"")
            + "}\n{\"type\":\"ADDED\",\"object\":"
            + slice("6", "[]")
            + "}";
    Recorder<ResourceSlice> r = watch(ResourceSlice.TYPE);

    Optional<KubeException> end = r.closed.get(10, TimeUnit.SECONDS);
    assertThat(end).isPresent();
    assertThat(end.get().reason()).isEqualTo("StreamError");
    assertThat(end.get().getMessage()).contains("cannot decode a ResourceSlice watch event");
    assertThat(r.events).isEmpty();
  }

  @Test
  void aLineThatIsNotAnObjectEndsTheStream() throws Exception {
    stream = "[\"ADDED\"]";
    Recorder<ResourceSlice> r = watch(ResourceSlice.TYPE);

    Optional<KubeException> end = r.closed.get(10, TimeUnit.SECONDS);
    assertThat(end).isPresent();
    assertThat(end.get().getMessage()).contains("a watch event is not a JSON object");
  }

  @Test
  void aListIsDecodedWhateverTheOrderOfItsFields() throws Exception {
    stream =
        "{\"kind\":\"ResourceSliceList\",\"apiVersion\":\"resource.k8s.io/v1\",\"items\":["
            + slice("5", "[{\"name\":\"gpu-0\"}]")
            + ","
            + slice("6", "[]")
            + "],\"extra\":{\"ignored\":[1,{\"x\":2}]},"
            + "\"metadata\":{\"resourceVersion\":\"9\",\"continue\":\"\"}}";
    try (HttpKubeClient client = client()) {
      KubeList<ResourceSlice> list = client.list(ResourceSlice.TYPE, "", ListOptions.ALL);
      assertThat(list.resourceVersion()).isEqualTo("9");
      assertThat(list.items())
          .extracting(s -> s.metadata().resourceVersion())
          .containsExactly("5", "6");
      assertThat(list.items().get(0).spec().devices().get(0).name()).isEqualTo("gpu-0");
    }
  }

  @Test
  void anEmptyListAndATreeTypedList() throws Exception {
    ResourceType<JsonNode> raw =
        new ResourceType<>(
            "resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false, JsonNode.class);
    try (HttpKubeClient client = client()) {
      stream = "{\"metadata\":{\"resourceVersion\":\"3\"},\"items\":null}";
      KubeList<ResourceSlice> empty = client.list(ResourceSlice.TYPE, "", ListOptions.ALL);
      assertThat(empty.items()).isEmpty();
      assertThat(empty.resourceVersion()).isEqualTo("3");

      stream = "{\"items\":[" + slice("5", "[{\"name\":\"gpu-0\"}]") + "]}";
      KubeList<JsonNode> trees = client.list(raw, "", ListOptions.ALL);
      assertThat(trees.resourceVersion()).isEmpty();
      assertThat(trees.items().get(0).at("/spec/devices/0/name").asText()).isEqualTo("gpu-0");
    }
  }

  @Test
  void aListThatCannotBeDecodedIsAnInvalidResponse() throws Exception {
    try (HttpKubeClient client = client()) {
      for (String body : List.of("[]", "{\"items\":[" + slice("5", "\"not a list\"") + "]}")) {
        stream = body;
        assertThatThrownBy(() -> client.list(ResourceSlice.TYPE, "", ListOptions.ALL))
            .isInstanceOfSatisfying(
                KubeException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo("InvalidResponse");
                  assertThat(e.getMessage())
                      .contains("LIST /apis/resource.k8s.io/v1/resourceslices")
                      .contains("cannot decode the response");
                });
      }
    }
  }

  private HttpKubeClient client() throws Exception {
    return KubeClients.fromKubeconfig(
        PlainKubeconfig.write(dir.resolve("kubeconfig"), server.getAddress().getPort(), "t"));
  }

  private <T> Recorder<T> watch(ResourceType<T> type) throws Exception {
    Recorder<T> r = new Recorder<>();
    HttpKubeClient client = client();
    client.watch(type, "", ListOptions.ALL, r);
    r.closed.whenComplete((end, e) -> client.close());
    return r;
  }

  private static final class Recorder<T> implements WatchHandler<T> {
    final List<WatchEvent<T>> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<Optional<KubeException>> closed = new CompletableFuture<>();

    @Override
    public void onEvent(WatchEvent<T> event) {
      events.add(event);
    }

    @Override
    public void onClose(Optional<KubeException> error) {
      closed.complete(error);
    }
  }
}
