package io.dra4j.testkit.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.runtime.DraDriver;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files and sockets a whole driver leaves on the node: each with the narrowest mode its reader
 * allows, and no symbolic link planted in the driver's folders is followed out of them.
 */
class NodeFilesSecurityTest {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path tmp;
  FakeApiServer api;
  HttpKubeClient client;
  KubeletSimulator kubelet;
  DraDriver driver;
  PluginInstance plugin;
  Path pluginDir;
  Path cdiDir;
  Path outside;

  @BeforeEach
  void setUp() throws Exception {
    api = FakeApiServer.start();
    client = api.newClient();
    api.putNode(NODE);
    kubelet = KubeletSimulator.start(Files.createDirectories(tmp.resolve("registry")));
    pluginDir = tmp.resolve("plugins").resolve(DRIVER);
    cdiDir = tmp.resolve("cdi");
    // What a planted link points at: a file and a folder of the host the driver must not touch.
    outside = Files.createDirectories(tmp.resolve("host"));
    Files.writeString(outside.resolve("secret"), "host file\n");
  }

  void startDriver() throws Exception {
    driver =
        DraDriver.builder()
            .driverName(DRIVER)
            .nodeName(NODE)
            .provider(new FakeDeviceProvider())
            .kubeClient(client)
            .config(FakeDeviceProvider.CONFIG_DEVICES, "2")
            .registrarDirectory(kubelet.registryDirectory())
            .pluginDirectory(pluginDir)
            .cdiDirectory(cdiDir)
            .deviceMetadata(true)
            .warmUp(false)
            .build();
    driver.start();
    assertThat(driver.awaitPublished(WAIT)).isTrue();
    plugin = kubelet.awaitPlugin(DRIVER, WAIT);
  }

  @AfterEach
  void tearDown() {
    if (driver != null) {
      driver.close();
    }
    kubelet.close();
    client.close();
    api.close();
  }

