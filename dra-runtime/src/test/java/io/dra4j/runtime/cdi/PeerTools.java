package io.dra4j.runtime.cdi;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds external peer tools. A missing tool skips the test with a visible warning, unless {@code
 * DRA4J_REQUIRE_PEERS=1}, in which case the test fails (CI sets it, so a peer check can never pass
 * by being skipped).
 */
final class PeerTools {
  private PeerTools() {}

  static boolean required() {
    return "1".equals(System.getenv("DRA4J_REQUIRE_PEERS"));
  }

  /** The tool's path on PATH; skips or fails the calling test when it is missing. */
  static Path require(String tool, String why) {
    Optional<Path> found = find(tool);
    if (found.isPresent()) {
      return found.get();
    }
    String msg =
        "peer tool '"
            + tool
            + "' is not on PATH ("
            + why
            + "); install it with .ci/cdi-validate/install.sh --v08";
    if (required()) {
      fail(msg + " [DRA4J_REQUIRE_PEERS=1]");
    }
    System.err.println("WARNING: skipping: " + msg);
    Assumptions.abort(msg);
    throw new AssertionError("unreachable");
  }

  static Optional<Path> find(String tool) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path p = Path.of(dir, tool);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
