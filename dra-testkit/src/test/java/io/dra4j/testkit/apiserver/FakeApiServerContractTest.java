package io.dra4j.testkit.apiserver;

import io.dra4j.kube.KubeClient;

/** The client contract against the test kit's fake API server: every feature is supported. */
class FakeApiServerContractTest extends KubeClientContractTest {
  private FakeApiServer server;

  @Override
  protected KubeClient newClient() {
    server = FakeApiServer.start();
    return server.newClient();
  }

  @Override
  protected boolean supports(Feature feature) {
    return true;
  }

  @Override
  protected void stopServer() {
    server.close();
  }
}
