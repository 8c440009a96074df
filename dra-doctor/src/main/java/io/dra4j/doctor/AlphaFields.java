package io.dra4j.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.doctor.DoctorReport.AlphaField;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Fields whose presence in a stored object shows that a DRA feature that is alpha (off by default)
 * in Kubernetes 1.37 is switched on and used: the API server drops them when the gate is off, so a
 * stored one proves the gate is on there. Stages from the 1.37.2 feature-gate list.
 */
final class AlphaFields {
  private AlphaFields() {}

  static final String ALPHA = "alpha";
  static final String BETA_OFF = "beta (off by default)";

  /**
   * Where a feature shows: a path of field names, {@code *} for every array element or map value,
   * and optionally {@code =value} on the last segment for a field that must have that value.
   */
  private record Probe(String feature, String stage, String kind, List<String> path) {
    Probe(String feature, String stage, String kind, String path) {
      this(feature, stage, kind, List.of(path.split("\\.")));
    }
  }

  private static final String SLICE = "ResourceSlice";
  private static final String CLAIM = "ResourceClaim";

  private static final List<Probe> PROBES =
      List.of(
          new Probe("DRAListTypeAttributes", ALPHA, SLICE, "spec.devices.*.attributes.*.ints"),
          new Probe("DRAListTypeAttributes", ALPHA, SLICE, "spec.devices.*.attributes.*.bools"),
          new Probe("DRAListTypeAttributes", ALPHA, SLICE, "spec.devices.*.attributes.*.strings"),
          new Probe("DRAListTypeAttributes", ALPHA, SLICE, "spec.devices.*.attributes.*.versions"),
          new Probe(
              "DRANodeAllocatableResources",
              ALPHA,
              SLICE,
              "spec.devices.*.nodeAllocatableResources"),
          new Probe("DRAOptionalNodeOperations", ALPHA, SLICE, "spec.skipNodeOperations"),
          new Probe("DRAPartitionableDevicesType", ALPHA, SLICE, "spec.partitionTypeAttribute"),
          new Probe(
              "DRADeviceCompatibilityGroups",
              ALPHA,
              SLICE,
              "spec.devices.*.consumesCounters.*.compatibilityGroups"),
          new Probe(
              "DRADerivedAttributes",
              ALPHA,
              CLAIM,
              "spec.devices.requests.*.exactly.derivedAttributes"),
          new Probe(
              "DRADerivedAttributes",
              ALPHA,
              CLAIM,
              "spec.devices.requests.*.firstAvailable.*.derivedAttributes"),
          new Probe(
              "DRAWorkloadResourceClaims",
              BETA_OFF,
              CLAIM,
              "status.reservedFor.*.resource=podgroups"));

  /**
   * Feature gates the doctor warns about when a component's command line switches them on: the
   * alpha DRA gates above, and the scheduler's SchedulerPreQueueingHints (KEP-6132, alpha in 1.37).
   */
  static final Set<String> RISKY_SCHEDULER_GATES =
      Set.of(
          "SchedulerPreQueueingHints",
          "DRAListTypeAttributes",
          "DRANodeAllocatableResources",
          "DRAOptionalNodeOperations",
          "DRAPartitionableDevicesType",
          "DRADeviceCompatibilityGroups",
          "DRADerivedAttributes",
          "DRAWorkloadResourceClaims");

  /** Every probe that matches, at most one entry per object and feature. */
  static List<AlphaField> find(String kind, List<JsonNode> objects) {
    List<AlphaField> out = new ArrayList<>();
    for (JsonNode o : objects) {
      String name = o.path("metadata").path("name").asText("");
      String ns = o.path("metadata").path("namespace").asText("");
      String object = kind + " " + (ns.isEmpty() ? name : ns + "/" + name);
      List<String> seen = new ArrayList<>();
      for (Probe p : PROBES) {
        if (!p.kind().equals(kind) || seen.contains(p.feature())) {
          continue;
        }
        first(o, p.path(), 0, "")
            .ifPresent(
                path -> {
                  seen.add(p.feature());
                  out.add(new AlphaField(p.feature(), p.stage(), object, path));
                });
      }
    }
    return out;
  }

  /** The first concrete path matching {@code path[i..]} under {@code node}. */
  private static Optional<String> first(JsonNode node, List<String> path, int i, String at) {
    if (i == path.size()) {
      return isSet(node) ? Optional.of(at) : Optional.empty();
    }
    String seg = path.get(i);
    if (seg.equals("*")) {
      if (node.isArray()) {
        for (int k = 0; k < node.size(); k++) {
          Optional<String> r = first(node.get(k), path, i + 1, at + "[" + k + "]");
          if (r.isPresent()) {
            return r;
          }
        }
      } else if (node.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          Optional<String> r = first(e.getValue(), path, i + 1, at + "[" + e.getKey() + "]");
          if (r.isPresent()) {
            return r;
          }
        }
      }
      return Optional.empty();
    }
    int eq = seg.indexOf('=');
    String field = eq < 0 ? seg : seg.substring(0, eq);
    JsonNode child = node.path(field);
    String here = at.isEmpty() ? field : at + "." + field;
    if (eq >= 0) {
      return child.isTextual() && child.asText().equals(seg.substring(eq + 1))
          ? Optional.of(here)
          : Optional.empty();
    }
    return first(child, path, i + 1, here);
  }

  private static boolean isSet(JsonNode n) {
    return !n.isMissingNode() && !n.isNull() && !(n.isContainerNode() && n.isEmpty());
  }
}
