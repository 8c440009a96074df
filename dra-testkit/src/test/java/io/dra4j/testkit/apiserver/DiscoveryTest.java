package io.dra4j.testkit.apiserver;

import static io.dra4j.testkit.apiserver.KubeClientContractTest.DRIVER;
import static io.dra4j.testkit.apiserver.KubeClientContractTest.slice;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceSlice;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Discovery and server-side printing, as kubectl reads them (the real kubectl is in {@link
 * KubectlTest}): the documents' shapes follow the real API server's.
 */
class DiscoveryTest {
  private FakeApiServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() {
    server = FakeApiServer.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private JsonNode get(String path, String accept) throws Exception {
    HttpResponse<byte[]> r =
        http.send(
            HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Authorization", "Bearer " + server.token())
                .header("Accept", accept)
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).contains("application/json");
    return KubeJson.mapper().readTree(r.body());
  }

  private JsonNode get(String path) throws Exception {
    return get(path, "application/json");
  }

  @Test
  void coreAndGroupDiscovery() throws Exception {
    JsonNode api = get("/api");
    assertThat(api.path("kind").asText()).isEqualTo("APIVersions");
    assertThat(api.path("versions").toString()).isEqualTo("[\"v1\"]");

    JsonNode apis = get("/apis");
    assertThat(apis.path("kind").asText()).isEqualTo("APIGroupList");
    assertThat(apis.path("groups")).hasSize(1);
    JsonNode group = apis.path("groups").get(0);
    assertThat(group.path("name").asText()).isEqualTo("resource.k8s.io");
    assertThat(group.path("preferredVersion").path("groupVersion").asText())
        .isEqualTo("resource.k8s.io/v1");
    assertThat(get("/apis/resource.k8s.io")).isEqualTo(group);
  }

  @Test
  void eachGroupVersionListsItsResources() throws Exception {
    JsonNode core = get("/api/v1");
    assertThat(core.path("groupVersion").asText()).isEqualTo("v1");
    assertThat(names(core)).containsExactly("nodes", "nodes/status", "pods", "pods/status");
    JsonNode nodes = core.path("resources").get(0);
    assertThat(nodes.path("kind").asText()).isEqualTo("Node");
    assertThat(nodes.path("namespaced").asBoolean()).isFalse();
    assertThat(nodes.path("singularName").asText()).isEqualTo("node");
    assertThat(nodes.path("shortNames").toString()).isEqualTo("[\"no\"]");
    assertThat(nodes.path("verbs").toString()).contains("\"list\"", "\"watch\"", "\"patch\"");

    JsonNode resource = get("/apis/resource.k8s.io/v1");
    assertThat(resource.path("groupVersion").asText()).isEqualTo("resource.k8s.io/v1");
    assertThat(names(resource))
        .containsExactly(
            "resourceslices",
            "resourceclaims",
            "resourceclaims/status",
            "resourceclaimtemplates",
            "deviceclasses",
            "devicetaintrules",
            "devicetaintrules/status");
    JsonNode claims = resource.path("resources").get(1);
    assertThat(claims.path("namespaced").asBoolean()).isTrue();
    assertThat(claims.path("kind").asText()).isEqualTo("ResourceClaim");
  }

  @Test
  void unknownGroupVersionsAreNotFound() throws Exception {
    for (String path : List.of("/api/v2", "/apis/apps", "/apis/resource.k8s.io/v1beta1")) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(server.url() + path))
                  .header("Authorization", "Bearer " + server.token())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(path).isEqualTo(404);
    }
  }

  @Test
  void kubectlsTableShowsTheRealServersColumns() throws Exception {
    server.putNode("node-1");
    server.put(ResourceSlice.TYPE, slice("node-1-gpu", "node-1", DRIVER));
    String accept =
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
            + "g=meta.k8s.io,application/json";

    JsonNode table = get("/apis/resource.k8s.io/v1/resourceslices", accept);
    assertThat(table.path("kind").asText()).isEqualTo("Table");
    assertThat(table.path("apiVersion").asText()).isEqualTo("meta.k8s.io/v1");
    List<String> columns = new ArrayList<>();
    table.path("columnDefinitions").forEach(c -> columns.add(c.path("name").asText()));
    assertThat(columns).containsExactly("Name", "Node", "Driver", "Pool", "Age");
    JsonNode row = table.path("rows").get(0);
    assertThat(row.path("cells").get(0).asText()).isEqualTo("node-1-gpu");
    assertThat(row.path("cells").get(1).asText()).isEqualTo("node-1");
    assertThat(row.path("cells").get(2).asText()).isEqualTo(DRIVER);
    assertThat(row.path("cells").get(4).asText()).matches("\\d+s");
    assertThat(row.path("object").path("kind").asText()).isEqualTo("PartialObjectMetadata");
    assertThat(row.path("object").path("metadata").path("name").asText()).isEqualTo("node-1-gpu");

    JsonNode one = get("/api/v1/nodes/node-1?includeObject=Object", accept);
    assertThat(one.path("rows")).hasSize(1);
    assertThat(one.path("rows").get(0).path("object").path("kind").asText()).isEqualTo("Node");

    // Clients that do not ask for a Table get the list, as before.
    assertThat(get("/apis/resource.k8s.io/v1/resourceslices").path("kind").asText())
        .isEqualTo("ResourceSliceList");
  }

  @Test
  void ageReadsLikeKubectls() {
    assertThat(Tables.humanDuration(Duration.ofSeconds(45))).isEqualTo("45s");
    assertThat(Tables.humanDuration(Duration.ofSeconds(119))).isEqualTo("119s");
    assertThat(Tables.humanDuration(Duration.ofSeconds(200))).isEqualTo("3m20s");
    assertThat(Tables.humanDuration(Duration.ofMinutes(42))).isEqualTo("42m");
    assertThat(Tables.humanDuration(Duration.ofMinutes(125))).isEqualTo("125m");
    assertThat(Tables.humanDuration(Duration.ofMinutes(245))).isEqualTo("4h5m");
    assertThat(Tables.humanDuration(Duration.ofHours(30))).isEqualTo("30h");
    assertThat(Tables.humanDuration(Duration.ofHours(76))).isEqualTo("3d4h");
    assertThat(Tables.humanDuration(Duration.ofDays(400))).isEqualTo("400d");
    assertThat(Tables.humanDuration(Duration.ofDays(365 * 3 + 10))).isEqualTo("3y10d");
    assertThat(Tables.humanDuration(Duration.ofSeconds(-5))).isEqualTo("<invalid>");
  }

  private static List<String> names(JsonNode resourceList) {
    List<String> names = new ArrayList<>();
    resourceList.path("resources").forEach(r -> names.add(r.path("name").asText()));
    return names;
  }
}
