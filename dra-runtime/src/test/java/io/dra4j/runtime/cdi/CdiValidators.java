package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the independent CDI validators (the reference Go library, v0.5.2 and v0.8.0; see
 * shared/tools/cdi-validate): they load a spec directory as container runtimes do, resolve the
 * qualified ids and inject them into an OCI spec.
 */
final class CdiValidators {
  static final String V05 = "cdi-validate";
  static final String V08 = "cdi-validate-v08";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CdiValidators() {}

  /** One run: exit code, JSON report (empty object with -q) and stderr. */
  record Result(String tool, int rc, JsonNode report, String stderr) {
    void assertOk() {
      assertThat(rc)
          .as("%s exit code; stderr:%n%s%nreport:%n%s", tool, stderr, report.toPrettyString())
          .isZero();
      assertThat(report.path("ok").asBoolean()).as("%s report ok", tool).isTrue();
    }

    /** {@code oci.env} of the report. */
    List<String> ociEnv() {
      List<String> env = new ArrayList<>();
      report.path("oci").path("env").forEach(n -> env.add(n.asText()));
      return env;
    }
  }

  static Result run(String tool, Path specDir, List<String> qualifiedIds)
      throws IOException, InterruptedException {
    Path exe = PeerTools.require(tool, "independent CDI spec validation");
    List<String> cmd = new ArrayList<>(List.of(exe.toString(), "-spec-dir", specDir.toString()));
    cmd.addAll(qualifiedIds);
    Path errFile = Files.createTempFile("cdi-validate", ".err");
    try {
      // stderr to a file so neither pipe can fill up and block the tool.
      Process p =
          new ProcessBuilder(cmd)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectError(errFile.toFile())
              .start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(tool + " did not finish");
      }
      String stdout = new String(out, StandardCharsets.UTF_8);
      JsonNode report = stdout.isBlank() ? MAPPER.createObjectNode() : MAPPER.readTree(stdout);
      return new Result(tool, p.exitValue(), report, Files.readString(errFile));
    } finally {
      Files.deleteIfExists(errFile);
    }
  }

  /** Runs both validators and asserts that each loads the specs and injects every id. */
  static List<Result> assertValid(Path specDir, List<String> qualifiedIds)
      throws IOException, InterruptedException {
    List<Result> results = new ArrayList<>();
    for (String tool : List.of(V05, V08)) {
      Result r = run(tool, specDir, qualifiedIds);
      r.assertOk();
      assertThat(r.report.path("unresolvedDevices").size()).as("%s unresolved", tool).isZero();
      assertThat(r.report.path("errors").size()).as("%s errors", tool).isZero();
      results.add(r);
    }
    return results;
  }
}
