package io.dra4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.cel.CelSelectors;
import io.dra4j.kube.KubeJson;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The pure parts of the doctor, for what the test kit's API server cannot hold or show: an older
 * API server, fields of alpha features the typed model does not know, command-line parsing.
 */
class DiagnosisTest {

  static ClusterSnapshot snapshot(
      Optional<String> version, List<JsonNode> slices, List<JsonNode> claims) {
    return new ClusterSnapshot(
        "https://127.0.0.1:6443",
        version,
        List.of(),
        List.of(),
        List.of(),
        slices,
        claims,
        List.of(),
        Optional.of("resource.k8s.io/v1"),
        List.of());
  }

  static JsonNode yaml(String text) throws Exception {
    return KubeJson.yaml().readTree(text);
  }

  @Test
  void anApiServerOlderThan137IsAWarning() {
    DoctorReport r =
        Diagnosis.diagnose(
            snapshot(Optional.of("v1.36.2"), List.of(), List.of()),
            Optional.empty(),
            new CelSelectors());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.findings())
        .anySatisfy(
            f -> {
              assertThat(f.check()).isEqualTo("versions.api-server");
              assertThat(f.message()).contains("v1.36.2", "beta there");
            });
    DoctorReport ok =
        Diagnosis.diagnose(
            snapshot(Optional.of("v1.37.2"), List.of(), List.of()),
            Optional.empty(),
            new CelSelectors());
    assertThat(ok.findings()).noneMatch(f -> f.check().startsWith("versions."));
  }

  @Test
  void versionsParseAsReleasesReportThem() {
    assertThat(KubeVersion.parse("v1.37.2")).contains(new KubeVersion(1, 37));
    assertThat(KubeVersion.parse("v1.36.4-eks-1a2b")).contains(new KubeVersion(1, 36));
    assertThat(KubeVersion.parse("v1.38.0+k3s1")).contains(new KubeVersion(1, 38));
    assertThat(KubeVersion.parse("garbage")).isEmpty();
    assertThat(new KubeVersion(1, 36).below(KubeVersion.V1_37)).isTrue();
  }

  @Test
  void alphaFieldsTheTypedModelDropsAreFoundInTheRawObjects() throws Exception {
    JsonNode slice =
        yaml(
            "metadata: {name: s}\n"
                + "spec:\n  driver: d\n  nodeName: n\n  pool: {name: n, generation: 1,"
                + " resourceSliceCount: 1}\n  skipNodeOperations: ['*']\n  devices:\n"
                + "  - name: a\n    consumesCounters: [{counterSet: c, counters: {mem: {value: 1}},"
                + " compatibilityGroups: [g1]}]\n");
    JsonNode claim =
        yaml(
            "metadata: {name: c, namespace: ns}\n"
                + "spec:\n  devices:\n    requests: [{name: r, exactly: {deviceClassName: x,"
                + " derivedAttributes: [{name: z, expression: 'true'}]}}]\n"
                + "status:\n  reservedFor: [{apiGroup: scheduling.k8s.io, resource: podgroups,"
                + " name: g, uid: u}]\n");
    DoctorReport r =
        Diagnosis.diagnose(
            snapshot(Optional.of("v1.37.2"), List.of(slice), List.of(claim)),
            Optional.empty(),
            new CelSelectors());
    assertThat(r.settings().alphaFields())
        .extracting(a -> a.feature() + " " + a.object() + " " + a.field())
        .containsExactlyInAnyOrder(
            "DRAOptionalNodeOperations ResourceSlice s spec.skipNodeOperations",
            "DRADeviceCompatibilityGroups ResourceSlice s"
                + " spec.devices[0].consumesCounters[0].compatibilityGroups",
            "DRADerivedAttributes ResourceClaim ns/c"
                + " spec.devices.requests[0].exactly.derivedAttributes",
            "DRAWorkloadResourceClaims ResourceClaim ns/c status.reservedFor[0].resource");
    assertThat(r.exitCode()).isEqualTo(1);
  }

  @Test
  void aSliceTheModelCannotReadIsNamedWithItsField() throws Exception {
    JsonNode slice =
        yaml(
            "metadata: {name: bad}\n"
                + "spec:\n  driver: d\n  nodeName: n\n  pool: {name: n, generation: 1,"
                + " resourceSliceCount: 1}\n  devices:\n"
                // A taint without its required key (an unknown effect reads: it acts as None).
                + "  - name: a\n    taints: [{effect: NoSchedule}]\n");
    DoctorReport r =
        Diagnosis.diagnose(
            snapshot(Optional.of("v1.37.2"), List.of(slice), List.of()),
            Optional.empty(),
            new CelSelectors());
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.what()).isEqualTo("ResourceSlice bad");
              assertThat(u.error()).startsWith("not a valid ResourceSlice at spec.devices[0]");
              assertThat(u.error()).doesNotContain("io.dra4j", "`");
            });
  }

  @Test
  void featureGatesFromTheCommandLine() {
    assertThat(
            SettingsChecks.featureGates(
                List.of(
                    "kube-scheduler",
                    "--feature-gates=A=true,B=false",
                    "--feature-gates",
                    "C=True,A=false")))
        .containsEntry("A", false)
        .containsEntry("B", false)
        .containsEntry("C", true);
  }

  @Test
  void nothingReadMeansUnreadable() {
    ClusterSnapshot s =
        new ClusterSnapshot(
            "https://127.0.0.1:1",
            Optional.empty(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            Optional.empty(),
            List.of(new DoctorReport.Unreadable("/version", "connection refused")));
    DoctorReport r = Diagnosis.diagnose(s, Optional.empty(), new CelSelectors());
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.verdict()).isEqualTo("unreadable");
  }
}
