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
