package io.dra4j.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.Quantity;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Kubernetes CEL view of a device, evaluated through real compiled selectors. */
class DeviceSelectorTest {

  static final String DRIVER = "gpu.example.com";

  private final CelSelectors selectors = new CelSelectors();

  static Device gpu(String name, String memory) {
    return Device.builder(name)
        .attribute("type", "gpu")
        .attribute("index", 3)
        .attribute("healthy", true)
        .attribute("driverVersion", DeviceAttribute.version("12.4.1"))
        .attribute("resource.kubernetes.io/pcieRoot", "pci0000:00")
        .attribute("models", DeviceAttribute.ofStrings(List.of("a100", "a100-sxm")))
        .attribute("numaNodes", DeviceAttribute.ofInts(List.of(0L, 1L)))
        .attribute("flags", new DeviceAttribute.BoolValues(List.of(true)))
        .attribute("compat", new DeviceAttribute.VersionValues(List.of("11.0.0", "12.0.0-rc.1")))
        .capacity("memory", Quantity.parse(memory))
        .capacity("example.com/slots", Quantity.of(4))
        .build();
  }

  private boolean eval(String expression, Device device) {
    return selectors.compile(expression).matches(DRIVER, device);
  }

  private boolean eval(String expression) {
    return eval(expression, gpu("gpu-0", "80Gi"));
  }

  @Test
  void driverIsVisible() {
    assertThat(eval("device.driver == 'gpu.example.com'")).isTrue();
    assertThat(
            selectors.compile("device.driver == 'gpu.example.com'").matches("other", gpu("g", "1")))
        .isFalse();
  }

