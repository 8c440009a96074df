package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.KubeJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code fake-dra-driver.jar deviceclass}: what an admin pipes into kubectl apply. */
class DeviceClassCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    return FakeDriverMain.run(
        List.of(args),
        env,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void printsADeviceClassThatParsesAsTheApiObject() throws Exception {
    assertThat(
            run(
                Map.of(),
                "deviceclass",
                "--extended-resource-name",
                "example.com/gpu",
                "--class-name=gpu.example.com"))
        .isZero();
    DeviceClass c =
        KubeJson.yaml().readValue(out.toString(StandardCharsets.UTF_8), DeviceClass.class);
    assertThat(c.metadata().name()).isEqualTo("gpu.example.com");
    assertThat(c.spec().extendedResourceName()).contains("example.com/gpu");
    assertThat(c.spec().selectors())
        .singleElement()
        .satisfies(
            s -> assertThat(s.cel().orElseThrow().expression()).contains("'gpu.example.com'"));
  }

  @Test
  void theDriverNameComesFromTheFlagOrTheEnvironment() throws Exception {
    assertThat(
            run(
                Map.of("DRIVER_NAME", "nic.example.com"),
                "deviceclass",
                "--extended-resource-name",
                "example.com/nic"))
        .isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("'nic.example.com'");
  }

  @Test
  void withoutAnExtendedResourceNameTheClassServesClaimsAndTheImplicitName() throws Exception {
    assertThat(run(Map.of(), "deviceclass", "--match", "type=gpu")).isZero();
    DeviceClass c =
        KubeJson.yaml().readValue(out.toString(StandardCharsets.UTF_8), DeviceClass.class);
    assertThat(c.spec().extendedResourceName()).isEmpty();
    assertThat(c.spec().selectors()).hasSize(2);
  }

  @Test
  void badInputIsAUsageErrorNamingTheRule() {
    assertThat(run(Map.of(), "deviceclass", "--extended-resource-name", "kubernetes.io/gpu"))
        .isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("kubernetes.io");
    assertThat(out.size()).isZero();
  }
}
