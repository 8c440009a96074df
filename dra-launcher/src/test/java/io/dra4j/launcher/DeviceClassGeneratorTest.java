package io.dra4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.cel.CelSelectors;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.KubeJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The launcher's {@code deviceclass} command and the YAML it prints. */
class DeviceClassGeneratorTest {
  static final String DRIVER = "gpu.example.com";

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> defaults, Map<String, String> env, String... args) {
    return DeviceClassGenerator.run(
        List.of(args),
        defaults,
        env,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private DeviceClass printed() throws Exception {
    return KubeJson.yaml().readValue(stdout(), DeviceClass.class);
  }

  private static List<String> expressions(DeviceClass c) {
    return c.spec().selectors().stream()
        .map(DeviceSelector::cel)
        .map(s -> s.orElseThrow().expression())
        .toList();
  }

  /** Whether every selector of the class accepts the device, as the scheduler evaluates them. */
  private static boolean selects(DeviceClass c, Device d) {
    return expressions(c).stream()
        .allMatch(e -> CelSelectors.shared().compile(e).matches(DRIVER, d));
  }

  @Test
  void defaultsComeFromTheLauncherAndTheEnvironmentFlagsWin() throws Exception {
    assertThat(
            run(
                Map.of("driver-name", DRIVER),
                Map.of(),
                "--extended-resource-name",
                "example.com/gpu"))
        .isZero();
    DeviceClass c = printed();
    assertThat(c.metadata().name()).isEqualTo(DRIVER);
    assertThat(c.spec().extendedResourceName()).contains("example.com/gpu");
    assertThat(expressions(c)).containsExactly("device.driver == 'gpu.example.com'");

    out.reset();
    assertThat(
            run(
                Map.of("driver-name", DRIVER, "extended-resource-name", DRIVER + "/device"),
                Map.of("DRIVER_NAME", "nic.example.com"),
                "--class-name=nics"))
        .isZero();
    c = printed();
    assertThat(c.metadata().name()).isEqualTo("nics");
    assertThat(c.spec().extendedResourceName()).contains(DRIVER + "/device");
    assertThat(expressions(c)).containsExactly("device.driver == 'nic.example.com'");

    out.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--driver-name", "fpga.example.com"))
        .isZero();
    c = printed();
    assertThat(c.spec().extendedResourceName()).isEmpty();
    assertThat(c.metadata().name()).isEqualTo("fpga.example.com");

    // A blank variable counts as unset, as for every flag of every command.
    out.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of("DRIVER_NAME", " "))).isZero();
    assertThat(printed().metadata().name()).isEqualTo(DRIVER);
  }

  @Test
  void matchesBecomeSelectorsOnTheDriversOwnAttributesTypedByTheirValue() throws Exception {
    assertThat(
            run(
                Map.of("driver-name", DRIVER),
                Map.of(),
                "--match",
                "type=gpu",
                "--match=index=2",
                "--match",
                "shared=false",
                "--match",
                "model='1'",
                "--match",
                "resource.kubernetes.io/numaNode=0",
                "--selector",
                "device.attributes['gpu.example.com'].index < 3"))
        .isZero();
    DeviceClass c = printed();
    assertThat(expressions(c))
        .containsExactly(
            "device.driver == 'gpu.example.com'",
            "device.attributes['gpu.example.com'].type == 'gpu'",
            "device.attributes['gpu.example.com'].index == 2",
            "device.attributes['gpu.example.com'].shared == false",
            "device.attributes['gpu.example.com'].model == '1'",
            "device.attributes['resource.kubernetes.io'].numaNode == 0",
            "device.attributes['gpu.example.com'].index < 3");
    Device.Builder b =
        Device.builder("gpu-2")
            .attribute("type", "gpu")
            .attribute("index", 2)
            .attribute("shared", false)
            .attribute("model", "1")
            .attribute("resource.kubernetes.io/numaNode", 0);
    assertThat(selects(c, b.build())).isTrue();
    assertThat(selects(c, b.attribute("index", 3).build())).isFalse();
    assertThat(
            selects(
                c, b.attribute("index", 2).attribute("resource.kubernetes.io/numaNode", 1).build()))
        .isFalse();
  }

  @Test
  void aQuoteInAStringValueCannotEndTheLiteral() throws Exception {
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--match", "model=it's \\ ok"))
        .isZero();
    DeviceClass c = printed();
    Device d = Device.builder("gpu-0").attribute("model", DeviceAttribute.of("it's \\ ok")).build();
    assertThat(selects(c, d)).isTrue();
  }

  @Test
  void aLongClassNameWarnsThatItsImplicitNameCannotBeAskedFor() throws Exception {
    String longName = "a".repeat(64) + ".example.com";
    assertThat(
            run(
                Map.of("driver-name", DRIVER),
                Map.of(),
                "--class-name",
                longName,
                "--extended-resource-name",
                "example.com/gpu"))
        .isZero();
    assertThat(printed().metadata().name()).isEqualTo(longName);
    assertThat(stderr())
        .contains("warning: DeviceClass " + longName)
        .contains("deviceclass.resource.kubernetes.io/" + longName)
        .contains("63");

    // Without an explicit name, no extended resource could reach the devices at all.
    out.reset();
    err.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--class-name", longName)).isEqualTo(2);
    assertThat(stdout()).isEmpty();
    assertThat(stderr())
        .contains("error: DeviceClass " + longName)
        .contains("--extended-resource-name");

    out.reset();
    err.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--class-name", "a".repeat(63)))
        .isZero();
    assertThat(stderr()).isEmpty();
  }

  @Test
  void usageErrorsNameTheFlag() {
    assertThat(run(Map.of(), Map.of())).isEqualTo(2);
    assertThat(stderr()).contains("--driver-name (or DRIVER_NAME) is required");
    err.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--bogus", "x")).isEqualTo(2);
    assertThat(stderr()).contains("Unknown options: '--bogus'").contains("Usage: deviceclass");
    err.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--match")).isEqualTo(2);
    assertThat(stderr()).contains("Missing required parameter for option '--match'");
    err.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--match", "type")).isEqualTo(2);
    assertThat(stderr()).contains("--match \"type\" must be ATTRIBUTE=VALUE");
    err.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--match", "gpu-type=x")).isEqualTo(2);
    assertThat(stderr()).contains("--match \"gpu-type=x\": attribute").contains("C identifier");
    assertThat(stdout()).isEmpty();
    err.reset();
    assertThat(run(Map.of("driver-name", DRIVER), Map.of(), "--help")).isZero();
    assertThat(stdout()).contains("--match=ATTRIBUTE=VALUE");
  }

  @Test
  void yamlRejectsBadInputNamingFieldAndRule() {
    assertThatThrownBy(
            () -> DeviceClassGenerator.yaml(DRIVER, "gpu", Optional.of("gpu"), List.of()))
        .hasMessageContaining("spec.extendedResourceName \"gpu\" must contain '/'");
    assertThatThrownBy(
            () ->
                DeviceClassGenerator.yaml(
                    DRIVER, "gpu", Optional.of("example.com/" + "x".repeat(64)), List.of()))
        .hasMessageContaining("spec.extendedResourceName")
        .hasMessageContaining("the limit is 63");
    assertThatThrownBy(
            () ->
                DeviceClassGenerator.yaml(
                    DRIVER, "gpu", Optional.of("requests.example.com/gpu"), List.of()))
        .hasMessageContaining("requests.");
    assertThatThrownBy(
            () ->
                DeviceClassGenerator.yaml(
                    DRIVER, "gpu", Optional.of("nvidia.kubernetes.io/gpu"), List.of()))
        .hasMessageContaining("kubernetes.io domain");
    assertThatThrownBy(
            () ->
                DeviceClassGenerator.yaml(
                    DRIVER, "GPU_class", Optional.of("example.com/gpu"), List.of()))
        .hasMessageContaining("metadata.name (class name) \"GPU_class\"")
        .hasMessageContaining("DNS subdomain");
    assertThatThrownBy(
            () ->
                DeviceClassGenerator.yaml(
                    DRIVER, "gpu", Optional.empty(), List.of("true", "device.attributes[")))
        .hasMessageContaining("spec.selectors[2].cel.expression does not compile");
    assertThatThrownBy(
            () -> DeviceClassGenerator.yaml("bad_driver", "gpu", Optional.empty(), List.of()))
        .hasMessageContaining("driver name \"bad_driver\"");
  }
}
