package io.dra4j.doctor;

import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.SelectorCompileException;
import io.dra4j.doctor.DoctorReport.Demand;
import io.dra4j.doctor.DoctorReport.InvalidName;
import io.dra4j.doctor.DoctorReport.MappedName;
import io.dra4j.doctor.DoctorReport.Mapping;
import io.dra4j.doctor.DoctorReport.UnusableName;
import io.dra4j.doctor.Finding.Severity;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.Pod;
import io.dra4j.runtime.extendedresource.ExtendedResourceNames;
import io.dra4j.runtime.internal.extendedresource.GuardEvaluator;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Section 4: how the scheduler maps extended resource names to DeviceClasses, and what makes a
 * mapping miss: duplicate and invalid names, unusable implicit names, selectors the doctor cannot
 * evaluate, a scheduler that missed a class, and classes created after the pods that need them.
 */
final class MappingChecks {
  private final Cluster cluster;
  private final Optional<String> scope;
  private final CelSelectors cel;
  private final List<Finding> findings;

  MappingChecks(Cluster cluster, Optional<String> scope, CelSelectors cel, List<Finding> findings) {
    this.cluster = cluster;
    this.scope = scope;
    this.cel = cel;
    this.findings = findings;
  }

  Mapping mapping(Map<String, Demand> demand) {
    GuardEvaluator.Mapping m = cluster.mapping;
    List<MappedName> names = new ArrayList<>();
    m.effective()
        .forEach(
            (name, c) -> {
              boolean implicit = Cluster.isImplicit(name);
              if (implicit
                  && c.spec().extendedResourceName().isPresent()
                  && !demand.containsKey(name)) {
                return; // listed under its explicit name
              }
              List<String> ignored =
                  m.duplicates().getOrDefault(name, List.of()).stream()
                      .skip(1)
                      .map(dc -> dc.metadata().name())
                      .toList();
              names.add(
                  new MappedName(
                      name, implicit ? "implicit" : "explicit", c.metadata().name(), ignored));
            });
    m.duplicates()
        .forEach(
            (name, ordered) -> {
              String winner = ordered.get(0).metadata().name();
              List<String> losers =
                  ordered.stream().skip(1).map(dc -> dc.metadata().name()).toList();
              findings.add(
                  Finding.of(Severity.WARNING, "mapping.duplicate")
                      .resource(name)
                      .object("DeviceClass " + winner)
                      .message(
                          "DeviceClasses "
                              + ordered.stream()
                                  .map(dc -> dc.metadata().name())
                                  .reduce((a, b) -> a + ", " + b)
                                  .orElse("")
                              + " all set extendedResourceName "
                              + name
                              + "; the scheduler uses "
                              + winner
                              + " (the newest; equal creation times go to the first name) and"
                              + " ignores "
                              + String.join(", ", losers)
                              + " (a newer class silently takes a name over). Mind how you undo"
                              + " this: the scheduler keeps its names from DeviceClass events, so"
                              + " deleting any of these classes, or changing its"
                              + " extendedResourceName, removes "
                              + name
                              + " from the running scheduler even while "
                              + winner
                              + " still carries it, and pods asking for it stay Pending"
                              + " (\"Insufficient "
                              + name
                              + "\") until a class carrying it is updated (a label will do) or"
                              + " the scheduler restarts; a class that lost the name when the"
                              + " scheduler saw it has no deviceclass.resource.kubernetes.io/ name"
                              + " there either. Delete or rename the ones you do not mean, then"
                              + " update "
                              + winner));
            });
    judgeSchedulerMapping();
    List<UnusableName> unusable = new ArrayList<>();
    for (DeviceClass c : m.unusableImplicit()) {
      String cn = c.metadata().name();
      String reason = String.join("; ", ExtendedResourceNames.implicit(cn));
      unusable.add(new UnusableName(cn, ExtendedResourceNames.implicitName(cn), reason));
      findings.add(
          Finding.of(Severity.INFO, "mapping.implicit-name-unusable")
              .object("DeviceClass " + cn)
              .message(
                  "no pod can request DeviceClass "
                      + cn
                      + " as "
                      + ExtendedResourceNames.implicitName(cn)
                      + " ("
                      + reason
                      + ")"
                      + (c.spec().extendedResourceName().isPresent()
                          ? "; its extendedResourceName "
                              + c.spec().extendedResourceName().get()
                              + " still works"
                          : "; set spec.extendedResourceName if pods should ask for it by name")));
    }
    List<InvalidName> invalid = new ArrayList<>();
    for (DeviceClass c : cluster.classes.values()) {
      String cn = c.metadata().name();
      c.spec()
          .extendedResourceName()
          .ifPresent(
              n -> {
                List<String> bad = ExtendedResourceNames.explicit(n);
                if (!bad.isEmpty()) {
                  String reason = String.join("; ", bad);
                  invalid.add(new InvalidName(cn, n, reason));
                  findings.add(
                      Finding.of(Severity.WARNING, "mapping.invalid-name")
                          .resource(n)
                          .object("DeviceClass " + cn)
                          .message(
                              "DeviceClass "
                                  + cn
                                  + ": spec.extendedResourceName \""
                                  + n
                                  + "\" is ignored by the scheduler, it "
                                  + reason));
                }
              });
      judgeSelectors(c);
    }
    judgeClassAge(demand);
    return new Mapping(names, unusable, invalid);
  }

