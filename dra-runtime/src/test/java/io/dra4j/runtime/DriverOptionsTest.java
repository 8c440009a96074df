package io.dra4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.TaintEffect;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriverOptionsTest {

  @Test
  void defaultsFollowTheKubeletLayout() {
    DriverOptions o = DriverOptions.parse(List.of("--node-name", "n1"), Map.of());
    assertThat(o.driverName()).isEqualTo("gpu.example.com");
    assertThat(o.registrarDirectory()).isEqualTo(Path.of("/var/lib/kubelet/plugins_registry"));
    assertThat(o.pluginDirectory()).isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.example.com"));
    assertThat(o.cdiDirectory()).isEqualTo(Path.of("/var/run/cdi"));
    assertThat(o.kubeconfig()).isEmpty();
    assertThat(o.podUid()).isEmpty();
    assertThat(o.extendedResourceConflict()).isEqualTo(ExtendedResourceGuard.Policy.WAIT);
    assertThat(o.healthTaintEffect()).isEqualTo(TaintEffect.NO_SCHEDULE);
    assertThat(o.warmUp()).isTrue();
    assertThat(o.providerConfig()).isEmpty();
    assertThat(o.kubeApiQps()).isEqualTo(50);
    assertThat(o.kubeApiBurst()).isEqualTo(100);
  }

  @Test
  void environmentFillsThePerPodFlagsAndFlagsWin() {
    Map<String, String> env =
        Map.of(
            "DRIVER_NAME", "nic.example.com",
            "NODE_NAME", "node-a",
            "KUBECONFIG", "/etc/kube/config",
            "POD_UID", "1234");
    DriverOptions o = DriverOptions.parse(List.of("--node-name=node-b"), env);
    assertThat(o.driverName()).isEqualTo("nic.example.com");
    assertThat(o.nodeName()).isEqualTo("node-b");
    assertThat(o.kubeconfig()).contains(Path.of("/etc/kube/config"));
    assertThat(o.podUid()).contains("1234");
    assertThat(o.pluginDirectory()).isEqualTo(Path.of("/var/lib/kubelet/plugins/nic.example.com"));
  }

  @Test
  void unknownFlagsAreProviderSettings() {
    DriverOptions o =
        DriverOptions.parse(
            List.of(
                "--node-name",
                "n",
                "--devices",
                "4",
                "--numa-attribute-form=list",
                "--config",
                "memory=40Gi",
                "--extended-resource-conflict",
                "FAIL",
                "--health-taint-effect",
                "NoExecute",
                "--health-recovery-delay",
                "90s",
                "--no-warm-up",
                "--device-metadata"),
            Map.of());
    assertThat(o.providerConfig())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("devices", "4", "numa-attribute-form", "list", "memory", "40Gi"));
    assertThat(o.extendedResourceConflict()).isEqualTo(ExtendedResourceGuard.Policy.FAIL);
    assertThat(o.healthTaintEffect()).isEqualTo(TaintEffect.NO_EXECUTE);
    assertThat(o.healthRecoveryDelay()).isEqualTo(Duration.ofSeconds(90));
    assertThat(o.warmUp()).isFalse();
    assertThat(o.deviceMetadata()).isTrue();
  }

  @Test
  void badInputNamesTheFlagAndTheRule() {
    assertThatThrownBy(() -> DriverOptions.parse(List.of(), Map.of()))
        .hasMessageContaining("--node-name (or NODE_NAME) is required");
    assertThatThrownBy(
            () ->
                DriverOptions.parse(
                    List.of("--node-name", "n", "--extended-resource-conflict", "maybe"), Map.of()))
        .hasMessageContaining("must be one of wait|warn|fail");
    assertThatThrownBy(
            () ->
                DriverOptions.parse(
                    List.of("--node-name", "n", "--health-recovery-delay", "soon"), Map.of()))
        .hasMessageContaining("must be a duration");
    assertThatThrownBy(() -> DriverOptions.parse(List.of("--node-name"), Map.of()))
        .hasMessageContaining("flag --node-name needs a value");
    assertThatThrownBy(() -> DriverOptions.parse(List.of("run"), Map.of()))
        .hasMessageContaining("unexpected argument \"run\"");
    assertThatThrownBy(
            () ->
                DriverOptions.parse(
                    List.of("--node-name", "n", "--health-taint-effect", "PreferNoSchedule"),
                    Map.of()))
        .hasMessageContaining("--health-taint-effect");
    assertThatThrownBy(
            () -> DriverOptions.parse(List.of("--node-name", "n", "--kube-api-qps", "0"), Map.of()))
        .hasMessageContaining("flag --kube-api-qps \"0\" must be a number above 0");
  }
}
