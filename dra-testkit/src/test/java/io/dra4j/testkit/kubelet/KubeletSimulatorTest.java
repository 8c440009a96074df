package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.proto.pluginregistration.RegistrationStatus;
import io.dra4j.runtime.testsupport.Await;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulator's own kubelet rules, against plugins that are not dra4j servers. */
@SuppressWarnings("try") // fake plugins are kept running, not used
class KubeletSimulatorTest {

  @TempDir Path tmp;
  Path registry;
  KubeletSimulator kubelet;

  @BeforeEach
  void setUp() throws Exception {
    registry = Files.createDirectories(tmp.resolve("registry"));
    kubelet = KubeletSimulator.start(registry, Duration.ofMillis(20));
  }

  @AfterEach
  void tearDown() {
    kubelet.close();
  }

  @Test
  void picksTheFirstKubeletServiceInThePluginsOrderAndPrefersV1Health() throws Exception {
    Path endpoint = tmp.resolve("plugin/dra.sock");
    try (FakePlugin plugin =
        new FakePlugin(
            registry.resolve("a.example.com-reg.sock"),
            FakePlugin.info(
                "DRAPlugin",
                "a.example.com",
                endpoint.toString(),
                "v1alpha4.DRAPlugin",
                "v1beta1.DRAPlugin",
                "v1.DRAPlugin",
                "v1alpha1.DRAResourceHealth",
                "v1.DRAResourceHealth"))) {
      PluginInstance p = kubelet.awaitPlugin("a.example.com", WAIT);
      assertThat(p.draVersion()).isEqualTo(DraVersion.V1BETA1);
      assertThat(p.healthVersion()).contains(HealthVersion.V1);
      assertThat(p.endpoint()).isEqualTo(endpoint);
      assertThat(plugin.notifications)
          .containsExactly(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
    }
  }

  @Test
  void v1alpha1HealthIsTheFallback() {
    assertThat(
            KubeletSimulator.pickHealthVersion(
                List.of("v1.DRAPlugin", "v1alpha1.DRAResourceHealth")))
        .contains(HealthVersion.V1ALPHA1);
    assertThat(KubeletSimulator.pickHealthVersion(List.of("v1.DRAPlugin"))).isEmpty();
    assertThat(KubeletSimulator.pickDraVersion(List.of("v1alpha4.DRAPlugin"))).isEmpty();
  }

  @Test
  void rejectsWhatTheKubeletRejectsAndSaysWhy() throws Exception {
    try (FakePlugin csi =
            new FakePlugin(
                registry.resolve("csi-reg.sock"),
                FakePlugin.info("CSIPlugin", "csi.example.com", "/x.sock", "1.0.0"));
        FakePlugin old =
            new FakePlugin(
                registry.resolve("old-reg.sock"),
                FakePlugin.info("DRAPlugin", "old.example.com", "/x.sock", "v1alpha4.DRAPlugin"));
        FakePlugin none =
            new FakePlugin(
                registry.resolve("none-reg.sock"),
                FakePlugin.info("DRAPlugin", "none.example.com", "/x.sock"));
        FakePlugin relative =
            new FakePlugin(
                registry.resolve("rel-reg.sock"),
                FakePlugin.info("DRAPlugin", "rel.example.com", "dra.sock", "v1.DRAPlugin"))) {
      assertRejected(csi, "no handler registered for plugin type: CSIPlugin");
      assertRejected(old, "none of services supported by the plugin [v1alpha4.DRAPlugin]");
      assertRejected(none, "advertises no services");
      assertRejected(relative, "is not an absolute path");
      assertThat(kubelet.plugins()).isEmpty();
    }
  }

  @Test
  void sameEndpointTwiceIsRejected() throws Exception {
    String endpoint = tmp.resolve("shared/dra.sock").toString();
    try (FakePlugin first =
            new FakePlugin(
                registry.resolve("one-reg.sock"),
                FakePlugin.info("DRAPlugin", "d.example.com", endpoint, "v1.DRAPlugin"));
        FakePlugin second =
            new FakePlugin(
                registry.resolve("two-reg.sock"),
                FakePlugin.info("DRAPlugin", "d.example.com", endpoint, "v1.DRAPlugin"))) {
      SimulatorEvent rejected =
          kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.REJECTED, WAIT);
      assertThat(rejected.detail()).contains("already registered for driver d.example.com");
      assertThat(kubelet.plugins()).hasSize(1);
    }
  }

