package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeClients;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.Node;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar's {@code run} command as a real process, against the standalone fake API server
 * (also a real process), registering with the kubelet simulator: what a DaemonSet pod does.
 */
class RunCommandIT {
  private final JarProcesses processes = new JarProcesses();

  @TempDir Path dir;

  @AfterEach
  void stop() {
    processes.killAll();
  }

  @Test
  void registersPublishesAndStopsCleanlyOnSigterm() throws Exception {
    Path apiJar = Path.of("../../dra-testkit/target/dra-testkit-apiserver.jar");
    assertThat(apiJar).exists();
    Path kubeconfig = dir.resolve("kubeconfig");
    processes.start(
        dir.resolve("api.log"),
        "-jar",
        apiJar.toString(),
        "--port",
        "0",
        "--kubeconfig-out",
        kubeconfig.toString());
    await(() -> Files.exists(kubeconfig) && Files.size(kubeconfig) > 0, "kubeconfig written");

    Path registry = Files.createDirectories(dir.resolve("registry"));
    Path plugins = dir.resolve("plugins");
    int healthPort;
    try (ServerSocket s = new ServerSocket(0)) {
      healthPort = s.getLocalPort();
    }
    Process driver =
        processes.start(
            dir.resolve("driver.log"),
            "-jar",
            System.getProperty("dra4j.jar"),
            "run",
            "--node-name",
            "node-1",
            "--kubeconfig",
            kubeconfig.toString(),
            "--registrar-dir",
            registry.toString(),
            "--plugin-dir",
            plugins.resolve("gpu.example.com").toString(),
            "--cdi-dir",
            Files.createDirectories(dir.resolve("cdi")).toString(),
            "--health-port",
            Integer.toString(healthPort),
            "--devices",
            "3",
            // gpu-2 turns unhealthy and back every 300 ms: health shows on the status endpoint.
            "--flap-device",
            "gpu-2",
            "--flap-period",
            "300ms");
    // No Node yet: the jar has no SLF4J binding but the launcher's, which logs one line per event,
    // and the missing Node is a warning that says what to do.
    await(
        () ->
            log("driver.log")
                .lines()
                .anyMatch(
                    l ->
                        l.matches("^\\d{4}-\\d\\d-\\d\\dT\\S+Z WARN  \\S+: slice publisher: .*")
                            && l.contains("Node \"node-1\" does not exist")
                            && l.contains("check --node-name")),
        "the missing Node's warning");
    assertThat(log("driver.log")).doesNotContain("SLF4J");
    // The first scrape, before the driver registered: every series of the README is there.
    MetricsScrape.checkFirstScrape(
        JarProcesses.get(HttpClient.newHttpClient(), healthPort, "/metrics").body(), dir);
    try (HttpKubeClient admin = KubeClients.fromKubeconfig(kubeconfig)) {
      admin.create(
          Node.TYPE,
          KubeJson.mapper()
              .convertValue(
                  Map.of("apiVersion", "v1", "kind", "Node", "metadata", Map.of("name", "node-1")),
                  Node.class));
    }
    try (KubeletSimulator kubelet = KubeletSimulator.start(registry);
        HttpKubeClient client = KubeClients.fromKubeconfig(kubeconfig)) {
      PluginInstance plugin = kubelet.awaitPlugin("gpu.example.com", Duration.ofSeconds(60));
      assertThat(plugin.supportedVersions()).startsWith("v1.DRAPlugin", "v1beta1.DRAPlugin");
      await(() -> publishedDevices(client) == 3, "3 devices published");

      // The status endpoint the DaemonSet's probes use.
      HttpClient http = HttpClient.newHttpClient();
      await(() -> JarProcesses.get(http, healthPort, "/readyz").statusCode() == 200, "ready");
      assertThat(JarProcesses.get(http, healthPort, "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> status = JarProcesses.get(http, healthPort, "/status");
      assertThat(status.headers().firstValue("Content-Type")).contains("application/json");
      assertThat(status.body())
          .contains("\"driver\" : \"gpu.example.com\"")
          .contains("\"registered\" : true");
      await(
          () -> {
            JsonNode health =
                KubeJson.mapper()
                    .readTree(JarProcesses.get(http, healthPort, "/status").body())
                    .path("health");
            for (JsonNode d : health.path("devices")) {
              if (d.path("device").asText().equals("gpu-2")
                  && d.path("status").asText().equals("UNHEALTHY")
                  && d.path("reason").asText().equals("FakeFlap")) {
                return true;
              }
            }
            return false;
          },
          "gpu-2 unhealthy in /status");
      assertThat(JarProcesses.get(http, healthPort, "/metrics").body())
          .contains("dra4j_driver_info{driver=\"gpu.example.com\",node=\"node-1\"} 1")
          .contains("dra4j_ready 1")
          .contains("dra4j_published_devices 3");

      driver.destroy(); // SIGTERM, as the kubelet stops a pod
      assertThat(driver.waitFor(30, TimeUnit.SECONDS)).isTrue();
      // 143 = 128 + SIGTERM: the JVM's status after its shutdown hooks ran (our graceful close).
      assertThat(driver.exitValue()).as(log("driver.log")).isEqualTo(143);
      assertThat(plugin.registrationSocket()).doesNotExist();
      assertThat(plugin.endpoint()).doesNotExist();
      // The slices stay: the kubelet cleans up a node's slices itself, and a rolling update's new
      // pod takes them over without a gap in what the scheduler sees.
      assertThat(publishedDevices(client)).isEqualTo(3);
      assertThat(log("driver.log")).contains("driver gpu.example.com stopping");
    }
  }

  private void await(Await.Check check, String what) {
    processes.await(check, what);
  }

  private String log(String name) {
    return JarProcesses.read(dir.resolve(name));
  }

  private static int publishedDevices(HttpKubeClient client) throws Exception {
    return client
        .list(ResourceSlice.TYPE, "", ListOptions.fields("spec.driver=gpu.example.com"))
        .items()
        .stream()
        .mapToInt(s -> s.spec().devices().size())
        .sum();
  }
}
