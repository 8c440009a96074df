package io.dra4j.testkit.kubelet;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Independent peers (tools not written in Java) for contract tests. A missing peer skips the test
 * with a visible warning, unless {@code DRA4J_REQUIRE_PEERS=1}, which makes it fail (CI sets it).
 */
final class Peers {

  /** Debian's interpreter: a pyenv {@code python3} earlier on PATH cannot see Debian's grpcio. */
  static final Path PYTHON = Path.of("/usr/bin/python3");

  private Peers() {}

  /**
   * Requires {@code /usr/bin/python3} with grpcio and grpc_tools (Debian python3-grpcio,
   * python3-grpc-tools).
   */
  static Path requirePythonGrpc() {
    String problem = null;
    if (!Files.isExecutable(PYTHON)) {
      problem = PYTHON + " is missing";
    } else {
      try {
        Process p =
            new ProcessBuilder(PYTHON.toString(), "-c", "import grpc, grpc_tools.protoc")
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
          problem = PYTHON + " cannot import grpc and grpc_tools: " + output.trim();
        }
      } catch (Exception e) {
        problem = "cannot run " + PYTHON + ": " + e;
      }
    }
    if (problem != null) {
      String message =
          problem + " (apt-get install python3-grpcio python3-grpc-tools, or run .ci/run)";
      if ("1".equals(System.getenv("DRA4J_REQUIRE_PEERS"))) {
        fail("DRA4J_REQUIRE_PEERS=1 but the Python gRPC peer is unavailable: " + message);
      }
      System.err.println("WARNING: skipping a Python peer test: " + message);
      Assumptions.abort("Python gRPC peer unavailable: " + message);
    }
    return PYTHON;
  }
}
