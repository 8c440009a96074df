package io.dra4j.testkit.extendedresource;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.CompiledSelector;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.KubeJson;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The generated DeviceClass parses, is a valid API object and selects the right devices. */
class DeviceClassYamlTest {

  static final String DRIVER = "fake.dra4j.io";

  final ObjectMapper yaml = KubeJson.yaml();

  List<Device> devices(String driver) {
    Pool pool =
        new FakeDeviceProvider()
            .discover(
                ProviderContext.builder(driver, "node-1")
                    .config(FakeDeviceProvider.CONFIG_DEVICES, "4")
                    .config(FakeDeviceProvider.CONFIG_PARTITIONS, "2")
                    .build())
            .pools()
            .get(0);
    return pool.devices();
  }

  DeviceClass parse(String text) throws Exception {
    DeviceClass dc = yaml.readValue(text, DeviceClass.class);
    JsonNode json = KubeJson.mapper().valueToTree(dc);
    OpenApiSchemas.resourceV1().assertValid("io.k8s.api.resource.v1.DeviceClass", json);
    // The YAML itself, not just what the record keeps of it, has the schema's shape.
    OpenApiSchemas.resourceV1()
        .assertValid("io.k8s.api.resource.v1.DeviceClass", yaml.readTree(text));
    return dc;
  }

  static List<String> selected(DeviceClass dc, String driver, List<Device> devices) {
    CelSelectors cel = CelSelectors.shared();
    List<CompiledSelector> selectors =
        dc.spec().selectors().stream()
            .map(DeviceSelector::cel)
            .map(c -> cel.compile(c.orElseThrow().expression()))
            .toList();
    return devices.stream()
        .filter(d -> selectors.stream().allMatch(s -> s.matches(driver, d)))
        .map(Device::name)
        .toList();
  }

  @Test
  void selectsEveryDeviceOfTheDriverAndNoneOfAnother() throws Exception {
    String text =
        DeviceClassGenerator.yaml(DRIVER, "fake-gpu", Optional.of("example.com/gpu"), List.of());
    assertThat(text)
        .contains("apiVersion: resource.k8s.io/v1", "kind: DeviceClass", "name: fake-gpu");
    DeviceClass dc = parse(text);
    assertThat(dc.metadata().name()).isEqualTo("fake-gpu");
    assertThat(dc.spec().extendedResourceName()).contains("example.com/gpu");
    List<Device> ours = devices(DRIVER);
    assertThat(selected(dc, DRIVER, ours)).hasSize(ours.size()).contains("gpu-0", "gpu-0-part-1");
    assertThat(selected(dc, "other.example.com", devices("other.example.com"))).isEmpty();
  }

  @Test
  void anExtraSelectorNarrowsTheClass() throws Exception {
    String text =
        DeviceClassGenerator.yaml(
            DRIVER,
            "fake-gpu-whole",
            Optional.of("example.com/whole-gpu"),
            List.of(
                "device.attributes['"
                    + DRIVER
                    + "'].type == 'gpu' && device.attributes['"
                    + DRIVER
                    + "'].index >= 2"));
    // Each selector on one line, as a person would write it.
    assertThat(text.lines().filter(l -> l.contains("expression:"))).hasSize(2);
    assertThat(text).contains(".index >= 2");
    DeviceClass dc = parse(text);
    assertThat(dc.spec().selectors()).hasSize(2);
    assertThat(selected(dc, DRIVER, devices(DRIVER))).containsExactly("gpu-2", "gpu-3");
  }

  @Test
  void theLaunchersMatchFlagsSelectByTheDriversOwnAttributes() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc =
        DeviceClassGenerator.run(
            List.of("--class-name", "fake-partitions", "--match", "type=gpu-partition"),
            Map.of("driver-name", DRIVER),
            Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err);
    assertThat(rc).isZero();
    DeviceClass dc = parse(out.toString(StandardCharsets.UTF_8));
    List<Device> ours = devices(DRIVER);
    List<String> partitions =
        ours.stream().map(Device::name).filter(n -> n.contains("-part-")).toList();
    assertThat(partitions).isNotEmpty();
    assertThat(selected(dc, DRIVER, ours)).containsExactlyElementsOf(partitions);
  }
}
