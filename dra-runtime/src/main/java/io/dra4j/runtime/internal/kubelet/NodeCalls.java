package io.dra4j.runtime.internal.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.claims.NodeCall;
import io.dra4j.runtime.internal.claims.NodeService;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The version-neutral DRA node service: checks the request, calls the {@link NodeService},
 * completes its answer, logs. {@link DraPluginV1Service} converts messages around it.
 */
final class NodeCalls {

  /** Where per-call lines go unless the server is told otherwise. */
  static final Logger DEFAULT_LOG = LoggerFactory.getLogger(NodeCalls.class);

  static final String MDC_REQUEST_ID = "requestId";

  private final Logger log;
  private final String driverName;
  private final NodeService service;
  private final CallObserver observer;
  private final AtomicInteger inFlight = new AtomicInteger();

  NodeCalls(String driverName, NodeService service, Logger log, CallObserver observer) {
    this.log = log;
    this.driverName = driverName;
    this.service = service;
    this.observer = observer;
  }

  @FunctionalInterface
  private interface Body<R> {
    R call(List<ClaimRef> claims, NodeCall call) throws Exception;
  }

  Map<String, ClaimPrepareResult> prepare(String method, List<ClaimRef> requested)
      throws StatusException {
    return run(method, requested, service::prepare, this::completePrepare, r -> !r.isOk());
  }

  Map<String, Optional<String>> unprepare(String method, List<ClaimRef> requested)
      throws StatusException {
    return run(method, requested, service::unprepare, this::completeUnprepare, Optional::isPresent);
  }

  @FunctionalInterface
  private interface Completer<R, T> {
    Map<String, T> complete(long id, String method, List<ClaimRef> claims, R raw);
  }

