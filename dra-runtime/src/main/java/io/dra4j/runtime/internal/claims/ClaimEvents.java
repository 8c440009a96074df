package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.report.ClaimStats;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * What the claim pipeline tells the outside: its log (with the claim in the log context), the
 * counters of {@link ClaimStats}, the {@link ClaimListener} and the error handler for the errors no
 * kubelet call returns. The one outlet of each, so every step reports the same way.
 */
final class ClaimEvents {

  /** A log context that {@link #close()} removes again. */
  interface LogContext extends AutoCloseable {
    @Override
    void close();
  }

  private final String driver;
  private final Logger log;
  private final ClaimListener listener;
  private final DriverErrorHandler errorHandler;

  private final AtomicLong prepared = new AtomicLong();
  private final AtomicLong repeated = new AtomicLong();
  private final AtomicLong prepareFailures = new AtomicLong();
  private final AtomicLong unprepared = new AtomicLong();
  private final AtomicLong unprepareFailures = new AtomicLong();
  private final AtomicLong rolledBack = new AtomicLong();
  private final AtomicLong inFlight = new AtomicLong();

  ClaimEvents(String driver, Logger log, ClaimListener listener, DriverErrorHandler errorHandler) {
    this.driver = driver;
    this.log = log;
    this.listener = listener;
    this.errorHandler = errorHandler;
  }

  String driver() {
    return driver;
  }

  Logger log() {
    return log;
  }

  /** Puts the driver and the claim into the log context of this thread until closed. */
  LogContext claim(ClaimRef ref) {
    MDC.put("driver", driver);
    MDC.put("claim", ref.namespace() + "/" + ref.name());
    MDC.put("claimUid", ref.uid());
    return () -> {
      MDC.remove("driver");
      MDC.remove("claim");
      MDC.remove("claimUid");
    };
  }

  /** Claims of the kubelet's calls running now: {@code delta} more (or fewer). */
  void inFlight(int delta) {
    inFlight.addAndGet(delta);
  }

  void prepared(ClaimRef ref, Duration took, boolean repeat, List<CheckpointDevice> devices) {
    (repeat ? repeated : prepared).incrementAndGet();
    log.info(
        "driver {} claim {}: prepared{} in {} ms: {}",
        driver,
        ref,
        repeat ? " (from the checkpoint)" : "",
        took.toMillis(),
        devices);
    notify(() -> listener.prepared(ref, took, repeat));
  }

  void prepareFailed(ClaimRef ref, String error, Duration took) {
    prepareFailures.incrementAndGet();
    log.warn("driver {} claim {}: prepare failed: {}", driver, ref, ref.unprefixed(error));
    notify(() -> listener.prepareFailed(ref, error, took));
  }

  void unprepared(ClaimRef ref, Duration took) {
    unprepared.incrementAndGet();
    notify(() -> listener.unprepared(ref, took));
  }

  void unprepareFailed(ClaimRef ref, String error, Duration took) {
    unprepareFailures.incrementAndGet();
    log.warn("driver {} claim {}: unprepare failed: {}", driver, ref, ref.unprefixed(error));
    notify(() -> listener.unprepareFailed(ref, error, took));
  }

  void rolledBack() {
    rolledBack.incrementAndGet();
  }

  void providerCalled(ClaimListener.ProviderCall call, Duration took, boolean failed) {
    notify(() -> listener.providerCalled(call, took, failed));
  }

  void checkpointWritten(Duration took, boolean failed) {
    notify(() -> listener.checkpointWritten(took, failed));
  }

  /** Reports an error no kubelet call returns; all of them are recoverable. */
  void error(String message, Throwable cause) {
    DriverErrorHandler.report(
        errorHandler, DriverError.recoverable(DriverError.Source.CLAIMS, message, cause));
  }

  /** The counters, with {@code claimsHeld} from the overlap guard. */
  ClaimStats stats(IntSupplier claimsHeld) {
    return new ClaimStats(
        prepared.get(),
        repeated.get(),
        prepareFailures.get(),
        unprepared.get(),
        unprepareFailures.get(),
        rolledBack.get(),
        claimsHeld.getAsInt(),
        inFlight.get());
  }

  private void notify(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      error("driver " + driver + ": claim listener failed: " + e, e);
    }
  }
}