  /**
   * Pending pods that the scheduler refused with {@code Insufficient <name>} on more nodes than
   * make the name allocatable, for a name a DeviceClass maps: the scheduler had no class for the
   * name.
   *
   * <p>kube-scheduler leaves a name to DRA when the node's allocatable for it is 0 and its own
   * cache maps the name to a class ({@code noderesources/fit.go:273-291}); otherwise
   * NodeResourcesFit reports {@code Insufficient <name>} for a node that does not make it
   * allocatable (765-795), one count per node in the pod's condition ({@code
   * framework/types.go:1469-1520} FitError). That cache ({@code
   * k8s.io/dynamic-resource-allocation@v0.37.2
   * deviceclass/extendedresourcecache/extendedresourcecache.go}) changes one DeviceClass event at a
   * time: a deleted class removes its explicit name whichever class holds it (229-241), an update
   * removes its old name the same way (189-195), and nothing puts the name back until a class
   * carrying it is added or updated.
   */
  private void judgeSchedulerMapping() {
    Map<String, List<String>> refused = new TreeMap<>();
    for (Pod p : cluster.livePods) {
      if (!p.spec().nodeName().isEmpty()) {
        continue;
      }
      String why = unschedulableMessage(p);
      // The preemption part repeats the node count with its own reasons.
      int preemption = why.indexOf(" preemption:");
      String filters = preemption < 0 ? why : why.substring(0, preemption);
      for (String name : Cluster.requestedNames(p)) {
        if (!cluster.mapping.effective().containsKey(name)) {
          continue;
        }
        Matcher m =
            Pattern.compile("(\\d+) Insufficient " + Pattern.quote(name) + "[,.]").matcher(filters);
        long allocatable =
            cluster.nodes.values().stream()
                .filter(n -> Cluster.positive(n.status().allocatable().get(name)))
                .count();
        if (m.find() && Long.parseLong(m.group(1)) > allocatable) {
          refused.computeIfAbsent(name, k -> new ArrayList<>()).add(Cluster.podKey(p));
        }
      }
    }
    refused.forEach(
        (name, pods) -> {
          String cn = cluster.className(name);
          String update =
              "(a label will do: kubectl label deviceclass %s dra4j.io/touched=$(date +%%s)"
                  + " --overwrite)";
          // An implicit name of a class that lost its explicit name to another.
          Optional<Map.Entry<String, List<DeviceClass>>> lost =
              cluster.mapping.duplicates().entrySet().stream()
                  .filter(e -> Cluster.isImplicit(name))
                  .filter(
                      e ->
                          e.getValue().stream()
                              .skip(1)
                              .anyMatch(c -> c.metadata().name().equals(cn)))
                  .findFirst();
          String advice =
              lost.map(
                      e -> {
                        String winner = e.getValue().get(0).metadata().name();
                        return "DeviceClass "
                            + cn
                            + " also carries extendedResourceName "
                            + e.getKey()
                            + ", which "
                            + winner
                            + " holds, and a class that loses its extendedResourceName when the"
                            + " scheduler sees it gets no implicit name there either. Ask for "
                            + e.getKey()
                            + " instead, or remove extendedResourceName from "
                            + cn
                            + " and then update DeviceClass "
                            + winner
                            + " "
                            + update.formatted(winner);
                      })
                  .orElse(
                      "The scheduler keeps its names from DeviceClass events: deleting a class"
                          + " that carried the name too (or changing its extendedResourceName)"
                          + " removes it even while another class carries it. Update DeviceClass "
                          + cn
                          + " "
                          + update.formatted(cn)
                          + " or restart the scheduler; the pods are retried then");
          findings.add(
              Finding.of(Severity.WARNING, "mapping.scheduler-unmapped")
                  .resource(name)
                  .object("DeviceClass " + cn)
                  .message(
                      pods.size()
                          + " pending pod(s) asking for "
                          + name
                          + " ("
                          + String.join(", ", pods.subList(0, Math.min(5, pods.size())))
                          + (pods.size() > 5 ? " …" : "")
                          + ") were refused with \"Insufficient "
                          + name
                          + "\" by nodes that do not make it allocatable: when the scheduler"
                          + " last tried, it mapped "
                          + name
                          + " to no DeviceClass, though DeviceClass "
                          + cn
                          + " maps it as the classes stand now. "
                          + advice));
        });
  }