  private <T> Map<String, T> run(
      String method,
      List<ClaimRef> requested,
      Body<Map<String, T>> body,
      Completer<Map<String, T>, T> completer,
      Predicate<T> failed)
      throws StatusException {
    long id = RequestIds.next();
    long start = System.nanoTime();
    inFlight.incrementAndGet();
    MDC.put(MDC_REQUEST_ID, Long.toString(id));
    try {
      List<ClaimRef> claims = checkClaims(requested);
      Map<String, T> raw = body.call(claims, Call.of(id, Context.current()));
      Map<String, T> result = completer.complete(id, method, claims, raw);
      observer.answered(
          method,
          result.values().stream().anyMatch(failed)
              ? CallObserver.Result.CLAIM_ERROR
              : CallObserver.Result.SUCCESS,
          System.nanoTime() - start);
      // One line per kubelet call (a few per pod start): what an operator greps for first.
      log.info(
          "#{} {} driver={} claims={} done in {} µs",
          id,
          method,
          driverName,
          claims,
          (System.nanoTime() - start) / 1000);
      return result;
    } catch (Throwable t) {
      if (t instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      Status status = StatusMapping.toStatus(t);
      long nanos = System.nanoTime() - start;
      observer.answered(method, CallObserver.Result.CALL_ERROR, nanos);
      long micros = nanos / 1000;
      // The stack trace only for an unexpected failure: a null last argument is no throwable.
      log.error(
          "#{} {} driver={} claims={} failed after {} µs: {}",
          id,
          method,
          driverName,
          requested,
          micros,
          status,
          status.getCode() == Status.Code.INTERNAL ? t : null);
      throw status.asException();
    } finally {
      MDC.remove(MDC_REQUEST_ID);
      inFlight.decrementAndGet();
    }
  }

  /** Prepare and unprepare calls running now. */
  int inFlight() {
    return inFlight.get();
  }

  /** Fails the call on a claim without uid, namespace or name; drops repeated UIDs. */
  private static List<ClaimRef> checkClaims(List<ClaimRef> claims) throws StatusException {
    Map<String, ClaimRef> byUid = new LinkedHashMap<>();
    for (int i = 0; i < claims.size(); i++) {
      ClaimRef c = claims.get(i);
      String missing =
          c.uid().isEmpty()
              ? "uid"
              : c.namespace().isEmpty() ? "namespace" : c.name().isEmpty() ? "name" : null;
      if (missing != null) {
        throw Status.INVALID_ARGUMENT
            .withDescription("claims[" + i + "] (" + c + "): " + missing + " must not be empty")
            .asException();
      }
      byUid.putIfAbsent(c.uid(), c);
    }
    return byUid.size() == claims.size() ? claims : List.copyOf(byUid.values());
  }

  private Map<String, ClaimPrepareResult> completePrepare(
      long id, String method, List<ClaimRef> claims, Map<String, ClaimPrepareResult> raw) {
    Map<String, ClaimPrepareResult> out = new LinkedHashMap<>(claims.size() * 2);
    for (ClaimRef claim : claims) {
      ClaimPrepareResult r = raw == null ? null : raw.get(claim.uid());
      if (r == null) {
        r = ClaimPrepareResult.failed(missingResult(claim));
        log.error("#{} {} driver={} claim {}: {}", id, method, driverName, claim, r.error().get());
      } else if (!r.isOk()) {
        warnFailed(id, method, claim, r.error().get());
      }
      out.put(claim.uid(), r);
    }
    warnUnknown(id, method, claims, raw);
    return out;
  }

  private Map<String, Optional<String>> completeUnprepare(
      long id, String method, List<ClaimRef> claims, Map<String, Optional<String>> raw) {
    Map<String, Optional<String>> out = new LinkedHashMap<>(claims.size() * 2);
    for (ClaimRef claim : claims) {
      Optional<String> r = raw == null ? null : raw.get(claim.uid());
      if (r == null) {
        r = Optional.of(missingResult(claim));
        log.error("#{} {} driver={} claim {}: {}", id, method, driverName, claim, r.get());
      } else if (r.isPresent()) {
        if (r.get().isBlank()) {
          // An empty error string reads as success to the kubelet; keep the failure visible.
          r = Optional.of("unprepare failed (driver " + driverName + " gave no reason)");
        }
        warnFailed(id, method, claim, r.get());
      }
      out.put(claim.uid(), r);
    }
    warnUnknown(id, method, claims, raw);
    return out;
  }

  /** One line per failed claim; the claim is named by the line, so not again by its error. */
  private void warnFailed(long id, String method, ClaimRef claim, String error) {
    log.warn(
        "#{} {} driver={} claim {} failed: {}",
        id,
        method,
        driverName,
        claim,
        claim.unprefixed(error));
  }

  private String missingResult(ClaimRef claim) {
    return "driver " + driverName + " returned no result for ResourceClaim " + claim;
  }

  private void warnUnknown(long id, String method, List<ClaimRef> claims, Map<String, ?> raw) {
    if (raw == null || raw.size() <= claims.size() && containsOnly(claims, raw)) {
      return;
    }
    List<String> unknown = new ArrayList<>();
    for (String uid : raw.keySet()) {
      if (claims.stream().noneMatch(c -> c.uid().equals(uid))) {
        unknown.add(uid);
      }
    }
    if (!unknown.isEmpty()) {
      log.warn(
          "#{} {} driver={}: dropped results for claim UIDs that were not requested: {}",
          id,
          method,
          driverName,
          unknown);
    }
  }

  private static boolean containsOnly(List<ClaimRef> claims, Map<String, ?> raw) {
    int found = 0;
    for (ClaimRef c : claims) {
      if (raw.containsKey(c.uid())) {
        found++;
      }
    }
    return found == raw.size();
  }

  private record Call(long id, Context context, Optional<Instant> deadline) implements NodeCall {

    static Call of(long id, Context context) {
      Deadline d = context.getDeadline();
      return new Call(
          id,
          context,
          d == null
              ? Optional.empty()
              : Optional.of(Instant.now().plusNanos(d.timeRemaining(TimeUnit.NANOSECONDS))));
    }

    @Override
    public long requestId() {
      return id;
    }

    @Override
    public boolean isCancelled() {
      return context.isCancelled();
    }

    @Override
    public void onCancel(Runnable hook) {
      if (context.isCancelled()) {
        hook.run();
      } else {
        // A call's context runs a listener added after it was cancelled at once, so a
        // cancellation between the check and here is not missed.
        context.addListener(c -> hook.run(), Runnable::run);
      }
    }
  }
}
