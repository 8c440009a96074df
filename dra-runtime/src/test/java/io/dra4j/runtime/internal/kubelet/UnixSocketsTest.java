package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnixSocketsTest {
  @TempDir Path dir;

  /**
   * A path of the longest length dra4j binds, 107 bytes: one the JDK refuses to connect to (nor can
   * it bind one), so it is a link to a socket at a short path, which a connect follows.
   */
  private Path longestPathTo(Path socket) throws Exception {
    int padding =
        SocketNames.MAX_SOCKET_PATH_BYTES - SocketNames.pathBytes(dir.resolve("x/reg.sock")) + 1;
    Path entry = Files.createDirectory(dir.resolve("p".repeat(padding))).resolve("reg.sock");
    assertThat(SocketNames.pathBytes(entry)).isEqualTo(SocketNames.MAX_SOCKET_PATH_BYTES);
    return Files.createSymbolicLink(entry, socket);
  }

  @Test
  void aListenerAtTheLongestPathIsSeenAndALeftoverThereIsNot() throws Exception {
    Path socket = dir.resolve("s.sock");
    Path entry = longestPathTo(socket);
    try (ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.bind(UnixDomainSocketAddress.of(socket));
      assertThat(UnixSockets.isListening(entry)).isTrue();
    }
    // The file stays after the listener closed, as after a SIGKILL.
    assertThat(Files.exists(socket)).isTrue();
    assertThat(UnixSockets.isListening(entry)).isFalse();
    try (Stream<Path> left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.startsWith("dra4j-probe-"));
    }
  }
}
