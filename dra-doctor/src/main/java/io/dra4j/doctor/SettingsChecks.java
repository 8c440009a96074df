package io.dra4j.doctor;

import io.dra4j.doctor.DoctorReport.AlphaField;
import io.dra4j.doctor.DoctorReport.Scheduler;
import io.dra4j.doctor.Finding.Severity;
import io.dra4j.kube.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Section 7: risky settings the doctor can see from outside. Alpha DRA features show as fields in
 * stored objects; the scheduler's feature gates show on its command line where it runs as a pod in
 * kube-system (kubeadm and most self-managed clusters; managed control planes hide it).
 */
final class SettingsChecks {
  private SettingsChecks() {}

  static final String SCHEDULER_NAMESPACE = "kube-system";

  static DoctorReport.Settings settings(Cluster cluster, List<Finding> findings) {
    List<AlphaField> alpha = new ArrayList<>();
    alpha.addAll(AlphaFields.find("ResourceSlice", cluster.snapshot.slices()));
    alpha.addAll(AlphaFields.find("ResourceClaim", cluster.snapshot.claims()));
    for (AlphaField a : alpha) {
      findings.add(
          Finding.of(Severity.WARNING, "settings.alpha-field")
              .object(a.object())
              .message(
                  a.object()
                      + " uses "
                      + a.field()
                      + ", a field of "
                      + a.feature()
                      + " ("
                      + a.stage()
                      + " in 1.37): the gate is on in the API server, and such features may change"
                      + " incompatibly or go away between releases; keep them off production"
                      + " clusters"));
    }
    return new DoctorReport.Settings(alpha, scheduler(cluster, findings));
  }

  private static Scheduler scheduler(Cluster cluster, List<Finding> findings) {
    Optional<Pod> pod =
        cluster.snapshot.pods().stream()
            .filter(p -> p.metadata().namespace().equals(SCHEDULER_NAMESPACE))
            .filter(
                p ->
                    "kube-scheduler".equals(p.metadata().labels().get("component"))
                        || p.metadata().name().startsWith("kube-scheduler"))
            .findFirst();
    if (pod.isEmpty()) {
      findings.add(
          Finding.of(Severity.INFO, "settings.scheduler-unreadable")
              .message(
                  "the scheduler's configuration is not readable from here (no kube-scheduler pod"
                      + " in kube-system): check its --feature-gates by hand; SchedulerPreQueueingHints"
                      + " and the DRA alpha gates should be off in production"));
      return new Scheduler(false, Optional.empty(), Map.of());
    }
    Map<String, Boolean> gates = new TreeMap<>();
    for (Pod.Container c : pod.get().spec().containers()) {
      List<String> words = new ArrayList<>();
      words.addAll(strings(c.unknownFields().get("command")));
      words.addAll(strings(c.unknownFields().get("args")));
      gates.putAll(featureGates(words));
    }
    String source = "Pod " + Cluster.podKey(pod.get());
    gates.forEach(
        (gate, on) -> {
          if (on && AlphaFields.RISKY_SCHEDULER_GATES.contains(gate)) {
            findings.add(
                Finding.of(Severity.WARNING, "settings.scheduler-gate")
                    .object(source)
                    .message(
                        "the scheduler runs with --feature-gates "
                            + gate
                            + "=true, "
                            + (gate.equals("SchedulerPreQueueingHints")
                                ? "an alpha gate in 1.37 (KEP-6132) that changes how the"
                                    + " scheduler requeues pods waiting for claims"
                                : "off by default in 1.37")
                            + ": switch it off on production clusters"));
          }
        });
    return new Scheduler(true, Optional.of(source), gates);
  }

  private static List<String> strings(Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      for (Object o : list) {
        if (o != null) {
          out.add(o.toString());
        }
      }
    }
    return out;
  }

  /** {@code --feature-gates=A=true,B=false} (or the value as the next word), last one wins. */
  static Map<String, Boolean> featureGates(List<String> words) {
    Map<String, Boolean> gates = new TreeMap<>();
    for (int i = 0; i < words.size(); i++) {
      String w = words.get(i);
      String value;
      if (w.startsWith("--feature-gates=")) {
        value = w.substring("--feature-gates=".length());
      } else if (w.equals("--feature-gates") && i + 1 < words.size()) {
        value = words.get(++i);
      } else {
        continue;
      }
      for (String pair : value.split(",")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          gates.put(
              pair.substring(0, eq).strip(),
              pair.substring(eq + 1).strip().toLowerCase(Locale.ROOT).equals("true"));
        }
      }
    }
    return gates;
  }
}
