package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SocketNamesTest {

  private static final String UID = "f358c92b-e974-4f29-a84f-6c64bec0949d";
  private static final Path REGISTRY = Path.of("/var/lib/kubelet/plugins_registry");

  /** {@code n} characters ending in ".example.org", like the upstream helper's test drivers. */
  private static String driver(int n) {
    return "a".repeat(n - 12) + ".example.org";
  }

  @Test
  void defaultNames() {
    assertThat(SocketNames.registrationSocket(REGISTRY, "gpu.example.com", Optional.empty()))
        .isEqualTo(Path.of("/var/lib/kubelet/plugins_registry/gpu.example.com-reg.sock"));
    assertThat(
            SocketNames.draSocket(
                SocketNames.defaultPluginDataDirectory("gpu.example.com"), Optional.empty()))
        .isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.example.com/dra.sock"));
  }

  @Test
  void rollingUpdateDraSocketCarriesThePodUid() {
    assertThat(SocketNames.draSocket(Path.of("/p/d"), Optional.of(UID)))
        .isEqualTo(Path.of("/p/d/dra-" + UID + ".sock"));
  }

  @Test
  void firstCandidateIsTheFullPodUidWhileItFits() {
    // 33 + 1 + 27 + 1 + 36 + 9 = 107 bytes: the longest path dra4j accepts.
    String name = SocketNames.rollingUpdateRegistrarSocketFile(REGISTRY, driver(27), UID);
    assertThat(name).isEqualTo(driver(27) + "-" + UID + "-reg.sock");
    assertThat(SocketNames.pathBytes(REGISTRY.resolve(name))).isEqualTo(107);
  }

  @Test
  void secondCandidateHashesThePodUidToElevenCharacters() {
    // 108 bytes with the full UID: the Go helper (limit 108) still uses it, dra4j (107) cannot.
    String name = SocketNames.rollingUpdateRegistrarSocketFile(REGISTRY, driver(28), UID);
    assertThat(name).isEqualTo(driver(28) + "-W75GxEP6R9A-reg.sock");
    // Same length rule as upstream: a 29-character driver gives an 84-byte path.
    String upstream = SocketNames.rollingUpdateRegistrarSocketFile(REGISTRY, driver(29), UID);
    assertThat(SocketNames.pathBytes(REGISTRY.resolve(upstream))).isEqualTo(84);
  }

  @Test
  void thirdCandidateHashesDriverAndPodUid() {
    Path dir = Path.of("/" + "r".repeat(60));
    String driver = "gpu-accelerator.devices.example.com";
    // 62 + 35 + 1 + 11 + 9 = 118 bytes with the hashed UID: too long, so the third form.
    String name = SocketNames.rollingUpdateRegistrarSocketFile(dir, driver, UID);
    // Golden value: base64url(SHA-256(driver + "\0" + UID)[0:16]), computed with Python's hashlib.
    assertThat(name).isEqualTo("dra-Yal75NNTlW9xVOuRfIqZ5w-reg.sock");
    // The second form with the same directory and a shorter driver still fits.
    assertThat(SocketNames.rollingUpdateRegistrarSocketFile(dir, "gpu.example.com", UID))
        .isEqualTo("gpu.example.com-W75GxEP6R9A-reg.sock");
    // Upstream lengths: a 34-character driver in "/" + 52 r's gives 89 bytes.
    Path upstreamDir = Path.of("/" + "r".repeat(52));
    assertThat(
            SocketNames.pathBytes(
                upstreamDir.resolve(
                    SocketNames.rollingUpdateRegistrarSocketFile(upstreamDir, driver(34), UID))))
        .isEqualTo(89);
  }

  @Test
  void whenNothingFitsTheShortestFormIsReturnedAndRefusedByTheLengthCheck() {
    Path dir = Path.of("/" + "r".repeat(80));
    String name = SocketNames.rollingUpdateRegistrarSocketFile(dir, "gpu.example.com", UID);
    assertThat(name).isEqualTo("dra-5I5j2i2A47jFeZly_3l3xA-reg.sock");
    Path socket = dir.resolve(name);
    assertThat(SocketNames.pathBytes(socket)).isEqualTo(82 + 35);
    assertThatThrownBy(() -> SocketNames.checkLength("registration socket", socket))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(socket.toString())
        .hasMessageContaining("at most 107 bytes");
  }

  @Test
  void distinctInputsGiveDistinctNamesAndTheSameInputTheSameName() {
    Path dir = Path.of("/" + "r".repeat(80));
    String a = SocketNames.rollingUpdateRegistrarSocketFile(dir, "one.example.com", UID);
    assertThat(SocketNames.rollingUpdateRegistrarSocketFile(dir, "one.example.com", UID))
        .isEqualTo(a);
    assertThat(SocketNames.rollingUpdateRegistrarSocketFile(dir, "two.example.com", UID))
        .isNotEqualTo(a);
    assertThat(
            SocketNames.rollingUpdateRegistrarSocketFile(
                dir, "one.example.com", UID.replace('f', 'e')))
        .isNotEqualTo(a);
  }

  @Test
  void directoryIsNormalizedBeforeMeasuring() {
    Path messy = Path.of("/var/lib/kubelet/plugins_registry/./");
    assertThat(SocketNames.rollingUpdateRegistrarSocketFile(messy, driver(27), UID))
        .isEqualTo(driver(27) + "-" + UID + "-reg.sock");
    assertThat(SocketNames.registrationSocket(messy, "x.io", Optional.empty()))
        .isEqualTo(REGISTRY.resolve("x.io-reg.sock"));
  }

  @Test
  void lengthCheckCountsBytesNotCharacters() {
    Path socket = Path.of("/" + "é".repeat(53)); // 1 + 106 bytes = 107
    SocketNames.checkLength("DRA socket", socket);
    Path longer = Path.of("/" + "é".repeat(54)); // 109 bytes, 55 characters
    assertThatThrownBy(() -> SocketNames.checkLength("DRA socket", longer))
        .hasMessageContaining("is 109 bytes");
  }
}
