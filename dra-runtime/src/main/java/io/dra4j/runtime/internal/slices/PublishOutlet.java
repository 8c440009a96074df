package io.dra4j.runtime.internal.slices;

import io.dra4j.api.provider.Pool;
import io.dra4j.kube.KubeException;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.errors.DroppedFieldsException;
import io.dra4j.runtime.report.PublisherStats;
import io.dra4j.validation.PoolValidation;
import io.dra4j.validation.Violation;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where everything a {@link SlicePublisher} has to say goes: its counters, its {@link
 * PublishListener}, its {@link SyncObserver} and its error handler, which hears every problem as a
 * {@linkplain DriverError.Severity#RECOVERABLE recoverable} error. Counters are read from any
 * thread; the rest is called on the worker thread.
 */
final class PublishOutlet {
  // The publisher's one log category, whichever of its parts logs.
  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  private final String driver;
  // Whether the publisher runs for a node (see whatToDo).
  private final boolean node;
  private final PublishListener listener;
  private final SyncObserver syncObserver;
  private final DriverErrorHandler errorHandler;

  private final AtomicLong creates = new AtomicLong();
  private final AtomicLong updates = new AtomicLong();
  private final AtomicLong deletes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong validationFailures = new AtomicLong();
  private final AtomicLong droppedFieldReports = new AtomicLong();
  private final AtomicLong syncs = new AtomicLong();

  PublishOutlet(SlicePublisher.Builder b) {
    this.driver = b.driver;
    this.node = b.nodeName.isPresent();
    this.listener = b.listener;
    this.syncObserver = b.syncObserver;
    this.errorHandler = b.errorHandler;
  }

  PublisherStats stats() {
    return new PublisherStats(
        creates.get(),
        updates.get(),
        deletes.get(),
        failures.get(),
        conflicts.get(),
        validationFailures.get(),
        droppedFieldReports.get(),
        syncs.get());
  }

  void created() {
    creates.incrementAndGet();
  }

  void updated() {
    updates.incrementAndGet();
  }

  void deleted() {
    deletes.incrementAndGet();
  }

  void syncStarted() {
    syncs.incrementAndGet();
  }

  /** A sync of {@code pool} took {@code nanos} and brought it to {@code slices} slices. */
  void synced(String pool, int slices, long nanos) {
    syncObserver.synced(nanos, false);
    notifyListener(l -> l.onSynced(pool, slices));
  }

  /** A sync took {@code nanos} and failed; not counted when the publisher was closing. */
  void syncFailed(long nanos) {
    syncObserver.synced(nanos, true);
  }

  /** A sync the API server failed; it is retried. */
  void failed(KubeException e) {
    failures.incrementAndGet();
    if (e.isConflict()) {
      conflicts.incrementAndGet();
    }
  }

  /** Attempt {@code attempt} to sync {@code pool} failed; the next comes in {@code delay}. */
  void retrying(String pool, int attempt, Duration delay, Exception e) {
    LOG.debug(
        "slice publisher {}: pool \"{}\": attempt {} failed, next in {} ms",
        driver,
        pool,
        attempt,
        delay.toMillis());
    notifyListener(l -> l.onError(pool, e));
    DriverErrorHandler.report(
        errorHandler,
        DriverError.recoverable(
            DriverError.Source.SLICES,
            "slice publisher: pool \""
                + pool
                + "\": "
                + e.getMessage()
                + "; retrying with backoff"
                + whatToDo(e, node),
            e));
  }

  /** An invalid pool, not published; called once per distinct desired state of the pool. */
  void invalidPool(PoolValidation v) {
    validationFailures.incrementAndGet();
    notifyListener(l -> l.onInvalidPool(v));
    reportError(
        "slice publisher: pool \""
            + v.pool().name()
            + "\" of driver "
            + driver
            + " is invalid and was not published (its existing slices are left as they are):\n"
            + v.errorReport());
  }

  /** A pool published with warnings; called once per distinct desired state of the pool. */
  void publishedWithWarnings(Pool p, PoolValidation v) {
    reportError(
        "slice publisher "
            + driver
            + ": pool \""
            + p.name()
            + "\" is published, but:\n"
            + String.join("\n", v.warnings().stream().map(Violation::toString).toList()));
  }

  /** The API server stored slice {@code index} of {@code pool} without some of its fields. */
  void droppedFields(String pool, int index, DroppedFields d) {
    droppedFieldReports.incrementAndGet();
    notifyListener(l -> l.onDroppedFields(pool, index, d));
    DroppedFieldsException e = d.exception(pool, index);
    DriverErrorHandler.report(
        errorHandler,
        DriverError.recoverable(
            DriverError.Source.SLICES, "slice publisher: " + e.getMessage(), e));
  }

  private void reportError(String message) {
    DriverErrorHandler.report(
        errorHandler, DriverError.recoverable(DriverError.Source.SLICES, message));
  }

  private void notifyListener(Consumer<PublishListener> call) {
    try {
      call.accept(listener);
    } catch (RuntimeException e) {
      LOG.warn("slice publisher {}: the listener failed", driver, e);
    }
  }

  /**
   * For a refusal the platform engineer fixes, what to check; otherwise nothing.
   *
   * @param node whether the publisher runs for a node (a node driver's chart limits it to its node)
   */
  static String whatToDo(Exception e, boolean node) {
    if (!(e instanceof KubeException k)) {
      return "";
    }
    return k.whatToCheck(
        node
            ? "write this node's ResourceSlices (the ValidatingAdmissionPolicy of the chart limits a"
                + " driver to its own node)"
            : "write ResourceSlices (get, list, watch, create, update and delete, cluster-wide)");
  }

  /** The listener used when none is set: errors go to the error handler, syncs to debug. */
  static final class LoggingListener implements PublishListener {
    @Override
    public void onSynced(String pool, int slices) {
      LOG.debug("slice publisher: pool \"{}\" is in sync ({} slices)", pool, slices);
    }
  }
}
