package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dra4j.api.device.Device;
import java.io.IOException;

/**
 * A device as it reads from a ResourceSlice (attributes of every type, capacities, taints): any
 * bytes either decode, and then encode and decode again to an equal device, or fail as decoding
 * errors: Jackson's IOExceptions (syntax, mapping, and bytes that are no valid UTF-8/16/32, which
 * it reports as a CharConversionException) or a value the model refuses. HttpKubeClient.decode
 * turns exactly these into an InvalidResponse error; anything else would escape it.
 */
class DeviceAttributeFuzzTest {

  @FuzzTest
  void decode(byte[] input) throws Exception {
    Device device;
    try {
      device = KubeJson.mapper().readValue(input, Device.class);
    } catch (IOException | IllegalArgumentException e) {
      return;
    }
    if (device == null) {
      return;
    }
    byte[] again = KubeJson.mapper().writeValueAsBytes(device);
    assertThat(KubeJson.mapper().readValue(again, Device.class)).isEqualTo(device);
  }
}
