package io.dra4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.KubeClient;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DriverSettingsTest {
  private static final Map<String, String> DRIVER = Map.of("DRIVER_NAME", "gpu.example.com");

  private static DriverSettings parse(List<String> args, Map<String, String> env) {
    return DriverSettings.parse(args, Map.of(), env);
  }

  @Test
  void flagsLeftOutLeaveTheDriverSettingsToTheBuildersDefaults() throws Exception {
    DriverSettings o = parse(List.of("--node-name", "n1"), DRIVER);
    assertThat(o.driverName()).isEqualTo("gpu.example.com");
    assertThat(o.registrarDirectory()).isEmpty();
    assertThat(o.pluginDirectory()).isEmpty();
    assertThat(o.cdiDirectory()).isEmpty();
    assertThat(o.extendedResourceConflict()).isEmpty();
    assertThat(o.healthTaintEffect()).isEmpty();
    assertThat(o.warmUp()).isEmpty();
    assertThat(o.deviceMetadata()).isEmpty();
    assertThat(o.deviceMetadataVersions()).isEmpty();
    assertThat(o.kubeconfig()).isEmpty();
    assertThat(o.podUid()).isEmpty();
    assertThat(o.provider()).isEmpty();
    assertThat(o.providerConfig()).isEmpty();
    assertThat(o.kubeApiQps()).isEmpty();
    assertThat(o.kubeApiBurst()).isEmpty();
    // What the builder then makes of them: the kubelet's layout.
    Object s = settings(withRequired(o.applyTo(DraDriver.builder())));
    assertThat(s)
        .extracting(
            "registrarDirectory",
            "pluginDirectory",
            "cdiDirectory",
            "extendedResourcePolicy",
            "healthTaintEffect",
            "warmUp",
            "deviceMetadata",
            "deviceMetadataVersions")
        .containsExactly(
            Path.of("/var/lib/kubelet/plugins_registry"),
            Path.of("/var/lib/kubelet/plugins/gpu.example.com"),
            Path.of("/var/run/cdi"),
            ExtendedResourceGuard.Policy.WAIT,
            TaintEffect.NO_SCHEDULE,
            true,
            false,
            List.of("metadata.resource.k8s.io/v1beta1"));
    // The status endpoint listens on every local address unless told one.
    assertThat(o.healthAddress()).isEmpty();
    assertThat(o.healthSocketAddress().getAddress().isAnyLocalAddress()).isTrue();
    assertThat(o.healthSocketAddress().getPort()).isEqualTo(DriverSettings.DEFAULT_HEALTH_PORT);
  }

  @Test
  void healthAddressIsAnIpAddressFromTheFlagOrHealthAddress() throws Exception {
    DriverSettings flag =
        parse(List.of("--node-name", "n", "--health-address", "127.0.0.1"), DRIVER);
    assertThat(flag.healthSocketAddress())
        .isEqualTo(
            new java.net.InetSocketAddress(
                java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, 1}),
                DriverSettings.DEFAULT_HEALTH_PORT));
    Map<String, String> env = Map.of("DRIVER_NAME", "gpu.example.com", "HEALTH_ADDRESS", "[::1]");
    DriverSettings fromEnv = parse(List.of("--node-name", "n", "--health-port=9090"), env);
    assertThat(fromEnv.healthAddress().orElseThrow().isLoopbackAddress()).isTrue();
    assertThat(fromEnv.healthAddress().orElseThrow()).isInstanceOf(java.net.Inet6Address.class);
    assertThat(fromEnv.healthSocketAddress().getPort()).isEqualTo(9090);
    assertThat(
            parse(List.of("--node-name", "n", "--health-address=10.1.2.3"), env)
                .healthAddress()
                .orElseThrow()
                .getHostAddress())
        .isEqualTo("10.1.2.3");
    // Host names are refused (never resolved), and so is what InetAddress would read as one.
    for (String wrong : List.of("localhost", "1.2.3", "10.1.2.256", "::g", "fe80::1%eth0")) {
      assertThatThrownBy(
              () -> parse(List.of("--node-name", "n", "--health-address=" + wrong), DRIVER))
          .hasMessage(
              "flag --health-address \""
                  + wrong
                  + "\" must be an IP address such as 127.0.0.1, ::1 or the pod's IP (a host name"
                  + " is not resolved)");
    }
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
    DriverSettings o = DriverSettings.parse(List.of("--node-name=node-b"), defaults, env);
    assertThat(o.driverName()).isEqualTo("nic.example.com");
    assertThat(o.nodeName()).isEqualTo("node-b");
    assertThat(o.kubeconfig()).contains(Path.of("/etc/kube/config"));
    assertThat(o.podUid()).contains("1234");
    assertThat(o.provider()).contains("fake");

    DriverSettings d = DriverSettings.parse(List.of(), defaults, Map.of("NODE_NAME", "n"));
    assertThat(d.driverName()).isEqualTo("gpu.example.com");
  }

  @Test
  void blankEnvironmentVariablesCountAsUnset() {
    DriverSettings o =
        DriverSettings.parse(
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
    DriverSettings o =
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
    assertThat(o.extendedResourceConflict()).contains(ExtendedResourceGuard.Policy.FAIL);
    assertThat(o.healthTaintEffect()).contains(TaintEffect.NO_EXECUTE);
    assertThat(o.healthRecoveryDelay()).contains(Duration.ofSeconds(90));
    assertThat(o.warmUp()).contains(false);
    assertThat(o.deviceMetadata()).contains(true);
  }

  @Test
  void applyToSetsEveryDriverSettingGiven() throws Exception {
    DriverSettings o =
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
    Object s = settings(withRequired(o.applyTo(DraDriver.builder())));
    assertThat(s)
        .extracting(
            "driverName",
            "nodeName",
            "registrarDirectory",
            "pluginDirectory",
            "cdiDirectory",
            "sysfsRoot",
            "devRoot",
            "podUid",
            "config",
            "extendedResourcePolicy",
            "healthTaintEffect",
            "healthRecoveryDelay",
            "deviceMetadata",
            "warmUp")
        .containsExactly(
            "gpu.example.com",
            "n",
            Path.of("/r"),
            Path.of("/p"),
            Path.of("/c"),
            Path.of("/s"),
            Path.of("/d"),
            Optional.of("u1"),
            Map.of("devices", "4"),
            ExtendedResourceGuard.Policy.WARN,
            TaintEffect.NO_EXECUTE,
            Duration.ofSeconds(5),
            true,
            false);

    // Given no flags, the builder's defaults are the driver's: the command line has none.
    Object flagless =
        settings(
            withRequired(parse(List.of("--node-name=n"), DRIVER).applyTo(DraDriver.builder())));
    Object builderOnly =
        settings(withRequired(DraDriver.builder().driverName("gpu.example.com").nodeName("n")));
    assertThat(flagless).usingRecursiveComparison().isEqualTo(builderOnly);
  }

  /**
   * The settings a builder would build a driver with, every default resolved: the core keeps them
   * to itself (a package-private record), so the launcher's test reads them reflectively.
   */
  private static Object settings(DraDriver.Builder b) throws ReflectiveOperationException {
    Method settings = DraDriver.Builder.class.getDeclaredMethod("settings");
    settings.setAccessible(true);
    return settings.invoke(b);
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
    DriverSettings o =
        parse(List.of("--node-name", "n", "--device-metadata=false", "--no-warm-up=false"), DRIVER);
    assertThat(o.deviceMetadata()).contains(false);
    assertThat(o.warmUp()).contains(true);
    assertThatThrownBy(() -> parse(List.of("--node-name", "n", "--device-metadata=yes"), DRIVER))
        .hasMessageContaining("'--device-metadata': 'yes' is not a boolean");
  }

  @Test
  void aFlagGivenTwiceIsAnErrorNotLastOneWins() {
    assertThatThrownBy(() -> parse(List.of("--node-name", "a", "--node-name=b"), DRIVER))
        .hasMessageContaining("option '--node-name' (NAME) should be specified only once");
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
        .hasMessageContaining("Missing required parameter for option '--node-name'");
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

  /** The help of each flag: its lines from the option's name to the next option. */
  static Map<String, String> helpByFlag(String usage) {
    Map<String, String> byFlag = new java.util.LinkedHashMap<>();
    String current = null;
    for (String line : usage.split("\n")) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("^ {1,8}(?:-h, )?(--[a-z-]+)").matcher(line);
      if (m.find()) {
        current = m.group(1);
        byFlag.put(current, line);
      } else if (current != null && line.startsWith("   ")) {
        byFlag.merge(current, line, (a, b) -> a + "\n" + b);
      } else {
        current = null;
      }
    }
    return byFlag;
  }

  @Test
  void helpListsEveryFlagWithItsDefaultAndItsEnvironmentVariable() {
    String usage = DriverSettings.usage(Map.of("driver-name", "gpu.example.com"));
    Map<String, String> help = helpByFlag(usage);
    // flag -> what its help must say: the owners' constants, the launcher's default, the variable.
    Map<String, List<String>> expected = new java.util.LinkedHashMap<>();
    expected.put("--driver-name", List.of("default: gpu.example.com", "DRIVER_NAME"));
    expected.put("--node-name", List.of("default: none, required", "NODE_NAME"));
    expected.put("--kubeconfig", List.of("default: in-cluster configuration", "KUBECONFIG"));
    expected.put(
        "--registrar-dir",
        List.of(
            "default: "
                + io.dra4j.runtime.internal.kubelet.SocketNames.DEFAULT_REGISTRAR_DIRECTORY));
    expected.put("--plugin-dir", List.of("default: /var/lib/kubelet/plugins/<driver-name>"));
    expected.put(
        "--cdi-dir", List.of("default: " + io.dra4j.runtime.cdi.CdiSpecWriter.DEFAULT_DIRECTORY));
    expected.put("--pod-uid", List.of("default: none, rolling updates off", "POD_UID"));
    expected.put("--provider", List.of("default: the only one on the class path"));
    expected.put("--sysfs-root", List.of("default: " + ProviderContext.DEFAULT_SYSFS_ROOT));
    expected.put("--dev-root", List.of("default: " + ProviderContext.DEFAULT_DEV_ROOT));
    expected.put("--health-port", List.of("default: " + DriverSettings.DEFAULT_HEALTH_PORT));
    expected.put(
        "--health-address",
        List.of("default: every local address (IPv4 and IPv6)", "HEALTH_ADDRESS"));
    expected.put("--extended-resource-conflict", List.of("default: wait"));
    expected.put("--health-taint-effect", List.of("default: NoSchedule"));
    expected.put("--health-recovery-delay", List.of("default: 60s"));
    expected.put("--device-metadata", List.of("default: false"));
    expected.put("--device-metadata-versions", List.of("default: v1beta1"));
    expected.put("--no-warm-up", List.of("default: false"));
    expected.put("--kube-api-qps", List.of("default: 50"));
    expected.put("--kube-api-burst", List.of("default: 100"));
    expected.put("--log-level", List.of("default: info", DriverFlags.LOG_LEVEL.env()));
    expected.put("--config", List.of("default: none"));
    expected.put("--help", List.of());
    assertThat(help.keySet())
        .containsExactlyElementsOf(
            java.util.stream.Stream.concat(
                    java.util.stream.Stream.of("--help"),
                    expected.keySet().stream().filter(f -> !f.equals("--help")))
                .toList());
    expected.forEach(
        (flag, texts) -> {
          for (String text : texts) {
            assertThat(help.get(flag)).as(flag).contains(text);
          }
        });
    // A flag without a variable names none; one with a variable says so on its default's line.
    assertThat(help.get("--cdi-dir")).doesNotContain("environment variable");
    assertThat(help.get("--node-name")).contains("; environment variable NODE_NAME");
  }

  /** The help names each default of its owner: the one a flag left out then gets. */
  @Test
  void everyDefaultTheHelpShowsIsTheOneTheOwnerApplies() throws Exception {
    DriverSettings o = parse(List.of("--node-name", "n"), DRIVER);
    Map<String, String> help = helpByFlag(DriverSettings.usage(Map.of()));
    Object s = settings(withRequired(o.applyTo(DraDriver.builder())));
    for (String[] flagAndSetting :
        new String[][] {
          {"--registrar-dir", "registrarDirectory"},
          {"--cdi-dir", "cdiDirectory"},
          {"--sysfs-root", "sysfsRoot"},
          {"--dev-root", "devRoot"},
        }) {
      assertThat(help.get(flagAndSetting[0])).contains("default: " + field(s, flagAndSetting[1]));
    }
    assertThat(help.get("--health-taint-effect"))
        .contains("default: " + ((TaintEffect) field(s, "healthTaintEffect")).apiName());
    assertThat(help.get("--health-recovery-delay"))
        .contains("default: " + ((Duration) field(s, "healthRecoveryDelay")).toSeconds() + "s");
    assertThat(help.get("--extended-resource-conflict"))
        .contains(
            "default: "
                + field(s, "extendedResourcePolicy").toString().toLowerCase(java.util.Locale.ROOT));
    assertThat(help.get("--health-port")).contains("default: " + o.healthPort());
    assertThat(help.get("--kube-api-burst"))
        .contains("default: " + io.dra4j.kube.HttpKubeClient.DEFAULT_BURST);
    assertThat(help.get("--log-level"))
        .contains("default: " + o.logLevel().name().toLowerCase(java.util.Locale.ROOT));
  }

  private static Object field(Object record, String name) throws ReflectiveOperationException {
    Method accessor = record.getClass().getDeclaredMethod(name);
    accessor.setAccessible(true);
    return accessor.invoke(record);
  }

  @Test
  void helpIsRequestedNotAnError() {
    assertThatThrownBy(() -> parse(List.of("--help"), Map.of()))
        .isInstanceOf(DriverSettings.HelpRequested.class)
        .hasMessageContaining("--kube-api-burst");
  }

  @Test
  void theLogLevelComesFromTheFlagOrLogLevel() {
    assertThat(parse(List.of("--node-name=n", "--log-level=debug"), DRIVER).logLevel())
        .isEqualTo(org.slf4j.event.Level.DEBUG);
    Map<String, String> env = new java.util.HashMap<>(DRIVER);
    env.put("LOG_LEVEL", "WARN");
    assertThat(parse(List.of("--node-name=n"), env).logLevel())
        .isEqualTo(org.slf4j.event.Level.WARN);
    assertThatThrownBy(() -> parse(List.of("--node-name=n", "--log-level=loud"), DRIVER))
        .hasMessageContaining("flag --log-level: log level \"loud\" must be one of");
  }

  @Test
  void deviceMetadataVersionsAreNamedBareOrWithTheirGroupAndCheckedByTheRuntimesRule()
      throws Exception {
    DriverSettings o =
        parse(
            List.of(
                "--node-name=n",
                "--device-metadata",
                "--device-metadata-versions",
                "v1beta1, metadata.resource.k8s.io/v1alpha1"),
            DRIVER);
    List<String> both =
        List.of("metadata.resource.k8s.io/v1beta1", "metadata.resource.k8s.io/v1alpha1");
    assertThat(o.deviceMetadataVersions()).contains(both);
    assertThat(settings(withRequired(o.applyTo(DraDriver.builder()))))
        .extracting("deviceMetadata", "deviceMetadataVersions")
        .containsExactly(true, both);
    // Written in the order given, as upstream's EnableDeviceMetadata.
    assertThat(
            parse(List.of("--node-name=n", "--device-metadata-versions=v1alpha1,v1beta1"), DRIVER)
                .deviceMetadataVersions())
        .contains(List.of("metadata.resource.k8s.io/v1alpha1", "metadata.resource.k8s.io/v1beta1"));
    assertThatThrownBy(
            () -> parse(List.of("--node-name=n", "--device-metadata-versions=v1alpha1"), DRIVER))
        .hasMessage(
            "flag --device-metadata-versions \"v1alpha1\": device metadata versions"
                + " [metadata.resource.k8s.io/v1alpha1] lack the latest version,"
                + " metadata.resource.k8s.io/v1beta1, which must be written");
    assertThatThrownBy(
            () -> parse(List.of("--node-name=n", "--device-metadata-versions=v1beta1,v1"), DRIVER))
        .hasMessageStartingWith(
            "flag --device-metadata-versions \"v1beta1,v1\": device metadata version"
                + " \"metadata.resource.k8s.io/v1\" is not supported");
  }

  @Test
  void aSwitchTakesTrueOrFalseAfterItOrNothing() {
    assertThat(
            parse(List.of("--node-name=n", "--device-metadata", "false"), DRIVER).deviceMetadata())
        .contains(false);
    DriverSettings o =
        parse(List.of("--node-name=n", "--device-metadata", "--devices", "4"), DRIVER);
    assertThat(o.deviceMetadata()).contains(true);
    assertThat(o.providerConfig()).containsExactly(Map.entry("devices", "4"));
    assertThatThrownBy(() -> parse(List.of("--node-name=n", "--no-warm-up=yes"), DRIVER))
        .hasMessageContaining("'--no-warm-up': 'yes' is not a boolean");
  }

  @Test
  void aFlagWithoutItsValueIsNamedAndSwallowsNothing() {
    assertThatThrownBy(() -> parse(List.of("--node-name"), DRIVER))
        .hasMessage("Missing required parameter for option '--node-name' (NAME)");
    assertThatThrownBy(() -> parse(List.of("--node-name", "--health-port", "9"), DRIVER))
        .hasMessage("Expected parameter for option '--node-name' but found '--health-port'");
    // A value may start with one dash.
    assertThat(parse(List.of("--node-name", "n", "--health-port", "-1"), DRIVER).healthPort())
        .isEqualTo(-1);
    assertThatThrownBy(() -> parse(List.of("--node-name", "n", "stray"), DRIVER))
        .hasMessage("unexpected argument \"stray\": flags have the form --NAME VALUE");
  }

  @Test
  void theHelpWrapsWithinItsWidthUnderItsColumn() {
    String usage = DriverSettings.usage(Map.of());
    assertThat(usage.lines()).allMatch(line -> line.length() <= 100);
    assertThat(usage)
        .startsWith("Usage: run [OPTIONS]\nThe DRA driver, as its DaemonSet runs it.\n")
        .contains("\n  -h, --help                print this help\n")
        .contains("\n      --driver-name=NAME    DRA driver name, e.g. gpu.example.com\n")
        // A name longer than the column puts its description on the next line.
        .contains(
            "\n      --extended-resource-conflict=wait|warn|fail\n                            what")
        .contains("\n      --device-metadata[=true|false]\n");
  }
}
