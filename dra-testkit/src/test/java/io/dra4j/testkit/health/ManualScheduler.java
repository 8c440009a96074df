package io.dra4j.testkit.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduled executor on a manual clock, for deterministic timer tests: nothing runs until the
 * test calls {@link #advance}, which moves the clock from one due task to the next and runs each on
 * the calling thread. {@link #execute} runs at once on the caller.
 */
public final class ManualScheduler extends AbstractExecutorService
    implements ScheduledExecutorService {

  private final ManualClock clock;
  private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
  private long sequence;
  private boolean shutdown;

  public ManualScheduler(Instant start) {
    this.clock = new ManualClock(start);
  }

  /** The clock this scheduler moves. */
  public Clock clock() {
    return clock;
  }

  public Instant now() {
    return clock.instant();
  }

  /** Runs every task due within {@code d}, in time order, then leaves the clock at now + d. */
  public void advance(Duration d) {
    Instant target = clock.instant().plus(d);
    while (true) {
      Task<?> next;
      synchronized (this) {
        next = queue.peek();
        if (next == null || next.due.isAfter(target)) {
          break;
        }
        queue.poll();
        if (next.due.isAfter(clock.instant())) {
          clock.now = next.due;
        }
      }
      next.runOnce();
    }
    synchronized (this) {
      clock.now = target;
    }
  }

  /** Tasks waiting, cancelled ones excluded. */
  public synchronized int pending() {
    return (int) queue.stream().filter(t -> !t.isCancelled()).count();
  }

  /** When the next task is due, if any. */
  public synchronized List<Instant> dueTimes() {
    List<Instant> out = new ArrayList<>();
    queue.stream().filter(t -> !t.isCancelled()).forEach(t -> out.add(t.due));
    out.sort(null);
    return out;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(
        () -> {
          command.run();
          return null;
        },
        delay,
        unit,
        0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return add(callable, delay, unit, 0);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return add(
        () -> {
          command.run();
          return null;
        },
        initialDelay,
        unit,
        unit.toNanos(period));
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return scheduleAtFixedRate(command, initialDelay, delay, unit);
  }

  private synchronized <V> Task<V> add(
      Callable<V> body, long delay, TimeUnit unit, long periodNanos) {
    if (shutdown) {
      throw new java.util.concurrent.RejectedExecutionException("shut down");
    }
    Task<V> t =
        new Task<>(body, clock.instant().plusNanos(unit.toNanos(Math.max(0, delay))), periodNanos);
    queue.add(t);
    return t;
  }

  @Override
  public void execute(Runnable command) {
    command.run();
  }

  @Override
  public synchronized void shutdown() {
    shutdown = true;
  }

  @Override
  public synchronized List<Runnable> shutdownNow() {
    shutdown = true;
    queue.clear();
    return List.of();
  }

  @Override
  public synchronized boolean isShutdown() {
    return shutdown;
  }

  @Override
  public synchronized boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isShutdown();
  }

  private final class Task<V> implements ScheduledFuture<V> {
    final Callable<V> body;
    final long periodNanos;
    final long seq;
    Instant due;
    volatile boolean cancelled;
    volatile boolean done;
    V result;
    Throwable failure;

    Task(Callable<V> body, Instant due, long periodNanos) {
      this.body = body;
      this.due = due;
      this.periodNanos = periodNanos;
      this.seq = sequence++;
    }

    void runOnce() {
      if (cancelled) {
        return;
      }
      try {
        result = body.call();
      } catch (Exception e) {
        failure = e;
        done = true;
        return;
      }
      if (periodNanos > 0 && !cancelled) {
        synchronized (ManualScheduler.this) {
          due = due.plusNanos(periodNanos);
          queue.add(this);
        }
      } else {
        done = true;
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(Duration.between(clock.instant(), due).toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      Task<?> other = (Task<?>) o;
      int c = due.compareTo(other.due);
      return c != 0 ? c : Long.compare(seq, other.seq);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      cancelled = true;
      synchronized (ManualScheduler.this) {
        queue.remove(this);
      }
      return !done;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public V get() throws ExecutionException {
      if (cancelled) {
        throw new CancellationException();
      }
      if (!done) {
        throw new IllegalStateException("not run yet: advance the scheduler");
      }
      if (failure != null) {
        throw new ExecutionException(failure);
      }
      return result;
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws ExecutionException {
      return get();
    }
  }

  private static final class ManualClock extends Clock {
    volatile Instant now;

    ManualClock(Instant start) {
      this.now = start;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
