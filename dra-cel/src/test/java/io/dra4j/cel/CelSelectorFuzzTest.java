package io.dra4j.cel;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import java.nio.charset.StandardCharsets;

/**
 * DeviceClass and claim selectors: any expression either compiles or is refused with a {@link
 * SelectorCompileException}; a compiled one evaluated against a device gives true, false or a
 * {@link SelectorEvaluationException} (the cost limit included), never another exception.
 */
class CelSelectorFuzzTest {
  private static final CelSelectors SELECTORS = new CelSelectors(64);
  private static final Device DEVICE =
      Device.builder("gpu-0")
          .attribute("model", "H200")
          .attribute("index", 3)
          .attribute("fast", true)
          .attribute("driverVersion", io.dra4j.api.device.DeviceAttribute.version("1.2.3"))
          .attribute("resource.kubernetes.io/pcieRoot", "pci0000:00")
          .capacity("memory", Quantity.parse("80Gi"))
          .build();
  private static final CelDevice VIEW = CelDevice.of("gpu.example.com", DEVICE);

  @FuzzTest
  void compileAndEvaluate(byte[] input) {
    String expression = new String(input, StandardCharsets.UTF_8);
    CompiledSelector selector;
    try {
      selector = SELECTORS.compile(expression);
    } catch (SelectorCompileException e) {
      return;
    }
    try {
      selector.matches(VIEW);
    } catch (SelectorEvaluationException e) {
      // the claim fails, as in Kubernetes
    }
  }
}