  @Test
  void emptyEndpointMeansTheRegistrationSocket() throws Exception {
    Path socket = registry.resolve("self-reg.sock");
    try (FakePlugin plugin =
        new FakePlugin(
            socket, FakePlugin.info("DRAPlugin", "self.example.com", "", "v1.DRAPlugin"))) {
      assertThat(kubelet.awaitPlugin("self.example.com", WAIT).endpoint()).isEqualTo(socket);
    }
  }

  @Test
  void walksSubdirectoriesAndSkipsHiddenNamesAndNonSockets() throws Exception {
    Files.writeString(registry.resolve("not-a-socket-reg.sock"), "x");
    try (FakePlugin hiddenFile =
            new FakePlugin(
                registry.resolve(".hidden-reg.sock"),
                FakePlugin.info("DRAPlugin", "hidden.example.com", "", "v1.DRAPlugin"));
        FakePlugin hiddenDir =
            new FakePlugin(
                registry.resolve(".dir/x-reg.sock"),
                FakePlugin.info("DRAPlugin", "hiddendir.example.com", "", "v1.DRAPlugin"));
        FakePlugin nested =
            new FakePlugin(
                registry.resolve("sub/dir/n-reg.sock"),
                FakePlugin.info("DRAPlugin", "nested.example.com", "", "v1.DRAPlugin"))) {
      kubelet.awaitPlugin("nested.example.com", WAIT);
      // The hidden ones came first, so the walk that found nested saw them too; a plugin added
      // now is registered by a later walk, after that one registered all it found.
      try (FakePlugin later =
          new FakePlugin(
              registry.resolve("later-reg.sock"),
              FakePlugin.info("DRAPlugin", "later.example.com", "", "v1.DRAPlugin"))) {
        kubelet.awaitPlugin("later.example.com", WAIT);
        assertThat(kubelet.plugins())
            .extracting(PluginInstance::driverName)
            .containsExactlyInAnyOrder("nested.example.com", "later.example.com");
      }
      assertThat(hiddenFile.notifications).isEmpty();
      assertThat(hiddenDir.notifications).isEmpty();
    }
  }

  @Test
  void deregistersWhenTheSocketGoesAndRegistersItsReplacement() throws Exception {
    Path socket = registry.resolve("r-reg.sock");
    PluginInstance first;
    try (FakePlugin plugin =
        new FakePlugin(socket, FakePlugin.info("DRAPlugin", "r.example.com", "", "v1.DRAPlugin"))) {
      first = kubelet.awaitPlugin("r.example.com", WAIT);
    }
    Files.deleteIfExists(socket); // a server's shutdown may leave the file
    kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.DEREGISTERED, WAIT);
    assertThat(kubelet.plugin("r.example.com")).isEmpty();
    try (FakePlugin again =
        new FakePlugin(
            socket, FakePlugin.info("DRAPlugin", "r.example.com", "", "v1beta1.DRAPlugin"))) {
      PluginInstance second = kubelet.awaitPlugin("r.example.com", WAIT);
      assertThat(second).isNotSameAs(first);
      assertThat(second.draVersion()).isEqualTo(DraVersion.V1BETA1);
    }
  }

  @Test
  void aSocketNobodyListensOnIsRetriedNotRegistered() throws Exception {
    Path socket = registry.resolve("stale-reg.sock");
    try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      stale.bind(UnixDomainSocketAddress.of(socket));
    }
    SimulatorEvent failed = kubelet.awaitEvent(e -> e.kind() == SimulatorEvent.Kind.FAILED, WAIT);
    assertThat(failed.detail()).contains("GetInfo failed").contains("UNAVAILABLE");
    assertThat(kubelet.plugins()).isEmpty();
  }

  private void assertRejected(FakePlugin plugin, String reason) throws Exception {
    Await.until("a notification", WAIT, () -> !plugin.notifications.isEmpty());
    assertThat(plugin.notifications).hasSize(1);
    assertThat(plugin.notifications.get(0).getPluginRegistered()).isFalse();
    assertThat(plugin.notifications.get(0).getError()).contains(reason);
    assertThat(kubelet.events())
        .anySatisfy(
            e -> {
              assertThat(e.kind()).isEqualTo(SimulatorEvent.Kind.REJECTED);
              assertThat(e.detail()).contains(reason);
            });
  }
}
