package io.dra4j.runtime.internal.kubelet;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's health streams, for both API versions: each stream subscribes to the {@link
 * HealthSource} and sends every snapshot it gets, converted by a version-specific function.
 *
 * <p>Flow control: unsent messages of a stream are merged into one ({@link HealthSnapshot#then}),
 * each device with its latest state, so a slow kubelet costs at most one device list per stream and
 * loses no device.
 */
final class HealthStreams {

  private static final Logger LOG = LoggerFactory.getLogger(HealthStreams.class);

  private final String driverName;
  private final HealthSource source;
  private final Set<Stream<?>> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  HealthStreams(String driverName, HealthSource source) {
    this.driverName = driverName;
    this.source = source;
  }

  <M> void open(String method, StreamObserver<M> observer, Function<HealthSnapshot, M> convert) {
    ServerCallStreamObserver<M> call = (ServerCallStreamObserver<M>) observer;
    Stream<M> stream = new Stream<>(RequestIds.next(), method, call, convert);
    call.setOnCancelHandler(stream::cancelled);
    call.setOnReadyHandler(stream::drain);
    open.add(stream);
    LOG.info("#{} {} driver={}: health stream opened", stream.id, method, driverName);
    if (closed) {
      stream.end();
      return;
    }
    try {
      stream.attach(source.subscribe(stream::offer));
    } catch (RuntimeException e) {
      LOG.error(
          "#{} {} driver={}: health source refused the stream", stream.id, method, driverName, e);
      stream.fail(Status.UNAVAILABLE.withDescription("health source failed: " + e.getMessage()));
    }
  }

  /** Ends every open stream (server shutdown); later streams end at once. */
  void closeAll() {
    closed = true;
    for (Stream<?> s : open) {
      s.end();
    }
  }

  private final class Stream<M> {
    final long id;
    final String method;
    final ServerCallStreamObserver<M> call;
    final Function<HealthSnapshot, M> convert;
    final AtomicReference<HealthSnapshot> pending = new AtomicReference<>();
    final AtomicReference<HealthSource.Subscription> subscription = new AtomicReference<>();
    final AtomicBoolean unsubscribed = new AtomicBoolean();
    boolean done; // guarded by this
    long sent; // guarded by this

    Stream(
        long id,
        String method,
        ServerCallStreamObserver<M> call,
        Function<HealthSnapshot, M> convert) {
      this.id = id;
      this.method = method;
      this.call = call;
      this.convert = convert;
    }

    void attach(HealthSource.Subscription s) {
      subscription.set(s);
      boolean finished;
      synchronized (this) {
        finished = done;
      }
      if (finished) {
        unsubscribe();
      }
    }

    void offer(HealthSnapshot snapshot) {
      pending.accumulateAndGet(
          snapshot, (unsent, next) -> unsent == null ? next : unsent.then(next));
      drain();
    }

    synchronized void drain() {
      while (!done && call.isReady()) {
        HealthSnapshot next = pending.getAndSet(null);
        if (next == null) {
          return;
        }
        try {
          call.onNext(convert.apply(next));
          sent++;
          LOG.debug(
              "#{} {} driver={}: sent {} devices", id, method, driverName, next.devices().size());
        } catch (RuntimeException e) {
          LOG.warn(
              "#{} {} driver={}: sending health failed: {}", id, method, driverName, e.toString());
          done = true;
        }
      }
    }

    void cancelled() {
      synchronized (this) {
        done = true;
      }
      unsubscribe();
      LOG.info(
          "#{} {} driver={}: health stream closed by the kubelet after {} messages",
          id,
          method,
          driverName,
          sent);
    }

    void end() {
      synchronized (this) {
        if (done) {
          return;
        }
        done = true;
        try {
          call.onCompleted();
        } catch (RuntimeException e) {
          LOG.debug("#{} {}: completing the stream failed: {}", id, method, e.toString());
        }
      }
      unsubscribe();
      LOG.info("#{} {} driver={}: health stream ended by the server", id, method, driverName);
    }

    void fail(Status status) {
      synchronized (this) {
        if (done) {
          return;
        }
        done = true;
        call.onError(status.asRuntimeException());
      }
      unsubscribe();
    }

    void unsubscribe() {
      open.remove(this);
      HealthSource.Subscription s = subscription.get();
      if (s != null && unsubscribed.compareAndSet(false, true)) {
        try {
          s.close();
        } catch (RuntimeException e) {
          LOG.warn("#{} {}: unsubscribing failed: {}", id, method, e.toString());
        }
      }
    }
  }
}
