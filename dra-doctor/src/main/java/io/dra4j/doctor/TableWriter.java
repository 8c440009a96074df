package io.dra4j.doctor;

import io.dra4j.doctor.DoctorReport.AlphaField;
import io.dra4j.doctor.DoctorReport.Demand;
import io.dra4j.doctor.DoctorReport.ExtendedClaim;
import io.dra4j.doctor.DoctorReport.InvalidName;
import io.dra4j.doctor.DoctorReport.MappedName;
import io.dra4j.doctor.DoctorReport.NodeVersion;
import io.dra4j.doctor.DoctorReport.PendingClaim;
import io.dra4j.doctor.DoctorReport.PodClaimStatus;
import io.dra4j.doctor.DoctorReport.Rule;
import io.dra4j.doctor.DoctorReport.Supply;
import io.dra4j.doctor.DoctorReport.TaintedAllocation;
import io.dra4j.doctor.DoctorReport.TaintedDevice;
import io.dra4j.doctor.DoctorReport.Unreadable;
import io.dra4j.doctor.DoctorReport.UnusableName;
import io.dra4j.doctor.Finding.Severity;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The report for a person: one table per section, findings last, ANSI colour on request. */
final class TableWriter {
  private static final String RED = "\u001b[31m";
  private static final String YELLOW = "\u001b[33m";
  private static final String GREEN = "\u001b[32m";
  private static final String BOLD = "\u001b[1m";
  private static final String RESET = "\u001b[0m";

  private final PrintStream out;
  private final boolean color;

  private TableWriter(PrintStream out, boolean color) {
    this.out = out;
    this.color = color;
  }

  static void write(DoctorReport r, PrintStream out, boolean color) {
    new TableWriter(out, color).report(r);
  }

  private void report(DoctorReport r) {
    out.println(
        bold(
            "dra4j doctor: "
                + r.server()
                + r.versions().apiServer().map(v -> " (" + v + ")").orElse("")
                + r.node().map(n -> ", node " + n).orElse(", all nodes")));

    section("1. Versions");
    Table versions = new Table("NODE", "KUBELET", "SERVED THROUGH DRA");
    for (NodeVersion n : r.versions().nodes()) {
      versions.row(n.node(), n.kubelet().orElse("unknown"), join(n.draServedResources()));
    }
    versions.print();

    section("2. Demand (extended resources pods request)");
    Table demand = new Table("RESOURCE", "PODS", "PENDING", "NAMESPACES");
    for (Demand d : r.demand()) {
      demand.row(
          d.resource(),
          Integer.toString(d.pods()),
          Integer.toString(d.pendingPods()),
          d.namespaces().entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining(", ")));
    }
    demand.print();

    section("3. Supply per node");
    Table supply =
        new Table(
            "NODE",
            "RESOURCE",
            "SERVED BY",
            "PHASE",
            "CAPACITY",
            "ALLOCATABLE",
            "DEVICECLASS",
            "DRA DEVICES",
            "PODS");
    for (Supply s : r.supply()) {
      supply.row(
          s.node(),
          s.resource(),
          servedBy(s.servedBy()),
          phase(s),
          s.capacity().orElse("-"),
          s.allocatable().orElse("-"),
          s.deviceClass().orElse("-"),
          s.draDevices() == 0
              ? "0"
              : s.draDevices()
                  + " ("
                  + s.untaintedDraDevices()
                  + " untainted; "
                  + join(s.drivers())
                  + ")",
          Integer.toString(s.podsOnNode()));
    }
    supply.print();

    section("4. Mapping (extended resource name -> DeviceClass)");
    Table names = new Table("RESOURCE", "FORM", "DEVICECLASS", "IGNORED CLASSES");
    for (MappedName m : r.mapping().names()) {
      names.row(m.resource(), m.form(), m.deviceClass(), join(m.ignoredClasses()));
    }
    names.print();
    if (!r.mapping().unusableImplicitNames().isEmpty()) {
      out.println("  implicit names no pod can request:");
      Table t = new Table("DEVICECLASS", "IMPLICIT NAME", "WHY");
      for (UnusableName u : r.mapping().unusableImplicitNames()) {
        t.row(u.deviceClass(), u.resource(), u.reason());
      }
      t.print();
    }
    if (!r.mapping().invalidNames().isEmpty()) {
      out.println("  extendedResourceName values the scheduler ignores:");
      Table t = new Table("DEVICECLASS", "NAME", "WHY");
      for (InvalidName u : r.mapping().invalidNames()) {
        t.row(u.deviceClass(), u.resource(), u.reason());
      }
      t.print();
    }

