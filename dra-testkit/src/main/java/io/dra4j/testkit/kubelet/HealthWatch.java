package io.dra4j.testkit.kubelet;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * An open health stream ({@code NodeWatchResources}). Reports queue up until read; {@link #close()}
 * cancels the stream, as the kubelet does when it drops a plugin. Every message also goes into the
 * kubelet's health cache ({@link KubeletHealthCache}), read with {@link #kubeletHealth}, which is
 * cleared when the stream ends, as the kubelet's DRA manager does.
 */
public final class HealthWatch implements AutoCloseable {

  private final HealthVersion version;
  private final LinkedBlockingQueue<HealthReport> reports = new LinkedBlockingQueue<>();
  private final CompletableFuture<Status> end = new CompletableFuture<>();
  private final Clock clock;
  private final KubeletHealthCache cache = new KubeletHealthCache();
  private volatile ClientCallStreamObserver<?> call;

  HealthWatch(HealthVersion version, Clock clock) {
    this.version = version;
    this.clock = clock;
  }

  /**
   * What the kubelet shows now for the device in a pod's {@code allocatedResourcesStatus}: unknown
   * when it was not reported within its timeout, or the stream ended.
   */
  public KubeletHealthCache.ResourceHealth kubeletHealth(String pool, String device) {
    return cache.health(pool, device, clock.instant());
  }

  /** The stream's version. */
  public HealthVersion version() {
    return version;
  }

  <Q, R> ClientResponseObserver<Q, R> observer(Function<R, HealthReport> convert) {
    return new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<Q> requestStream) {
        call = requestStream;
      }

      @Override
      public void onNext(R value) {
        HealthReport r = convert.apply(value);
        cache.apply(r.devices(), clock.instant());
        reports.add(r);
      }

      @Override
      public void onError(Throwable t) {
        cache.clear();
        end.complete(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        cache.clear();
        end.complete(Status.OK);
      }
    };
  }

  /** The next report, waiting up to {@code timeout}; empty on timeout or once the stream ended. */
  public Optional<HealthReport> next(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long remaining = deadline - System.nanoTime();
      // Short slices, so that a stream that ends is noticed without waiting out the timeout.
      HealthReport r =
          reports.poll(Math.max(0, Math.min(remaining, 50_000_000L)), TimeUnit.NANOSECONDS);
      if (r != null) {
        return Optional.of(r);
      }
      if ((end.isDone() && reports.isEmpty()) || deadline - System.nanoTime() <= 0) {
        return Optional.empty();
      }
    }
  }

  /**
   * The next report.
   *
   * @throws IllegalStateException when none arrives within {@code timeout} or the stream ended
   */
  public HealthReport awaitNext(Duration timeout) throws InterruptedException {
    return next(timeout)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    version.service()
                        + ": no health report within "
                        + timeout
                        + termination().map(s -> "; stream ended with " + s).orElse("")));
  }

  /** How the stream ended, if it did. */
  public Optional<Status> termination() {
    return Optional.ofNullable(end.getNow(null));
  }

  /**
   * Waits for the stream to end.
   *
   * @throws IllegalStateException when it is still open after {@code timeout}
   */
  public Status awaitTermination(Duration timeout) throws InterruptedException {
    try {
      return end.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(version.service() + ": stream still open after " + timeout);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public void close() {
    ClientCallStreamObserver<?> c = call;
    if (c != null && !end.isDone()) {
      c.cancel("health watch closed", null);
    }
    cache.clear();
  }
}