  static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
  }

  /**
   * Every entry below {@code dir} (relative name, claim UIDs replaced by {@code <uid>}), its mode.
   */
  static Map<String, String> modes(Path dir, ClaimRef claim) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.toList()) {
        String name = dir.relativize(p).toString().replace(claim.uid(), "<uid>");
        out.put(name.isEmpty() ? "." : name, mode(p));
      }
    }
    return out;
  }

  ClaimRef prepared(String name, String device) {
    ClaimRef claim = SeededClaims.allocated(api, DRIVER, name, NODE, device, null);
    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.error()).as("prepare of %s", name).isEmpty();
    return claim;
  }

  @Test
  void socketsAndRecordsAreTheDriversAloneAndCdiFilesAreReadableByTheRuntime() throws Exception {
    startDriver();
    ClaimRef claim = prepared("perm", "gpu-0");

    // The kubelet connects as root (no permission bits needed); nobody else may connect or read
    // the records. The metadata file is bind-mounted read-only into containers of any user.
    assertThat(modes(pluginDir, claim))
        .containsEntry(".", "rwx------")
        .containsEntry("checkpoints", "rwx------")
        .containsEntry("checkpoints/<uid>.json", "rw-------")
        .containsEntry("dra.sock", "rw-------")
        .containsEntry("dra-device-metadata/ns_perm/gpu/metadata.json", "rw-r--r--");
    assertThat(modes(pluginDir, claim).entrySet())
        .as("no file group- or world-writable, only metadata world-readable")
        .allSatisfy(
            e -> {
              assertThat(e.getValue().substring(3)).doesNotContain("w");
              if (!e.getKey().startsWith("dra-device-metadata")) {
                assertThat(e.getValue().substring(3)).isEqualTo("------");
              }
            });
    Path registration = driver.registrationSocket().orElseThrow();
    assertThat(mode(registration)).isEqualTo("rw-------");
    // Container runtimes and CDI tools (not all root) read the specs: 0644, never writable.
    assertThat(modes(cdiDir, claim).values()).isNotEmpty();
    modes(cdiDir, claim)
        .forEach(
            (name, mode) -> {
              if (!name.equals(".")) {
                assertThat(mode).as(name).isEqualTo("rw-r--r--");
              }
            });
  }

  /** The host file is as it was, and no new file appeared next to it. */
  void assertHostUntouched() throws IOException {
    assertThat(Files.readString(outside.resolve("secret"))).isEqualTo("host file\n");
    try (Stream<Path> s = Files.list(outside)) {
      assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("secret");
    }
  }

  @Test
  void aLinkInPlaceOfAClaimsRecordIsRefusedNotFollowed() throws Exception {
    startDriver();
    ClaimRef claim = SeededClaims.allocated(api, DRIVER, "linked-record", NODE, "gpu-0", null);
    Path record = pluginDir.resolve("checkpoints").resolve(claim.uid() + ".json");
    Files.createSymbolicLink(record, outside.resolve("secret"));

    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());

    assertThat(r.error())
        .contains(
            "claim "
                + claim
                + ": "
                + record
                + ": is a symbolic link; refusing to follow it out of the driver's folder");
    assertThat(Files.isSymbolicLink(record)).isTrue();
    assertHostUntouched();
  }

  @Test
  void linksInPlaceOfTemporaryFilesAreReplacedNeverWrittenThrough() throws Exception {
    startDriver();
    ClaimRef first = prepared("first", "gpu-0");
    String spec =
        Files.list(cdiDir)
            .map(p -> p.getFileName().toString())
            .filter(n -> n.endsWith(first.uid() + ".json"))
            .findFirst()
            .orElseThrow();
    String specPrefix = spec.substring(0, spec.length() - (first.uid() + ".json").length());
    ClaimRef claim = SeededClaims.allocated(api, DRIVER, "linked-temp", NODE, "gpu-1", null);
    // A crash leaves temporary files; someone put links to a host file in their place.
    Path recordTemp = pluginDir.resolve("checkpoints").resolve("." + claim.uid() + ".json.tmp");
    Path specTemp = cdiDir.resolve("." + specPrefix + claim.uid() + ".tmp");
    Files.createSymbolicLink(recordTemp, outside.resolve("secret"));
    Files.createSymbolicLink(specTemp, outside.resolve("secret"));

    assertThat(plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();

    assertHostUntouched();
    Path record = pluginDir.resolve("checkpoints").resolve(claim.uid() + ".json");
    assertThat(Files.isRegularFile(record, LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(mode(record)).isEqualTo("rw-------");
    assertThat(
            Files.isRegularFile(
                cdiDir.resolve(specPrefix + claim.uid() + ".json"), LinkOption.NOFOLLOW_LINKS))
        .isTrue();
    assertThat(Files.exists(recordTemp, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.exists(specTemp, LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  @Test
  void aLinkedMetadataFolderIsRefusedAndNothingIsWrittenThere() throws Exception {
    startDriver();
    ClaimRef claim = SeededClaims.allocated(api, DRIVER, "linked-meta", NODE, "gpu-0", null);
    Path metadata = Files.createDirectories(pluginDir.resolve("dra-device-metadata"));
    Path claimFolder = metadata.resolve("ns_linked-meta");
    Files.createSymbolicLink(claimFolder, outside);

    ClaimResult r = plugin.prepare(List.of(claim)).get(claim.uid());

    assertThat(r.error().orElseThrow())
        .startsWith("claim " + claim + ": ")
        .contains(claimFolder + ": is a symbolic link; refusing to follow it");
    assertHostUntouched();
    // Nothing of the failed prepare is left: no record, no spec.
    assertThat(pluginDir.resolve("checkpoints").resolve(claim.uid() + ".json")).doesNotExist();
    try (Stream<Path> s = Files.list(cdiDir)) {
      assertThat(s.map(Path::toString).filter(n -> n.contains(claim.uid())).toList()).isEmpty();
    }
  }
}
