package io.dra4j.runtime.testsupport;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * External peers of the tests (cdi-validate, Debian's Python gRPC): finding them, and running them
 * with a timeout that holds. A missing peer skips the test with a visible warning, unless {@code
 * DRA4J_REQUIRE_PEERS=1} (CI sets it), in which case the test fails: a peer check can never pass by
 * being skipped. Shared with other modules' tests through dra-runtime's test jar.
 */
public final class PeerTools {
  private PeerTools() {}

  public static boolean required() {
    return "1".equals(System.getenv("DRA4J_REQUIRE_PEERS"));
  }

  /** Skips the calling test (or fails it under DRA4J_REQUIRE_PEERS=1) because a peer is missing. */
  public static void unavailable(String message) {
    if (required()) {
      fail(message + " [DRA4J_REQUIRE_PEERS=1]");
    }
    System.err.println("WARNING: skipping: " + message);
    Assumptions.abort(message);
  }

  /** The tool's path on PATH; skips or fails the calling test when it is missing. */
  public static Path require(String tool, String why) {
    Optional<Path> found = find(tool);
    if (found.isPresent()) {
      return found.get();
    }
    unavailable(
        "peer tool '"
            + tool
            + "' is not on PATH ("
            + why
            + "); install it with .ci/cdi-validate/install.sh --v08");
    throw new AssertionError("unreachable");
  }

  public static Optional<Path> find(String tool) {
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

  /** What a finished process printed. */
  public record Output(int exitCode, String stdout, String stderr) {}

  /**
   * Runs a command with no input. Output goes to files, not pipes: a pipe read to its end would
   * block past any timeout when the child hangs, and a full pipe would block the child.
   *
   * @throws AssertionError when the command outlives {@code timeout} (it is killed)
   */
  public static Output exec(List<String> command, Duration timeout)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("peer", ".out");
    Path err = Files.createTempFile("peer", ".err");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(
            "timed out after " + timeout + ": " + command + "\n" + Files.readString(err));
      }
      return new Output(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
