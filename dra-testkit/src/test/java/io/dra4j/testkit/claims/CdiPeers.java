package io.dra4j.testkit.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The independent CDI validators (the reference Go library at v0.5.2 and v0.8.0): load the spec
 * directory as runtimes do, resolve the returned ids and inject them. A missing tool skips with a
 * warning, unless {@code DRA4J_REQUIRE_PEERS=1}, which makes it fail.
 */
final class CdiPeers {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CdiPeers() {}

  /** Asserts that both validators load {@code specDir} and inject every id. */
  static void assertValid(Path specDir, List<String> ids) throws Exception {
    for (String tool : List.of("cdi-validate", "cdi-validate-v08")) {
      Path exe = find(tool);
      List<String> cmd = new ArrayList<>(List.of(exe.toString(), "-spec-dir", specDir.toString()));
      cmd.addAll(ids);
      Path err = Files.createTempFile("cdi", ".err");
      try {
        Process p =
            new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(err.toFile())
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        JsonNode report = out.isBlank() ? MAPPER.createObjectNode() : MAPPER.readTree(out);
        assertThat(p.exitValue())
            .as("%s %s: stderr %s report %s", tool, ids, Files.readString(err), report)
            .isZero();
        assertThat(report.path("ok").asBoolean()).as("%s ok: %s", tool, report).isTrue();
        assertThat(report.path("unresolvedDevices").size()).as("%s unresolved", tool).isZero();
        assertThat(report.path("errors").size()).as("%s errors", tool).isZero();
      } finally {
        Files.deleteIfExists(err);
      }
    }
  }

  private static Path find(String tool) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path p = Path.of(dir, tool);
        if (!dir.isEmpty() && Files.isExecutable(p)) {
          return p;
        }
      }
    }
    String msg = "peer tool " + tool + " is not on PATH (install with .ci/cdi-validate/install.sh)";
    if ("1".equals(System.getenv("DRA4J_REQUIRE_PEERS"))) {
      fail(msg + " [DRA4J_REQUIRE_PEERS=1]");
    }
    System.err.println("WARNING: skipping: " + msg);
    Assumptions.abort(msg);
    throw new AssertionError("unreachable");
  }
}