  @Test
  void unqualifiedAttributesAreInTheDriversDomain() {
    assertThat(eval("device.attributes['gpu.example.com'].type == 'gpu'")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].index == 3")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].index > 2")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].healthy")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].type == 'cpu'")).isFalse();
    // The domain follows the driver the device is evaluated for, not a fixed name.
    assertThat(
            selectors
                .compile("device.attributes['other.org'].type == 'gpu'")
                .matches("other.org", gpu("g", "1")))
        .isTrue();
  }

  @Test
  void qualifiedAttributesAreInTheirOwnDomain() {
    assertThat(eval("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'"))
        .isTrue();
    assertThat(eval("'pcieRoot' in device.attributes['gpu.example.com']")).isFalse();
    assertThat(eval("'type' in device.attributes['resource.kubernetes.io']")).isFalse();
  }

  @Test
  void intAttributesAreCelInts() {
    // int, not double: integer arithmetic and comparison with int literals type-check and work.
    assertThat(eval("device.attributes['gpu.example.com'].index + 1 == 4")).isTrue();
    assertThat(eval("type(device.attributes['gpu.example.com'].index) == int")).isTrue();
    // Kubernetes' environment compares numbers across types.
    assertThat(eval("device.attributes['gpu.example.com'].index < 3.5")).isTrue();
  }

  @Test
  void capacitiesAreQuantities() {
    String atLeast40 = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0";
    assertThat(eval(atLeast40, gpu("big", "80Gi"))).isTrue();
    assertThat(eval(atLeast40, gpu("exact", "40960Mi"))).isTrue();
    assertThat(eval(atLeast40, gpu("small", "24Gi"))).isFalse();
    assertThat(eval("device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('79Gi'))"))
        .isTrue();
    assertThat(eval("device.capacity['gpu.example.com'].memory.isLessThan(quantity('79Gi'))"))
        .isFalse();
    assertThat(eval("device.capacity['gpu.example.com'].memory == quantity('81920Mi')")).isTrue();
    assertThat(eval("device.capacity['example.com'].slots.asInteger() == 4")).isTrue();
  }

  @Test
  void versionAttributesAreSemverValues() {
    assertThat(
            eval(
                "device.attributes['gpu.example.com'].driverVersion"
                    + ".isGreaterThan(semver('1.2.3'))"))
        .isTrue();
    assertThat(
            eval(
                "device.attributes['gpu.example.com'].driverVersion"
                    + ".isLessThan(semver('12.4.1-rc.1'))"))
        .isFalse();
    assertThat(eval("device.attributes['gpu.example.com'].driverVersion == semver('12.4.1')"))
        .isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].driverVersion.major() == 12")).isTrue();
    assertThat(
            eval(
                "device.attributes['gpu.example.com'].driverVersion"
                    + ".compareTo(semver('12.10.0')) < 0"))
        .isTrue();
  }

  @Test
  void listAttributesWorkWithIncludes() {
    assertThat(eval("device.attributes['gpu.example.com'].models.includes('a100-sxm')")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].models.includes('h100')")).isFalse();
    assertThat(eval("device.attributes['gpu.example.com'].numaNodes.includes(1)")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].numaNodes.includes(2)")).isFalse();
    assertThat(eval("device.attributes['gpu.example.com'].flags.includes(true)")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].compat.includes(semver('12.0.0-rc.1'))"))
        .isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].compat.includes(semver('12.0.0'))"))
        .isFalse();
    // Lists are CEL lists: size(), in, exists() work too.
    assertThat(eval("device.attributes['gpu.example.com'].models.size() == 2")).isTrue();
    assertThat(eval("'a100' in device.attributes['gpu.example.com'].models")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].compat.exists(v, v.major() == 11)"))
        .isTrue();
  }

  @Test
  void includesOnScalarsIsEquality() {
    // KEP-6072: selectors keep working when a driver turns a scalar attribute into a list.
    assertThat(eval("device.attributes['gpu.example.com'].type.includes('gpu')")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].type.includes('cpu')")).isFalse();
    assertThat(eval("device.attributes['gpu.example.com'].index.includes(3)")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].healthy.includes(false)")).isFalse();
    assertThat(
            eval("device.attributes['gpu.example.com'].driverVersion.includes(semver('12.4.1'))"))
        .isTrue();
  }

  @Test
  void allowMultipleAllocationsIsVisible() {
    Device shared = gpu("shared", "80Gi").toBuilder().allowMultipleAllocations(true).build();
    assertThat(eval("device.allowMultipleAllocations", shared)).isTrue();
    assertThat(eval("device.allowMultipleAllocations")).isFalse();
  }

  @Test
  void driverCheckShortCircuitsAttributeAccess() {
    // The other driver's device lacks the attribute; without short-circuit this would be an error.
    String expr =
        "device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].type == 'gpu'";
    Device foreign = Device.builder("nic-0").attribute("speed", 100).build();
    assertThat(selectors.compile(expr).matches("nic.example.com", foreign)).isFalse();
    assertThat(selectors.compile(expr).matches(DRIVER, gpu("gpu-0", "80Gi"))).isTrue();
  }

  @Test
  void unknownDomainIsAnEmptyMap() {
    assertThat(eval("'x' in device.attributes['other.com']")).isFalse();
    assertThat(eval("device.attributes['other.com'].size() == 0")).isTrue();
    assertThat(eval("device.capacity['other.com'].size() == 0")).isTrue();
    assertThat(eval("'other.com' in device.attributes")).isFalse();
    // Field syntax reads any domain as present, like the lookup (see package documentation).
    assertThat(eval("has(device.attributes.other) && device.attributes.other.size() == 0"))
        .isTrue();
    assertThat(eval("'gpu.example.com' in device.attributes")).isTrue();
    assertThat(eval("'resource.kubernetes.io' in device.attributes")).isTrue();
    assertThat(eval("device.attributes.size() == 2")).isTrue();
    assertThat(eval("device.attributes.all(d, d in ['gpu.example.com', 'resource.kubernetes.io'])"))
        .isTrue();
  }

  @Test
  void missingAttributeIsAnErrorNamingTheDevice() {
    String expr = "device.attributes['gpu.example.com'].missing == 1";
    CompiledSelector s = selectors.compile(expr);
    Device d = gpu("gpu-7", "80Gi");
    assertThatThrownBy(() -> s.matches(DRIVER, d))
        .isInstanceOfSatisfying(
            SelectorEvaluationException.class,
            e -> {
              assertThat(e.deviceName()).isEqualTo("gpu-7");
              assertThat(e.driver()).isEqualTo(DRIVER);
              assertThat(e.expression()).isEqualTo(expr);
              assertThat(e.costLimitExceeded()).isFalse();
              assertThat(e.reason()).contains("missing").contains("line 1, column 37");
              assertThat(e.getMessage()).contains("gpu-7").contains(expr).contains("missing");
            });
    assertThatThrownBy(() -> eval("device.attributes['other.com'].x == 1"))
        .isInstanceOf(SelectorEvaluationException.class)
        .hasMessageContaining("'x'");
    // The lenient reading is explicit and only for callers that ask for it.
    assertThat(s.matchesTreatingErrorsAsNoMatch(DRIVER, d)).isFalse();
  }

  @Test
  void guardsAndOptionalsAvoidTheError() {
    assertThat(eval("has(device.attributes['gpu.example.com'].missing)")).isFalse();
    assertThat(eval("has(device.attributes['gpu.example.com'].type)")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].?missing.orValue(7) == 7")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].?index.orValue(7) == 3")).isTrue();
    assertThat(
            eval(
                "'missing' in device.attributes['gpu.example.com']"
                    + " && device.attributes['gpu.example.com'].missing == 1"))
        .isFalse();
  }

  @Test
  void celBindAndStringExtensionsAreEnabled() {
    assertThat(
            eval(
                "cel.bind(g, device.attributes['gpu.example.com'],"
                    + " g.type == 'gpu' && g.healthy && g.index >= 0)"))
        .isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].type.upperAscii() == 'GPU'")).isTrue();
    assertThat(eval("device.driver.split('.')[0] == 'gpu'")).isTrue();
    assertThat(eval("device.driver.endsWith('.example.com')")).isTrue();
    assertThat(eval("device.attributes['gpu.example.com'].type.matches('^g.u$')")).isTrue();
    assertThat(
            eval("sets.intersects(device.attributes['gpu.example.com'].models, ['h100', 'a100'])"))
        .isTrue();
    assertThat(eval("device.attributes.all(domain, ids, ids.size() > 0)")).isTrue();
  }

  @Test
  void invalidVersionAttributeFailsEvaluationForThatDevice() {
    Device bad = Device.builder("bad-0").attribute("v", DeviceAttribute.version("1.2")).build();
    assertThatThrownBy(() -> eval("device.driver == 'gpu.example.com'", bad))
        .isInstanceOfSatisfying(
            SelectorEvaluationException.class,
            e -> {
              assertThat(e.deviceName()).isEqualTo("bad-0");
              assertThat(e.reason()).contains("attribute \"v\"").contains("1.2");
            });
  }

  @Test
  void nonBoolResultAtRunTimeIsAnError() {
    // dyn passes the checker; Kubernetes requires a bool at run time.
    assertThatThrownBy(() -> eval("device.attributes['gpu.example.com'].type"))
        .isInstanceOf(SelectorEvaluationException.class)
        .hasMessageContaining("must evaluate to a bool");
  }

  @Test
  void preparedViewIsReusableAcrossSelectors() {
    CelDevice view = CelDevice.of(DRIVER, gpu("gpu-1", "40Gi"));
    assertThat(view.deviceName()).isEqualTo("gpu-1");
    assertThat(view.driver()).isEqualTo(DRIVER);
    assertThat(selectors.compile("device.driver == 'gpu.example.com'").matches(view)).isTrue();
    assertThat(
            selectors
                .compile("device.capacity['gpu.example.com'].memory == quantity('40Gi')")
                .matches(view))
        .isTrue();
  }
}
