package com.example.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dra4j.runtime.DraDriver;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The staged jars and their dependencies make a working driver, tested without a cluster. */
class AcmeProviderTest {
  @TempDir Path dir;

  @Test
  void registersAndPublishesFromTheStagedArtifacts() throws Exception {
    try (FakeApiServer api = FakeApiServer.start();
        HttpKubeClient client = api.newClient();
        KubeletSimulator kubelet =
            KubeletSimulator.start(Files.createDirectories(dir.resolve("registry")));
        DraDriver driver =
            DraDriver.builder()
                .driverName("accel.acme.example")
                .nodeName("node-1")
                .provider(new AcmeProvider())
                .kubeClient(client)
                .registrarDirectory(kubelet.registryDirectory())
                .pluginDirectory(dir.resolve("plugin"))
                .cdiDirectory(Files.createDirectories(dir.resolve("cdi")))
                .build()) {
      api.putNode("node-1");
      driver.start();
      kubelet.awaitPlugin("accel.acme.example", Duration.ofSeconds(30));
      assertTrue(driver.awaitPublished(Duration.ofSeconds(30)));
      assertEquals(2, api.objects(ResourceSlice.TYPE).get(0).spec().devices().size());
    }
  }
}
