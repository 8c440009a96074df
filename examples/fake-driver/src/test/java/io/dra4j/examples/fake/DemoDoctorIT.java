package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeJson;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The acceptance as a user runs it: {@code demo --keep}, then {@code doctor --kubeconfig
 * <printed path>} with the same jar reports the demo's node as served by DRA, with no conflict.
 */
class DemoDoctorIT {
  static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

  @Test
  void theDoctorFindsTheDemosNodeServedByDraWithNoConflict() throws Exception {
    Process demo =
        new ProcessBuilder(List.of(JAVA, "-jar", System.getProperty("dra4j.jar"), "demo", "--keep"))
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> kubeconfig =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  for (String line; (line = lines.readLine()) != null; ) {
                    if (line.strip().startsWith("kubeconfig: ")) {
                      return line.strip().substring("kubeconfig: ".length());
                    }
                  }
                  return "";
                } catch (java.io.IOException e) {
                  return "";
                }
              });
      String path = kubeconfig.get(120, TimeUnit.SECONDS);
      assertThat(path).as("the demo printed its kubeconfig").isNotEmpty();

      Process doctor =
          new ProcessBuilder(
                  List.of(
                      JAVA,
                      "-jar",
                      System.getProperty("dra4j.jar"),
                      "doctor",
                      "--kubeconfig",
                      path,
                      "--output",
                      "json"))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String out = new String(doctor.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(doctor.waitFor(60, TimeUnit.SECONDS)).isTrue();
      JsonNode report = KubeJson.mapper().readTree(out);
      assertThat(doctor.exitValue()).as(out).isZero();
      assertThat(report.path("verdict").asText()).isEqualTo("ok");
      JsonNode supply = null;
      for (JsonNode s : report.path("supply")) {
        if (s.path("node").asText().equals(FakeDemo.NODE)
            && s.path("resource").asText().equals("example.com/gpu")) {
          supply = s;
        }
      }
      assertThat(supply).as(out).isNotNull();
      assertThat(supply.path("servedBy").asText()).isEqualTo("dra");
      assertThat(supply.path("drivers").get(0).asText()).isEqualTo(FakeDemo.DRIVER);
      assertThat(supply.path("draDevices").asInt()).isEqualTo(4);
      assertThat(report.path("findings"))
          .noneSatisfy(f -> assertThat(f.path("check").asText()).isEqualTo("supply.conflict"));
      assertThat(report.path("claims").path("extendedResourceClaims")).hasSize(1);
    } finally {
      demo.destroy();
      demo.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
