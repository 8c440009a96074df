package io.dra4j.runtime.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The reader workloads use for device metadata, k8s.io/dynamic-resource-allocation v0.37.2's {@code
 * devicemetadata} package, as a peer: {@code e2e/metadata-reader}, built by its {@code build.sh}
 * (cached outside the work tree by version). What it prints: {@code containerPath}, {@code
 * hostPath}, {@code gvk} (the version it decoded), {@code validation} (upstream's validation error,
 * null when valid) and {@code metadata} (the decoded object as v1beta1).
 *
 * <p>Without Go on PATH the calling test is skipped with the reason (failed under {@code
 * DRA4J_REQUIRE_PEERS=1}).
 */
public final class MetadataReader {
  private static final Duration BUILD = Duration.ofMinutes(10);
  private static final Duration RUN = Duration.ofSeconds(30);
  private static Path binary;

  private final Path path;

  private MetadataReader(Path path) {
    this.path = path;
  }

  /** The peer, built on first use. */
  public static synchronized MetadataReader build() throws IOException, InterruptedException {
    if (binary == null) {
      PeerTools.require("go", "builds the Go device metadata reader, e2e/metadata-reader");
      Path script = repositoryRoot().resolve("e2e/metadata-reader/build.sh");
      PeerTools.Output out = PeerTools.exec(List.of(script.toString()), BUILD);
      if (out.exitCode() != 0) {
        throw new AssertionError(script + " failed:\n" + out.stdout() + out.stderr());
      }
      String[] lines = out.stdout().strip().split("\n");
      binary = Path.of(lines[lines.length - 1].strip());
    }
    return new MetadataReader(binary);
  }

  /**
   * Upstream's own metadata fixtures, {@code api/metadata/testdata} of
   * k8s.io/dynamic-resource-allocation v0.37.2 in Go's module cache (there once the reader is
   * built).
   */
  public Path upstreamFixtures() throws IOException, InterruptedException {
    PeerTools.Output out = PeerTools.exec(List.of("go", "env", "GOMODCACHE"), RUN);
    Path dir =
        Path.of(out.stdout().strip())
            .resolve("k8s.io/dynamic-resource-allocation@v0.37.2/api/metadata/testdata");
    if (!Files.isDirectory(dir)) {
      throw new AssertionError("no " + dir + " after building " + path);
    }
    return dir;
  }

  /** The static binary, e.g. to mount into a container. */
  public Path binary() {
    return path;
  }

  /**
   * Decodes the file that a CDI spec mounts at upstream's in-container path for this claim (or,
   * with {@code template}, the pod's name for a claim made from a template) and request.
   */
  public JsonNode mounted(
      Path cdiSpec, boolean template, String driver, String name, String request)
      throws IOException, InterruptedException {
    return run("mount", cdiSpec.toString(), template ? "template" : "claim", driver, name, request);
  }

  /** Decodes one file with upstream's {@code DecodeMetadataFromStream}. */
  public JsonNode decode(Path file) throws IOException, InterruptedException {
    return run("decode", file.toString());
  }

  /** The failure message of decoding one file, which must fail. */
  public String decodeFailure(Path file) throws IOException, InterruptedException {
    PeerTools.Output out = PeerTools.exec(List.of(path.toString(), "decode", file.toString()), RUN);
    if (out.exitCode() == 0) {
      throw new AssertionError("decoding " + file + " succeeded: " + out.stdout());
    }
    return out.stderr().strip();
  }

  private JsonNode run(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(path.toString()));
    cmd.addAll(List.of(args));
    PeerTools.Output out = PeerTools.exec(cmd, RUN);
    if (out.exitCode() != 0) {
      throw new AssertionError(cmd + " failed: " + out.stderr());
    }
    return new ObjectMapper().readTree(out.stdout());
  }

  /** The checkout's root: the nearest folder up from here with {@code e2e/metadata-reader}. */
  static Path repositoryRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("e2e/metadata-reader/build.sh"))) {
        return p;
      }
    }
    throw new AssertionError(
        "no e2e/metadata-reader/build.sh above " + Path.of("").toAbsolutePath());
  }
}