    section("5. Claims");
    out.println("  claims the scheduler created for extended resources:");
    Table ext = new Table("CLAIM", "POD", "ALLOCATED", "NODE", "DEVICES");
    for (ExtendedClaim c : r.claims().extendedResourceClaims()) {
      ext.row(
          c.namespace() + "/" + c.name(),
          c.pod().orElse("-") + (c.podExists() ? "" : " (gone)"),
          c.allocated() ? "yes" : "no",
          c.node().orElse("-"),
          join(c.devices()));
    }
    ext.print();
    out.println("  pods with status.extendedResourceClaimStatus:");
    Table pods = new Table("POD", "NODE", "CLAIM", "REQUESTS");
    for (PodClaimStatus p : r.claims().podsWithExtendedResourceClaimStatus()) {
      pods.row(
          p.namespace() + "/" + p.pod(),
          p.node().orElse("-"),
          p.claim() + (p.claimExists() ? "" : " (missing)"),
          join(p.requests()));
    }
    pods.print();
    out.println("  claims pending allocation:");
    Table pending = new Table("CLAIM", "EXTENDED-RESOURCE CLAIM");
    for (PendingClaim p : r.claims().pendingAllocation()) {
      pending.row(p.namespace() + "/" + p.name(), p.extendedResourceClaim() ? "yes" : "no");
    }
    pending.print();
    out.println("  allocated devices now tainted NoExecute:");
    Table tainted = new Table("CLAIM", "DEVICE", "TAINT", "FROM", "TOLERATED");
    for (TaintedAllocation t : r.claims().onNoExecuteTaintedDevices()) {
      tainted.row(
          t.namespace() + "/" + t.claim(),
          t.device(),
          t.taint(),
          t.source(),
          t.tolerated() ? "yes" : "no");
    }
    tainted.print();

    section(
        "6. Taints"
            + r.taints().ruleApiVersion().map(v -> " (DeviceTaintRules: " + v + ")").orElse(""));
    out.println("  DeviceTaintRules:");
    Table rules = new Table("RULE", "TAINT", "SELECTOR", "DEVICES", "DRY RUN (effect None)");
    for (Rule rule : r.taints().rules()) {
      rules.row(
          rule.name(),
          rule.key() + (rule.value().isEmpty() ? "" : "=" + rule.value()) + ":" + rule.effect(),
          "driver="
              + rule.driver().orElse("*")
              + " pool="
              + rule.pool().orElse("*")
              + " device="
              + rule.device().orElse("*"),
          Integer.toString(rule.selectedDevices()),
          rule.dryRun()
              .map(
                  d ->
                      d.publishedDevices()
                          + " published, "
                          + d.allocatedDevices()
                          + " allocated, "
                          + d.pods()
                          + " pods in "
                          + d.namespaces()
                          + " namespaces")
              .orElse("-"));
    }
    rules.print();
    out.println("  devices tainted by their drivers:");
    Table devices = new Table("NODE", "DEVICE", "TAINT");
    for (TaintedDevice d : r.taints().devices()) {
      devices.row(
          d.node().orElse("-"),
          d.driver() + "/" + d.pool() + "/" + d.device(),
          d.key() + (d.value().isEmpty() ? "" : "=" + d.value()) + ":" + d.effect());
    }
    devices.print();

