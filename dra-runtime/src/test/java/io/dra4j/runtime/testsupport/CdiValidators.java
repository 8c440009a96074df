package io.dra4j.runtime.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the independent CDI validators (the reference Go library, v0.5.2 and v0.8.0, installed by
 * .ci/run): they load a spec directory as container runtimes do, resolve the qualified ids and
 * inject them into an OCI spec.
 */
public final class CdiValidators {
  public static final String V05 = "cdi-validate";
  public static final String V08 = "cdi-validate-v08";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CdiValidators() {}

  /** One run: exit code, JSON report (empty object with -q) and stderr. */
  public record Result(String tool, int rc, JsonNode report, String stderr) {
    public void assertOk() {
      assertThat(rc)
          .as("%s exit code; stderr:%n%s%nreport:%n%s", tool, stderr, report.toPrettyString())
          .isZero();
      assertThat(report.path("ok").asBoolean()).as("%s report ok", tool).isTrue();
    }

    /** {@code oci.env} of the report. */
    public List<String> ociEnv() {
      List<String> env = new ArrayList<>();
      report.path("oci").path("env").forEach(n -> env.add(n.asText()));
      return env;
    }
  }

  /**
   * Whether {@link #assertValid} can run: both validators are installed, or peers are required (so
   * that a missing one fails loudly instead of being skipped).
   */
  public static boolean available() {
    return PeerTools.required()
        || (PeerTools.find(V05).isPresent() && PeerTools.find(V08).isPresent());
  }

  public static Result run(String tool, Path specDir, List<String> qualifiedIds)
      throws IOException, InterruptedException {
    Path exe = PeerTools.require(tool, "independent CDI spec validation");
    List<String> cmd = new ArrayList<>(List.of(exe.toString(), "-spec-dir", specDir.toString()));
    cmd.addAll(qualifiedIds);
    PeerTools.Output out = PeerTools.exec(cmd, Duration.ofSeconds(60));
    JsonNode report =
        out.stdout().isBlank() ? MAPPER.createObjectNode() : MAPPER.readTree(out.stdout());
    return new Result(tool, out.exitCode(), report, out.stderr());
  }

  /** Runs both validators and asserts that each loads the specs and injects every id. */
  public static List<Result> assertValid(Path specDir, List<String> qualifiedIds)
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
