package io.dra4j.doctor;

import io.dra4j.api.device.TaintEffect;
import io.dra4j.doctor.Cluster.PublishedDevice;
import io.dra4j.doctor.Cluster.SourcedTaint;
import io.dra4j.doctor.DoctorReport.DryRun;
import io.dra4j.doctor.DoctorReport.ExtendedClaim;
import io.dra4j.doctor.DoctorReport.PendingClaim;
import io.dra4j.doctor.DoctorReport.PodClaimStatus;
import io.dra4j.doctor.DoctorReport.Rule;
import io.dra4j.doctor.DoctorReport.TaintedAllocation;
import io.dra4j.doctor.DoctorReport.TaintedDevice;
import io.dra4j.doctor.Finding.Severity;
import io.dra4j.kube.Condition;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.DeviceTaintRule;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sections 5 and 6: the claims behind extended resources, and device taints. */
final class ClaimChecks {
  private final Cluster cluster;
  private final Optional<String> scope;
  private final List<Finding> findings;

  ClaimChecks(Cluster cluster, Optional<String> scope, List<Finding> findings) {
    this.cluster = cluster;
    this.scope = scope;
    this.findings = findings;
  }

  /** With a node, only claims allocated for it or used by pods bound to it. */
  private boolean inScope(ResourceClaim c) {
    if (scope.isEmpty()) {
      return true;
    }
    Optional<String> node = Cluster.allocationNode(c);
    if (node.isPresent()) {
      return node.get().equals(scope.get());
    }
    return c.status().reservedFor().stream()
        .flatMap(r -> cluster.pod(c.metadata().namespace(), r.name()).stream())
        .anyMatch(p -> p.spec().nodeName().equals(scope.get()));
  }

  private static String ref(ResourceClaim c) {
    return "ResourceClaim " + c.metadata().namespace() + "/" + c.metadata().name();
  }

  // ---------------------------------------------------------------------------------------------
  // 5. Claims

