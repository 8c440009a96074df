package io.dra4j.testkit.allocator;

import io.dra4j.api.device.DeviceTaint;
import io.dra4j.kube.Node;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * Why a claim cannot be allocated, once the search failed: the first request that cannot get its
 * devices even on its own, with how many devices fail for which reason and an example of each; else
 * the constraints that no combination meets.
 */
final class WhyNot {
  private final List<Wanted.Group> groups;
  private final List<Constraint> constraints;
  private final List<Candidate> candidates;
  private final Pool.Scan scan;
  private final Node node;
  private final AllocatedState state;
  private final Selection selection;
  private final Placements placements;
  private final BiFunction<String, String, AllocationOutcome.Unsatisfiable> unsatisfiable;

  WhyNot(
      List<Wanted.Group> groups,
      List<Constraint> constraints,
      List<Candidate> candidates,
      Pool.Scan scan,
      Node node,
      AllocatedState state,
      Selection selection,
      Placements placements,
      BiFunction<String, String, AllocationOutcome.Unsatisfiable> unsatisfiable) {
    this.groups = groups;
    this.constraints = constraints;
    this.candidates = candidates;
    this.scan = scan;
    this.node = node;
    this.state = state;
    this.selection = selection;
    this.placements = placements;
    this.unsatisfiable = unsatisfiable;
  }

  AllocationOutcome diagnose() {
    selection.startDiagnosing();
    for (Wanted.Group g : groups) {
      List<String> whyNot = new ArrayList<>();
      boolean someFit = false;
      for (Wanted w : g.alternatives) {
        String problem = problem(w);
        if (problem.isEmpty()) {
          someFit = true;
          break;
        }
        whyNot.add(g.firstAvailable ? "subrequest " + w.subRequest + ": " + problem : problem);
      }
      if (!someFit) {
        String reason =
            g.firstAvailable
                ? "none of its "
                    + g.alternatives.size()
                    + " subrequests can be satisfied: "
                    + String.join("; ", whyNot)
                : whyNot.get(0);
        return unsatisfiable.apply(g.name, reason + poolNotes());
      }
    }
    StringBuilder reason =
        new StringBuilder(
            "every request can be satisfied on its own, but no combination of devices satisfies"
                + " all of them together");
    if (!constraints.isEmpty()) {
      reason.append(" with the constraints (");
      for (int i = 0; i < constraints.size(); i++) {
        reason.append(i == 0 ? "" : ", ").append(constraints.get(i).describe());
      }
      reason.append(')');
    }
    return unsatisfiable.apply("", reason + poolNotes());
  }

  /** Why the request cannot get its devices even on its own; empty when it could. */
  private String problem(Wanted w) {
    String kind =
        w.all
            ? "all matching devices of class \"" + w.className() + "\""
            : w.count
                + (w.count == 1 ? " device" : " devices")
                + " of class \""
                + w.className()
                + "\"";
    if (candidates.isEmpty()) {
      return "needs "
          + kind
          + ", but no device is published for node \""
          + node.metadata().name()
          + "\"";
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    Map<String, String> examples = new TreeMap<>();
    int fit = 0;
    int matching = 0;
    for (int i = 0; i < candidates.size(); i++) {
      Candidate c = candidates.get(i);
      Wanted.Selectable s = selection.selectable(w, i);
      String why;
      String example = "";
      if (s == Wanted.Selectable.CLASS_SELECTORS) {
        why =
            "not selected by device class \""
                + w.className()
                + "\" ("
                + Selection.expressions(w.classSelectors)
                + ")";
      } else if (s == Wanted.Selectable.REQUEST_SELECTORS) {
        why =
            "not selected by the request's selectors ("
                + Selection.expressions(w.requestSelectors)
                + ")";
      } else if (s == Wanted.Selectable.NOT_ON_NODE) {
        why = "not usable on this node";
      } else {
        Capacities.Fit capacityFit = placements.capacityFit(w, c, false);
        if (w.all && !capacityFit.fits()) {
          // "All" means all devices that can take the request's capacity.
          counts.merge("without the requested capacity", 1, Integer::sum);
          continue;
        }
        matching++;
        Optional<DeviceTaint> taint = Placements.untoleratedTaint(w, c.device);
        boolean draws = !c.device.consumesCounters().isEmpty() && !state.inUse(c.key);
        String groupsProblem = draws ? placements.groupsFit(c, false) : "";
        String counters = draws ? placements.countersFit(c, false) : "";
        if (!w.adminAccess && state.exclusivelyAllocated().contains(c.key)) {
          why = "in use by another claim";
        } else if (taint.isPresent()) {
          why = "tainted and not tolerated";
          DeviceTaint t = taint.get();
          example =
              c.key
                  + " has taint "
                  + t.key()
                  + (t.value().isEmpty() ? "" : "=" + t.value())
                  + ":"
                  + t.effect().apiName();
        } else if (!capacityFit.fits()) {
          why = "without enough capacity";
          example = c.key + " " + capacityFit.reason();
        } else if (!groupsProblem.isEmpty()) {
          why = "with incompatible compatibility groups";
          example = c.key + ": " + groupsProblem;
        } else if (!counters.isEmpty()) {
          why = "without enough shared counters";
          example = c.key + ": " + counters;
        } else {
          fit++;
          continue;
        }
      }
      counts.merge(why, 1, Integer::sum);
      if (!example.isEmpty()) {
        examples.putIfAbsent(why, example);
      }
    }
    long needed = w.all ? Math.max(matching, 1) : w.count;
    if (fit >= needed && !(w.all && matching == 0)) {
      return "";
    }
    StringBuilder sb = new StringBuilder("needs ").append(kind).append(", but ");
    if (w.all && matching == 0) {
      sb.append("none of the ");
    } else {
      sb.append(fit == 0 ? "none" : "only " + fit).append(" of the ");
    }
    sb.append(candidates.size())
        .append(candidates.size() == 1 ? " device" : " devices")
        .append(" usable on node \"")
        .append(node.metadata().name())
        .append("\" ")
        .append(w.all && matching == 0 ? "match" : "fit" + (fit == 1 ? "s" : ""));
    String sep = ": ";
    for (Map.Entry<String, Integer> e : counts.entrySet()) {
      sb.append(sep).append(e.getValue()).append(' ').append(e.getKey());
      sep = ", ";
    }
    for (String example : examples.values()) {
      sb.append("; ").append(example);
    }
    for (String error : w.celErrors) {
      sb.append("; ").append(error);
    }
    return sb.toString();
  }

  private String poolNotes() {
    return scan.notes().isEmpty() ? "" : " (" + String.join("; ", scan.notes()) + ")";
  }
}