    section("7. Risky settings");
    out.println("  alpha features in use:");
    Table alpha = new Table("FEATURE", "STAGE", "OBJECT", "FIELD");
    for (AlphaField a : r.settings().alphaFields()) {
      alpha.row(a.feature(), a.stage(), a.object(), a.field());
    }
    alpha.print();
    out.println(
        "  scheduler: "
            + (r.settings().scheduler().readable()
                ? r.settings().scheduler().source().orElse("")
                    + ", feature gates "
                    + (r.settings().scheduler().featureGates().isEmpty()
                        ? "(defaults)"
                        : gates(r.settings().scheduler().featureGates()))
                : "not readable from the API (no kube-scheduler pod in kube-system)"));

    if (!r.unreadable().isEmpty()) {
      section("Could not read");
      Table t = new Table("WHAT", "ERROR");
      for (Unreadable u : r.unreadable()) {
        t.row(u.what(), u.error());
      }
      t.print();
    }

    section("Findings");
    if (r.findings().isEmpty()) {
      out.println("  (none)");
    }
    for (Finding f : r.findings()) {
      out.println("  " + severity(f.severity()) + "  " + f.check() + ": " + f.message());
    }
    out.println();
    long errors = count(r, Severity.ERROR);
    long warnings = count(r, Severity.WARNING);
    long notes = count(r, Severity.INFO);
    String summary =
        "verdict: "
            + r.verdict()
            + " ("
            + errors
            + " error(s), "
            + warnings
            + " warning(s), "
            + notes
            + " note(s)"
            + (r.unreadable().isEmpty() ? "" : ", " + r.unreadable().size() + " unreadable")
            + "), exit "
            + r.exitCode();
    out.println(bold(paint(summary, r.exitCode() == 0 ? GREEN : r.exitCode() == 1 ? YELLOW : RED)));
  }

  private static long count(DoctorReport r, Severity s) {
    return r.findings().stream().filter(f -> f.severity() == s).count();
  }

  private static String gates(Map<String, Boolean> gates) {
    return gates.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(","));
  }

  private static String join(List<String> items) {
    return items.isEmpty() ? "-" : String.join(", ", items);
  }

  private void section(String title) {
    out.println();
    out.println(bold(title));
  }

  private String servedBy(String value) {
    switch (value) {
      case "both":
        return paint("BOTH (conflict)", RED);
      case "dra":
        return paint("DRA", GREEN);
      case "device-plugin":
        return "device plugin";
      default:
        return paint("none", YELLOW);
    }
  }

  private String phase(Supply s) {
    SupplyPhase p = SupplyPhase.fromJson(s.phase());
    String words = p.words(s.deviceClass().isPresent(), s.draDevices());
    return p == SupplyPhase.CONFLICT ? paint(words, RED) : words;
  }

  private String severity(Severity s) {
    switch (s) {
      case ERROR:
        return paint("ERROR", RED);
      case WARNING:
        return paint("WARN ", YELLOW);
      default:
        return "info ";
    }
  }

  private String paint(String text, String code) {
    return color ? code + text + RESET : text;
  }

  private String bold(String text) {
    return color ? BOLD + text + RESET : text;
  }

  /** Columns padded to the widest cell; colour codes do not count towards the width. */
  private final class Table {
    private final List<String[]> rows = new ArrayList<>();
    private final String[] header;

    Table(String... header) {
      this.header = header;
    }

    void row(String... cells) {
      rows.add(cells);
    }

    void print() {
      if (rows.isEmpty()) {
        out.println("  (none)");
        return;
      }
      int[] width = new int[header.length];
      for (int i = 0; i < header.length; i++) {
        width[i] = header[i].length();
        for (String[] r : rows) {
          width[i] = Math.max(width[i], visible(r[i]));
        }
      }
      line(header, width);
      for (String[] r : rows) {
        line(r, width);
      }
    }

    private void line(String[] cells, int[] width) {
      StringBuilder b = new StringBuilder("  ");
      for (int i = 0; i < cells.length; i++) {
        b.append(cells[i]);
        if (i < cells.length - 1) {
          b.append(" ".repeat(width[i] - visible(cells[i]) + 2));
        }
      }
      out.println(b.toString().stripTrailing());
    }

    private int visible(String s) {
      return s.replaceAll("\u001b\\[[0-9;]*m", "").length();
    }
  }
}