  DoctorReport.Claims claims() {
    List<ExtendedClaim> extended = new ArrayList<>();
    List<PendingClaim> pending = new ArrayList<>();
    List<TaintedAllocation> tainted = new ArrayList<>();
    for (ResourceClaim c : cluster.claims) {
      if (!inScope(c)) {
        continue;
      }
      boolean ext = Cluster.isExtendedResourceClaim(c);
      Optional<String> node = Cluster.allocationNode(c);
      if (ext) {
        extended.add(extendedClaim(c, node));
      }
      if (c.status().allocation().isEmpty()) {
        pending.add(new PendingClaim(c.metadata().namespace(), c.metadata().name(), ext));
        findings.add(
            Finding.of(ext ? Severity.WARNING : Severity.INFO, "claims.pending")
                .object(ref(c))
                .message(
                    ext
                        ? "the scheduler's claim "
                            + c.metadata().namespace()
                            + "/"
                            + c.metadata().name()
                            + " for extended resources has no allocation: a scheduling attempt"
                            + " stopped half-way; the scheduler deletes and recreates it on its"
                            + " next attempt, and a claim that stays means the pod cannot be"
                            + " placed"
                        : "claim "
                            + c.metadata().namespace()
                            + "/"
                            + c.metadata().name()
                            + " is not allocated yet (it is allocated when a pod using it is"
                            + " scheduled)"));
        continue;
      }
      for (DeviceRequestAllocationResult r : c.status().allocation().get().devices().results()) {
        PublishedDevice d =
            cluster.devicesByKey.get(PublishedDevice.key(r.driver(), r.pool(), r.device()));
        if (d == null) {
          continue;
        }
        for (SourcedTaint t : d.taints()) {
          if (t.taint().effect() != TaintEffect.NO_EXECUTE) {
            continue;
          }
          boolean tolerated = r.tolerations().stream().anyMatch(tol -> tol.tolerates(t.taint()));
          String device = d.key();
          tainted.add(
              new TaintedAllocation(
                  c.metadata().namespace(),
                  c.metadata().name(),
                  node,
                  device,
                  t.describe(),
                  t.source(),
                  tolerated));
          Finding.Builder f =
              Finding.of(tolerated ? Severity.INFO : Severity.WARNING, "claims.on-noexecute-device")
                  .object(ref(c));
          node.ifPresent(f::node);
          findings.add(
              f.message(
                  "claim "
                      + c.metadata().namespace()
                      + "/"
                      + c.metadata().name()
                      + " holds device "
                      + device
                      + ", now tainted "
                      + t.describe()
                      + " by "
                      + t.source()
                      + (tolerated
                          ? ", which its allocation tolerates"
                          : ": the device-taint eviction controller evicts the pods using it;"
                              + " expect them to be rescheduled on other devices")));
        }
      }
    }
    List<PodClaimStatus> pods = new ArrayList<>();
    for (Pod p : cluster.livePods) {
      Optional<Pod.ExtendedResourceClaimStatus> st = p.status().extendedResourceClaimStatus();
      if (st.isEmpty() || (scope.isPresent() && !scope.get().equals(p.spec().nodeName()))) {
        continue;
      }
      String claim = st.get().resourceClaimName();
      boolean exists = cluster.claim(p.metadata().namespace(), claim).isPresent();
      pods.add(
          new PodClaimStatus(
              p.metadata().namespace(),
              p.metadata().name(),
              Optional.of(p.spec().nodeName()).filter(n -> !n.isEmpty()),
              claim,
              exists,
              st.get().requestMappings().stream()
                  .map(m -> m.containerName() + ": " + m.resourceName() + " -> " + m.requestName())
                  .toList()));
      if (!exists) {
        Finding.Builder f =
            Finding.of(Severity.ERROR, "claims.missing-claim").object("Pod " + Cluster.podKey(p));
        if (!p.spec().nodeName().isEmpty()) {
          f.node(p.spec().nodeName());
        }
        findings.add(
            f.message(
                "pod "
                    + Cluster.podKey(p)
                    + " names claim "
                    + claim
                    + " in status.extendedResourceClaimStatus, but no such claim exists: the"
                    + " kubelet cannot prepare its devices; delete the pod so that the scheduler"
                    + " places it again with a new claim"));
      }
    }
    return new DoctorReport.Claims(extended, pods, pending, tainted);
  }

  private ExtendedClaim extendedClaim(ResourceClaim c, Optional<String> node) {
    Optional<OwnerReference> owner =
        c.metadata().ownerReferences().stream()
            .filter(o -> o.kind().equals("Pod") && o.controller())
            .findFirst();
    boolean podExists =
        owner.isPresent()
            && cluster
                .pod(c.metadata().namespace(), owner.get().name())
                .filter(
                    p ->
                        owner.get().uid().isEmpty() || p.metadata().uid().equals(owner.get().uid()))
                .isPresent();
    if (!podExists) {
      findings.add(
          Finding.of(Severity.WARNING, "claims.orphaned")
              .object(ref(c))
              .message(
                  "the scheduler's claim "
                      + c.metadata().namespace()
                      + "/"
                      + c.metadata().name()
                      + (owner.isPresent()
                          ? " belongs to pod " + owner.get().name() + ", which no longer exists"
                          : " has no owning pod")
                      + ": its devices stay allocated until the garbage collector removes it;"
                      + " check that kube-controller-manager runs"));
    }
    List<String> devices =
        c.status().allocation().stream()
            .flatMap(a -> a.devices().results().stream())
            .map(r -> PublishedDevice.key(r.driver(), r.pool(), r.device()))
            .toList();
    return new ExtendedClaim(
        c.metadata().namespace(),
        c.metadata().name(),
        owner.map(OwnerReference::name),
        podExists,
        c.status().allocation().isPresent(),
        node,
        devices);
  }

