package io.dra4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.kube.KubeClient;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriverOptionsTest {
  private static final Map<String, String> DRIVER = Map.of("DRIVER_NAME", "gpu.example.com");

  private static DriverOptions parse(List<String> args, Map<String, String> env) {
    return DriverOptions.parse(args, Map.of(), env);
  }

  @Test
  void defaultsFollowTheKubeletLayout() {
    DriverOptions o = parse(List.of("--node-name", "n1"), DRIVER);
    assertThat(o.driverName()).isEqualTo("gpu.example.com");
    assertThat(o.registrarDirectory()).isEqualTo(Path.of("/var/lib/kubelet/plugins_registry"));
    assertThat(o.pluginDirectory()).isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.example.com"));
    assertThat(o.cdiDirectory()).isEqualTo(Path.of("/var/run/cdi"));
    assertThat(o.kubeconfig()).isEmpty();
    assertThat(o.podUid()).isEmpty();
    assertThat(o.provider()).isEmpty();
    assertThat(o.extendedResourceConflict()).isEqualTo(ExtendedResourceGuard.Policy.WAIT);
    assertThat(o.healthTaintEffect()).isEqualTo(TaintEffect.NO_SCHEDULE);
    assertThat(o.warmUp()).isTrue();
    assertThat(o.deviceMetadata()).isFalse();
    assertThat(o.providerConfig()).isEmpty();
    assertThat(o.kubeApiQps()).isEqualTo(50);
    assertThat(o.kubeApiBurst()).isEqualTo(100);
  }

  @Test
  void flagsBeatTheEnvironmentWhichBeatsTheLaunchersDefaults() {
    Map<String, String> env =
        Map.of(
            "DRIVER_NAME", "nic.example.com",
            "NODE_NAME", "node-a",
            "KUBECONFIG", "/etc/kube/config",
            "POD_UID", "1234");
    Map<String, String> defaults = Map.of("driver-name", "gpu.example.com", "provider", "fake");
    DriverOptions o = DriverOptions.parse(List.of("--node-name=node-b"), defaults, env);
    assertThat(o.driverName()).isEqualTo("nic.example.com");
    assertThat(o.nodeName()).isEqualTo("node-b");
    assertThat(o.kubeconfig()).contains(Path.of("/etc/kube/config"));
    assertThat(o.podUid()).contains("1234");
    assertThat(o.provider()).contains("fake");
    assertThat(o.pluginDirectory()).isEqualTo(Path.of("/var/lib/kubelet/plugins/nic.example.com"));

    DriverOptions d = DriverOptions.parse(List.of(), defaults, Map.of("NODE_NAME", "n"));
    assertThat(d.driverName()).isEqualTo("gpu.example.com");
  }

  @Test
  void blankEnvironmentVariablesCountAsUnset() {
    DriverOptions o =
        DriverOptions.parse(
            List.of(),
            Map.of("driver-name", "gpu.example.com"),
            Map.of("DRIVER_NAME", "", "NODE_NAME", "n", "POD_UID", " ", "KUBECONFIG", ""));
    assertThat(o.driverName()).isEqualTo("gpu.example.com");
    assertThat(o.podUid()).isEmpty();
    assertThat(o.kubeconfig()).isEmpty();
    assertThatThrownBy(() -> parse(List.of(), Map.of("NODE_NAME", " ", "DRIVER_NAME", "d.io")))
        .hasMessageContaining("--node-name (or NODE_NAME) is required");
  }

  @Test
  void unknownFlagsAreProviderSettings() {
    DriverOptions o =
        parse(
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
                "--device-metadata=true"),
            DRIVER);
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
  void applyToSetsEveryDriverSettingAndDefaultsMatchTheBuilders() {
    DriverOptions o =
        parse(
            List.of(
                "--node-name=n",
                "--registrar-dir=/r",
                "--plugin-dir=/p",
                "--cdi-dir=/c",
                "--sysfs-root=/s",
                "--dev-root=/d",
                "--pod-uid=u1",
                "--devices=4",
                "--extended-resource-conflict=warn",
                "--health-taint-effect=NoExecute",
                "--health-recovery-delay=5s",
                "--device-metadata",
                "--no-warm-up"),
            DRIVER);
    DraDriver.Settings s = withRequired(o.applyTo(DraDriver.builder())).settings();
    assertThat(s.driverName()).isEqualTo("gpu.example.com");
    assertThat(s.nodeName()).isEqualTo("n");
    assertThat(List.of(s.registrarDirectory(), s.pluginDirectory(), s.cdiDirectory()))
        .containsExactly(Path.of("/r"), Path.of("/p"), Path.of("/c"));
    assertThat(List.of(s.sysfsRoot(), s.devRoot())).containsExactly(Path.of("/s"), Path.of("/d"));
    assertThat(s.podUid()).contains("u1");
    assertThat(s.config()).containsExactlyEntriesOf(Map.of("devices", "4"));
    assertThat(s.extendedResourcePolicy()).isEqualTo(ExtendedResourceGuard.Policy.WARN);
    assertThat(s.healthTaintEffect()).isEqualTo(TaintEffect.NO_EXECUTE);
    assertThat(s.healthRecoveryDelay()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.deviceMetadata()).isTrue();
    assertThat(s.warmUp()).isFalse();

    // Given no flags, the options and the builder agree on every default.
    DraDriver.Settings flagless =
        withRequired(parse(List.of("--node-name=n"), DRIVER).applyTo(DraDriver.builder()))
            .settings();
    DraDriver.Settings builderOnly =
        withRequired(DraDriver.builder().driverName("gpu.example.com").nodeName("n")).settings();
    assertThat(flagless).usingRecursiveComparison().isEqualTo(builderOnly);
  }

  private static final DeviceProvider PROVIDER =
      new DeviceProvider() {
        @Override
        public Inventory discover(ProviderContext context) {
          return Inventory.empty();
        }

        @Override
        public PrepareResult prepare(ClaimAllocation allocation) {
          return PrepareResult.of(List.of());
        }

        @Override
        public void unprepare(PreparedClaim claim) {}
      };

  private static final KubeClient CLIENT =
      (KubeClient)
          Proxy.newProxyInstance(
              KubeClient.class.getClassLoader(),
              new Class<?>[] {KubeClient.class},
              (proxy, method, args) -> {
                throw new UnsupportedOperationException(method.getName());
              });

  private static DraDriver.Builder withRequired(DraDriver.Builder b) {
    return b.provider(PROVIDER).kubeClient(CLIENT);
  }

  @Test
  void switchesSetToFalseAreOff() {
    DriverOptions o =
        parse(List.of("--node-name", "n", "--device-metadata=false", "--no-warm-up=false"), DRIVER);
    assertThat(o.deviceMetadata()).isFalse();
    assertThat(o.warmUp()).isTrue();
    assertThatThrownBy(() -> parse(List.of("--node-name", "n", "--device-metadata=yes"), DRIVER))
        .hasMessageContaining("--device-metadata=yes: a switch is true or false");
  }

  @Test
  void aFlagGivenTwiceIsAnErrorNotLastOneWins() {
    assertThatThrownBy(() -> parse(List.of("--node-name", "a", "--node-name=b"), DRIVER))
        .hasMessageContaining("flag --node-name is given twice (a, b)");
    assertThatThrownBy(
            () ->
                parse(
                    List.of("--node-name", "n", "--devices", "2", "--config", "devices=4"), DRIVER))
        .hasMessageContaining("flag --devices is given twice (2, 4)");
  }

  @Test
  void aFlagWithoutItsValueDoesNotSwallowTheNextFlag() {
    assertThatThrownBy(
            () -> parse(List.of("--node-name", "n", "--devcies", "--no-warm-up"), DRIVER))
        .hasMessageContaining("flag --devcies needs a value");
  }

  @Test
  void badInputNamesTheFlagAndTheRule() {
    assertThatThrownBy(() -> parse(List.of(), DRIVER))
        .hasMessageContaining("--node-name (or NODE_NAME) is required");
    assertThatThrownBy(() -> parse(List.of("--node-name", "n"), Map.of()))
        .hasMessageContaining("--driver-name (or DRIVER_NAME) is required");
    assertThatThrownBy(
            () ->
                parse(List.of("--node-name", "n", "--extended-resource-conflict", "maybe"), DRIVER))
        .hasMessageContaining("must be one of wait|warn|fail");
    assertThatThrownBy(
            () -> parse(List.of("--node-name", "n", "--health-recovery-delay", "soon"), DRIVER))
        .hasMessageContaining("must be a duration");
    assertThatThrownBy(() -> parse(List.of("--node-name"), DRIVER))
        .hasMessageContaining("flag --node-name needs a value");
    assertThatThrownBy(() -> parse(List.of("run"), DRIVER))
        .hasMessageContaining("unexpected argument \"run\"");
    assertThatThrownBy(
            () ->
                parse(
                    List.of("--node-name", "n", "--health-taint-effect", "PreferNoSchedule"),
                    DRIVER))
        .hasMessageContaining("--health-taint-effect");
    assertThatThrownBy(() -> parse(List.of("--node-name", "n", "--kube-api-qps", "0"), DRIVER))
        .hasMessageContaining("flag --kube-api-qps \"0\" must be a number above 0");
    assertThatThrownBy(
            () ->
                parse(
                    List.of("--node-name", "n"),
                    Map.of("DRIVER_NAME", "d.io", "KUBECONFIG", "a:b")))
        .hasMessageContaining("lists several files");
  }
}
