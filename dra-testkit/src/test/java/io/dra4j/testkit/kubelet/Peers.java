package io.dra4j.testkit.kubelet;

import io.dra4j.runtime.testsupport.PeerTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The Python gRPC peer: Debian's C-core grpcio, a client not written with grpc-java. */
final class Peers {

  /** Debian's interpreter: a pyenv {@code python3} earlier on PATH cannot see Debian's grpcio. */
  static final Path PYTHON = Path.of("/usr/bin/python3");

  private Peers() {}

  /**
   * Requires {@code /usr/bin/python3} with grpcio and grpc_tools (Debian python3-grpcio,
   * python3-grpc-tools); skips or fails the test otherwise.
   */
  static Path requirePythonGrpc() {
    String problem = null;
    if (!Files.isExecutable(PYTHON)) {
      problem = PYTHON + " is missing";
    } else {
      try {
        PeerTools.Output out =
            PeerTools.exec(
                List.of(PYTHON.toString(), "-c", "import grpc, grpc_tools.protoc"),
                Duration.ofSeconds(60));
        if (out.exitCode() != 0) {
          problem = PYTHON + " cannot import grpc and grpc_tools: " + out.stderr().trim();
        }
      } catch (Exception | AssertionError e) {
        problem = "cannot run " + PYTHON + ": " + e;
      }
    }
    if (problem != null) {
      PeerTools.unavailable(
          "Python gRPC peer unavailable: "
              + problem
              + " (apt-get install python3-grpcio python3-grpc-tools, or run .ci/run)");
    }
    return PYTHON;
  }
}
