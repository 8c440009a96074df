package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.proto.dra.v1.Device;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DraPluginV1ServiceTest {

  static CheckpointDevice recorded(String request, Optional<String> shareId) {
    return new CheckpointDevice(
        request, "p", "d0", shareId, false, List.of("v/c=d0"), Map.of("k", "v"), Optional.empty());
  }

  @Test
  void aSubrequestSuffixIsCutOffTheRequestName() {
    Device d = DraPluginV1Service.device(recorded("gpu/small", Optional.of("s")));
    assertThat(d.getRequestNamesList()).containsExactly("gpu");
    assertThat(d.getPoolName()).isEqualTo("p");
    assertThat(d.getDeviceName()).isEqualTo("d0");
    assertThat(d.getShareId()).isEqualTo("s");
    assertThat(d.getCdiDeviceIdsList()).containsExactly("v/c=d0");
  }

  @Test
  void aBaseRequestNameIsSentAsItIsAndNoShareIdIsUnset() {
    Device d = DraPluginV1Service.device(recorded("gpu", Optional.empty()));
    assertThat(d.getRequestNamesList()).containsExactly("gpu");
    assertThat(d.hasShareId()).isFalse();
  }
}
