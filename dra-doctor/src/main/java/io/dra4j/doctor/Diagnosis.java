package io.dra4j.doctor;

import io.dra4j.cel.CelSelectors;
import io.dra4j.doctor.DoctorReport.Demand;
import io.dra4j.doctor.DoctorReport.Mapping;
import io.dra4j.doctor.DoctorReport.Supply;
import io.dra4j.doctor.DoctorReport.Unreadable;
import io.dra4j.doctor.DoctorReport.Versions;
import io.dra4j.doctor.Finding.Severity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The migration checklist as a pure function of a {@link ClusterSnapshot}: versions in {@link
 * VersionChecks}, demand and supply in {@link SupplyChecks}, the mapping in {@link MappingChecks},
 * claims and taints in {@link ClaimChecks}, risky settings in {@link SettingsChecks}. Each check
 * adds its {@link Finding}s; the worst decides the exit code, and this class assembles the report.
 */
final class Diagnosis {
  private final Cluster cluster;
  private final Optional<String> scope;
  private final CelSelectors cel;
  private final List<Finding> findings = new ArrayList<>();

  private Diagnosis(Cluster cluster, Optional<String> scope, CelSelectors cel) {
    this.cluster = cluster;
    this.scope = scope;
    this.cel = cel;
  }

  /**
   * Judges the cluster, or one node of it.
   *
   * @param node with a node, node-specific sections and findings cover only that node; the mapping,
   *     the settings and the API server's version stay cluster-wide, as they decide for every node
   */
  static DoctorReport diagnose(ClusterSnapshot snapshot, Optional<String> node, CelSelectors cel) {
    Cluster cluster = new Cluster(snapshot);
    if (node.isPresent()
        && !cluster.nodes.containsKey(node.get())
        && cluster.unreadable.stream().noneMatch(u -> u.what().equals("nodes"))) {
      cluster.unreadable.add(
          new Unreadable("node " + node.get(), "no Node named \"" + node.get() + "\" exists"));
    }
    return new Diagnosis(cluster, node, cel).run();
  }

  private DoctorReport run() {
    SupplyChecks supplyChecks = new SupplyChecks(cluster, scope, cel, findings);
    Map<String, Demand> demand = supplyChecks.demand();
    List<Supply> supply = supplyChecks.supply(demand);
    Versions versions = new VersionChecks(cluster, scope, findings).versions(supply);
    Mapping mapping = new MappingChecks(cluster, scope, cel, findings).mapping(demand);
    ClaimChecks claimChecks = new ClaimChecks(cluster, scope, findings);
    DoctorReport.Claims claims = claimChecks.claims();
    DoctorReport.Taints taints = claimChecks.taints();
    DoctorReport.Settings settings = SettingsChecks.settings(cluster, findings);

    List<Finding> sorted = new ArrayList<>(findings);
    sorted.sort(
        Comparator.comparing((Finding f) -> f.severity(), Comparator.reverseOrder())
            .thenComparing(Finding::check)
            .thenComparing(f -> f.node().orElse(""))
            .thenComparing(f -> f.resource().orElse(""))
            .thenComparing(f -> f.object().orElse("")));
    int exit;
    String verdict;
    Severity worst =
        sorted.stream().map(Finding::severity).max(Comparator.naturalOrder()).orElse(Severity.INFO);
    if (!cluster.unreadable.isEmpty()) {
      exit = DoctorReport.EXIT_UNREADABLE;
      verdict = "unreadable";
    } else {
      exit = worst.exitCode;
      verdict = worst == Severity.ERROR ? "errors" : worst == Severity.WARNING ? "warnings" : "ok";
    }
    return new DoctorReport(
        DoctorReport.SCHEMA_VERSION,
        cluster.snapshot.server(),
        scope,
        verdict,
        exit,
        versions,
        List.copyOf(demand.values()),
        supply,
        mapping,
        claims,
        taints,
        settings,
        List.copyOf(cluster.unreadable),
        List.copyOf(sorted));
  }
}
