package io.dra4j.runtime.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.dra4j.api.device.Device;

/**
 * A device as it reads from a ResourceSlice (attributes of every type, capacities, taints): any
 * bytes either decode, and then encode and decode again to an equal device, or fail as JSON errors.
 */
class DeviceAttributeFuzzTest {

  @FuzzTest
  void decode(byte[] input) throws Exception {
    Device device;
    try {
      device = KubeJson.mapper().readValue(input, Device.class);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return;
    }
    if (device == null) {
      return;
    }
    byte[] again = KubeJson.mapper().writeValueAsBytes(device);
    assertThat(KubeJson.mapper().readValue(again, Device.class)).isEqualTo(device);
  }
}
