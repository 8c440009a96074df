package io.dra4j.testkit.apiserver;

import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeConfig;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.URI;
import java.util.HashMap;

/**
 * The client contract against fabric8's {@code KubernetesMockServer} in CRUD mode: an API server
 * implementation nobody in this project wrote, serving any path generically.
 *
 * <p>Where fabric8's CRUD mode and the real API server (and the fake server) disagree, as observed
 * with kubernetes-server-mock 8.0.0; the contract tests that need these are skipped here and run
 * against {@link FakeApiServerContractTest}:
 *
 * <ul>
 *   <li>Watches: WebSocket only. A plain HTTP {@code ?watch=true} stream (client-go's default and
 *       this client's) is refused with 400 ("Connection header must be Upgrade"), so watch events,
 *       bookmarks, 410 Expired and resuming from a resourceVersion cannot be checked against it.
 *   <li>Server-side apply: {@code application/apply-patch+yaml} is refused with 415, so neither the
 *       list-map merge of {@code status.devices} by key nor per-manager ownership exists.
 *   <li>Field selectors on spec fields ({@code spec.nodeName}, {@code spec.driver}) do not filter
 *       like the API server does.
 *   <li>Delete preconditions (uid, resourceVersion) are ignored: the delete succeeds.
 *   <li>Set-based label selectors ({@code in}, {@code notin}) do not filter correctly.
 *   <li>A create of an existing name answers 409 with reason {@code Invalid}, not {@code
 *       AlreadyExists} (our {@code KubeException.isAlreadyExists()} is therefore false there).
 *   <li>Fields the schema does not know are stored and returned; the real API server drops them.
 * </ul>
 *
 * <p>Where they agree: create / get / list / delete, generateName, 409 Conflict on a stale
 * resourceVersion, generation bump on spec changes, the status subresource, equality-based label
 * selectors. Re-check the list after a fabric8 upgrade with {@code -DargLine=
 * -Ddra4j.probeFabric8=true}: every feature is then claimed and the failures show what is still
 * missing.
 */
class Fabric8MockContractTest extends KubeClientContractTest {
  private KubernetesMockServer server;

  @Override
  protected KubeClient newClient() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init();
    URI url = URI.create(server.url("/"));
    KubeConfig config =
        KubeConfig.builder(URI.create("http://" + url.getHost() + ":" + url.getPort()))
            .token("unused-by-the-mock")
            .build();
    return HttpKubeClient.builder(config).rateLimit(1000, 1000).build();
  }

  @Override
  protected boolean supports(Feature feature) {
    if (Boolean.getBoolean("dra4j.probeFabric8")) {
      return true;
    }
    switch (feature) {
      case STALE_UPDATE_CONFLICT:
      case GENERATION_ON_SPEC_CHANGE:
        return true;
      default:
        return false;
    }
  }

  @Override
  protected void stopServer() {
    server.destroy();
  }
}