  /** The message of a pod's {@code PodScheduled=False} condition, or empty. */
  private static String unschedulableMessage(Pod p) {
    if (p.status().unknownFields().get("conditions") instanceof List<?> conditions) {
      for (Object o : conditions) {
        if (o instanceof Map<?, ?> c
            && "PodScheduled".equals(c.get("type"))
            && "False".equals(c.get("status"))
            && c.get("message") instanceof String message) {
          return message;
        }
      }
    }
    return "";
  }

  private void judgeSelectors(DeviceClass c) {
    List<DeviceSelector> selectors = c.spec().selectors();
    for (int i = 0; i < selectors.size(); i++) {
      Optional<DeviceSelector.Cel> expr = selectors.get(i).cel();
      String problem;
      if (expr.isEmpty()) {
        problem = "is not a CEL selector";
      } else {
        try {
          cel.compile(expr.get().expression());
          continue;
        } catch (SelectorCompileException e) {
          problem = "does not compile (" + e.getMessage() + ")";
        }
      }
      findings.add(
          Finding.of(Severity.WARNING, "mapping.selector-not-evaluated")
              .object("DeviceClass " + c.metadata().name())
              .message(
                  "DeviceClass "
                      + c.metadata().name()
                      + ": spec.selectors["
                      + i
                      + "] "
                      + problem
                      + "; the doctor counts it as accepting every device, so its supply figures"
                      + " may be too high"));
    }
  }

  /** Pods that asked for a name before the class that maps it existed. */
  private void judgeClassAge(Map<String, Demand> demand) {
    for (String name : demand.keySet()) {
      DeviceClass c = cluster.mapping.effective().get(name);
      if (c == null) {
        continue;
      }
      Optional<Instant> created = time(c.metadata().creationTimestamp());
      if (created.isEmpty()) {
        continue;
      }
      List<Pod> older = new ArrayList<>();
      for (Pod p : cluster.livePods) {
        if (!Cluster.inScope(scope, p.spec().nodeName())) {
          continue;
        }
        Optional<Instant> t = time(p.metadata().creationTimestamp());
        // A pod with the scheduler's claim in its status was scheduled through the class.
        if (p.status().extendedResourceClaimStatus().isEmpty()
            && t.isPresent()
            && t.get().isBefore(created.get())
            && Cluster.requestedNames(p).contains(name)) {
          older.add(p);
        }
      }
      if (older.isEmpty()) {
        continue;
      }
      long pending = older.stream().filter(p -> p.spec().nodeName().isEmpty()).count();
      findings.add(
          Finding.of(Severity.WARNING, "mapping.class-after-pods")
              .resource(name)
              .object("DeviceClass " + c.metadata().name())
              .message(
                  "DeviceClass "
                      + c.metadata().name()
                      + " (created "
                      + c.metadata().creationTimestamp()
                      + ") maps "
                      + name
                      + ", but "
                      + older.size()
                      + " pod(s) that request it are older ("
                      + older.stream().limit(5).map(Cluster::podKey).toList()
                      + (older.size() > 5 ? " …" : "")
                      + "): "
                      + (pending > 0
                          ? pending
                              + " still pending were judged without the mapping and wait for the"
                              + " scheduler to retry them; "
                          : "")
                      + "running ones got "
                      + name
                      + " from a device plugin, not from this class; recreate them where they"
                      + " should use DRA"));
    }
  }

  private static Optional<Instant> time(String rfc3339) {
    if (rfc3339.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(OffsetDateTime.parse(rfc3339).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
