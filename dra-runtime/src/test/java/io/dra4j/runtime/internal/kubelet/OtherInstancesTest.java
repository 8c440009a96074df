package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OtherInstancesTest {
  private static final String DRIVER = "gpu.example.com";

  @TempDir Path dir;

  private ServerSocketChannel listen(String name) throws Exception {
    ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    ch.bind(UnixDomainSocketAddress.of(dir.resolve(name)));
    return ch;
  }

  @Test
  void aListeningRegistrationSocketOfTheDriverAnswers() throws Exception {
    String name = SocketNames.rollingUpdateRegistrarSocketFile(dir, DRIVER, "old-pod-uid");
    try (ServerSocketChannel old = listen(name)) {
      assertThat(OtherInstances.answering(dir, DRIVER)).contains(dir.resolve(name));
    }
  }

  @Test
  void aSocketAtTheLongestPathDra4jBindsAnswersToo() throws Exception {
    // The JDK connects to at most 106 bytes, dra4j binds 107 (the old instance's socket in a
    // rolling update). The JDK cannot bind one that long either: the entry is a link to a
    // listening socket, which the probe follows as it would the socket itself.
    String name = SocketNames.rollingUpdateRegistrarSocketFile(dir, DRIVER, "old-pod-uid");
    int padding =
        SocketNames.MAX_SOCKET_PATH_BYTES - SocketNames.pathBytes(dir.resolve("x/" + name)) + 1;
    Path registrar = Files.createDirectory(dir.resolve("p".repeat(padding)));
    Path entry = registrar.resolve(name);
    assertThat(SocketNames.pathBytes(entry)).isEqualTo(SocketNames.MAX_SOCKET_PATH_BYTES);
    try (ServerSocketChannel old = listen("old.sock")) {
      Files.createSymbolicLink(entry, dir.resolve("old.sock"));
      assertThat(OtherInstances.answering(registrar, DRIVER)).contains(entry);
    }
    try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.startsWith("dra4j-probe-"));
    }
  }

  @Test
  void theSocketOfAKilledProcessDoesNotAnswer() throws Exception {
    // Closing the channel leaves the file, as a SIGKILL does.
    listen(DRIVER + "-reg.sock").close();
    assertThat(Files.exists(dir.resolve(DRIVER + "-reg.sock"))).isTrue();
    assertThat(OtherInstances.answering(dir, DRIVER)).isEmpty();
  }

  @Test
  void anotherDriversSocketAndOtherFilesAreNotCandidates() throws Exception {
    Files.writeString(dir.resolve(DRIVER + "-notes-reg.sock"), "a regular file");
    try (ServerSocketChannel other = listen("nic.example.com-reg.sock")) {
      assertThat(OtherInstances.answering(dir, DRIVER)).isEmpty();
    }
  }

  @Test
  void aMissingDirectoryHasNoInstances() {
    assertThat(OtherInstances.answering(dir.resolve("missing"), DRIVER))
        .isEqualTo(Optional.empty());
  }
}