  // ---------------------------------------------------------------------------------------------
  // 6. Taints

  /** "N published devices selected. M allocated devices selected. P pods would be evicted in Q". */
  private static final Pattern DRY_RUN =
      Pattern.compile(
          "(\\d+) published devices? selected\\. (\\d+) allocated devices? selected\\. (\\d+) pods?"
              + " would be evicted in (\\d+) (?:different )?namespaces?");

  DoctorReport.Taints taints() {
    List<Rule> rules = new ArrayList<>();
    for (DeviceTaintRule r : cluster.snapshot.taintRules()) {
      String name = r.metadata().name();
      int selected =
          (int)
              cluster.devices.stream()
                  .filter(d -> Cluster.ruleSelects(r, d.driver(), d.pool(), d.device().name()))
                  .count();
      Optional<Condition> cond =
          r.status().conditions().stream()
              .filter(c -> c.type().equals(DeviceTaintRule.EVICTION_IN_PROGRESS))
              .findFirst();
      Optional<DryRun> dryRun = Optional.empty();
      if (r.spec().taint().effect() == TaintEffect.NONE && cond.isPresent()) {
        Matcher m = DRY_RUN.matcher(cond.get().message());
        if (m.find()) {
          dryRun =
              Optional.of(
                  new DryRun(
                      Integer.parseInt(m.group(1)),
                      Integer.parseInt(m.group(2)),
                      Integer.parseInt(m.group(3)),
                      Integer.parseInt(m.group(4))));
        }
      }
      Optional<DeviceTaintRule.Selector> sel = r.spec().deviceSelector();
      rules.add(
          new Rule(
              name,
              r.spec().taint().effect().apiName(),
              r.spec().taint().key(),
              r.spec().taint().value(),
              sel.flatMap(DeviceTaintRule.Selector::driver),
              sel.flatMap(DeviceTaintRule.Selector::pool),
              sel.flatMap(DeviceTaintRule.Selector::device),
              selected,
              dryRun,
              cond.map(c -> c.status() + " " + c.reason() + ": " + c.message())));
      String what =
          "DeviceTaintRule "
              + name
              + " taints "
              + selected
              + " published device(s) with "
              + new SourcedTaint(r.spec().taint(), "").describe();
      String detail =
          dryRun
              .map(
                  d ->
                      "; dry run: with NoExecute it would evict "
                          + d.pods()
                          + " pod(s) in "
                          + d.namespaces()
                          + " namespace(s), "
                          + d.allocatedDevices()
                          + " of the devices being allocated")
              .orElse(
                  r.spec().taint().effect() == TaintEffect.NONE
                      ? "; the eviction controller has reported no dry run yet"
                      : "");
      findings.add(
          Finding.of(Severity.INFO, "taints.rule")
              .object("DeviceTaintRule " + name)
              .message(what + detail));
    }
    List<TaintedDevice> devices = new ArrayList<>();
    for (PublishedDevice d : cluster.devices) {
      Optional<String> node = d.slice().spec().nodeName();
      if (scope.isPresent() && !node.equals(scope)) {
        continue;
      }
      for (var t : d.device().taints()) {
        devices.add(
            new TaintedDevice(
                node,
                d.driver(),
                d.pool(),
                d.device().name(),
                t.key(),
                t.value(),
                t.effect().apiName()));
        Finding.Builder f = Finding.of(Severity.INFO, "taints.device");
        node.ifPresent(f::node);
        findings.add(
            f.object("ResourceSlice " + d.slice().metadata().name())
                .message(
                    "driver "
                        + d.driver()
                        + " taints device "
                        + d.key()
                        + (node.map(n -> " on node " + n).orElse(""))
                        + " with "
                        + new SourcedTaint(t, "").describe()));
      }
    }
    return new DoctorReport.Taints(cluster.snapshot.taintRuleVersion(), rules, devices);
  }
}
