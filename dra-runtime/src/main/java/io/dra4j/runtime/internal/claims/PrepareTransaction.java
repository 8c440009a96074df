package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.kube.internal.Failures;
import io.dra4j.runtime.internal.CrashPoints;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Prepares one claim under the driver's lock and the claim's own, crash-safe: a completed record of
 * this boot answers a repeated prepare without the provider; an interrupted or outdated record is
 * rolled back first; then the overlap guard reserves the devices, a PrepareStarted record is
 * written, the provider prepares, the claim's files are written and a PrepareCompleted record is
 * written. A step that fails undoes the steps before it. The claim status comes later, outside the
 * driver's lock ({@link Outcome#status}).
 */
final class PrepareTransaction {

  /**
   * What preparing one claim gave, whether its checkpoint record answered it, and the record whose
   * statuses are still to be applied (the result holds only once they are).
   */
  record Outcome(ClaimPrepareResult result, boolean fromCheckpoint, Optional<Pending> status) {
    static Outcome failed(String error) {
      return new Outcome(ClaimPrepareResult.failed(error), false, Optional.empty());
    }

    static Outcome prepared(ResolvedClaim claim, ClaimCheckpoint rec, boolean fromCheckpoint) {
      return new Outcome(
          ClaimPrepareResult.ok(rec.devices()),
          fromCheckpoint,
          Optional.of(new Pending(claim, rec)));
    }
  }

  /** A prepared claim whose device statuses, recorded in its checkpoint, are still to apply. */
  record Pending(ResolvedClaim claim, ClaimCheckpoint record) {}

  private final ClaimEvents events;
  private final Records records;
  private final ProviderCalls provider;
  private final ClaimFiles files;
  private final DeviceIndex index;
  private final ClaimRelease release;

  PrepareTransaction(
      ClaimEvents events,
      Records records,
      ProviderCalls provider,
      ClaimFiles files,
      DeviceIndex index,
      ClaimRelease release) {
    this.events = events;
    this.records = records;
    this.provider = provider;
    this.files = files;
    this.index = index;
    this.release = release;
  }

  /** Prepares one claim up to its status, serving the kubelet's {@code call}; never throws. */
  Outcome prepare(ResolvedClaim r, NodeCall call) {
    ClaimRef ref = r.ref();
    try {
      Optional<ClaimCheckpoint> existing = records.read(ref.uid());
      if (existing.isPresent() && !release.rollBackIfStale(existing.get())) {
        return Outcome.prepared(r, existing.get(), true);
      }
      if (r.devices().isEmpty()) {
        events
            .log()
            .info(
                "driver {} claim {}: no device of this driver is allocated", events.driver(), ref);
        return new Outcome(ClaimPrepareResult.ok(List.of()), false, Optional.empty());
      }
      if (call.isCancelled()) {
        // Earlier claims of the call took its time: the kubelet no longer waits for this one.
        throw new ClaimException(
            "claim "
                + ref
                + ": the kubelet gave up on the call"
                + call.deadline().map(d -> " (deadline " + d + ")").orElse("")
                + " before this claim's prepare began; it prepares the claim again in a later call");
      }
      Optional<String> conflict = index.reserve(ref, r.devices());
      if (conflict.isPresent()) {
        throw new ClaimException("claim " + ref + ": " + conflict.get());
      }
      return Outcome.prepared(r, prepareFresh(r, call), false);
    } catch (ClaimException e) {
      return Outcome.failed(e.getMessage());
    } catch (IOException e) {
      return Outcome.failed("claim " + ref + ": " + Failures.describe(e));
    } catch (RuntimeException e) {
      events
          .log()
          .error("driver {} claim {}: prepare failed unexpectedly", events.driver(), ref, e);
      return Outcome.failed(
          "claim " + ref + ": internal error (see the driver's log): " + Failures.describe(e));
    }
  }

  /** From reservation to the PrepareCompleted record; undoes its own work when a step fails. */
  private ClaimCheckpoint prepareFresh(ResolvedClaim r, NodeCall call)
      throws ClaimException, IOException {
    ClaimRef ref = r.ref();
    ClaimCheckpoint started;
    try {
      started =
          ClaimCheckpoint.started(
              ref,
              events.driver(),
              r.devices().stream().map(CheckpointDevice::allocated).toList(),
              records.bootId(),
              records.now());
      records.write(started);
    } catch (IOException | RuntimeException e) {
      index.release(ref.uid());
      throw e;
    }
    CrashPoints.reach(CrashPoints.AFTER_STARTED);
    List<PreparedDevice> devices;
    try {
      devices = ResultCheck.inAllocationOrder(r.devices(), provider.prepare(r, call));
    } catch (DeviceException | RuntimeException e) {
      String msg =
          e instanceof DeviceException
              ? ref.unprefixed(String.valueOf(e.getMessage()))
              : "provider " + provider.name() + " failed: " + Failures.describe(e);
      if (e instanceof RuntimeException) {
        events.log().error("driver {} claim {}: provider.prepare threw", events.driver(), ref, e);
      }
      throw undo(started, "claim " + ref + ": " + msg, e);
    }
    CrashPoints.reach(CrashPoints.AFTER_PROVIDER);
    List<List<String>> cdiDeviceIds;
    try {
      cdiDeviceIds = files.write(r, devices);
    } catch (DeviceException e) {
      throw undo(started, "claim " + ref + ": " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw undo(
          started, "claim " + ref + ": writing the CDI spec failed: " + Failures.describe(e), e);
    }
    CrashPoints.reach(CrashPoints.AFTER_CDI);
    List<CheckpointDevice> done = new ArrayList<>(devices.size());
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice p = devices.get(i);
      done.add(
          CheckpointDevice.prepared(
              p, cdiDeviceIds.get(i), p.status().map(DeviceStatuses::encode)));
    }
    ClaimCheckpoint completed = started.completed(done, records.bootId(), records.now());
    try {
      records.write(completed);
    } catch (IOException | RuntimeException e) {
      throw undo(
          started, "claim " + ref + ": writing the checkpoint failed: " + Failures.describe(e), e);
    }
    CrashPoints.reach(CrashPoints.AFTER_COMPLETED);
    return completed;
  }

  /**
   * Undoes a failed prepare. When the provider cannot undo, the PrepareStarted record and the
   * reservation stay, so the rollback is tried again later.
   */
  private ClaimException undo(ClaimCheckpoint started, String message, Exception cause) {
    ClaimException failure = new ClaimException(message, cause);
    try {
      release.rollBack(started, "its prepare failed", false);
    } catch (ClaimException | IOException e) {
      failure.addSuppressed(e);
      return new ClaimException(
          message
              + " (and rolling it back failed: "
              + started.claim().unprefixed(Failures.describe(e))
              + ")",
          cause);
    }
    return failure;
  }
}
