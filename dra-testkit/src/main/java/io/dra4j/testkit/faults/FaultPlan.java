package io.dra4j.testkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;

/**
 * The schedule a {@link FaultProxy} follows: per-request odds for each {@link Fault}, outages at
 * fixed times after {@link #start()}, all drawn from one seeded random source so a run can be told
 * apart from another by its seed. One plan may drive several proxies (several drivers): their
 * outages then line up, as when one API server restarts.
 *
 * <p>Nothing is injected before {@link #start()} (a test's warm-up and baseline), and {@link
 * #stop()} ends every fault at once (a soak's quiet period before its final checks).
 */
public final class FaultPlan {
  private final long seed;
  private final Map<Fault, Double> rates;
  private final List<Outage> outages;
  private final Duration slowMin;
  private final Duration slowMax;
  private final Duration watchDropMin;
  private final Duration watchDropMax;
  private final Random random;
  private volatile long startNanos;
  private volatile boolean started;
  private volatile boolean stopped;

  /** An outage {@code after} the plan's start, lasting {@code length}. */
  public record Outage(Duration after, Duration length) {
    public Outage {
      Objects.requireNonNull(after, "after");
      Objects.requireNonNull(length, "length");
    }
  }

  private FaultPlan(Builder b) {
    this.seed = b.seed;
    this.rates = new EnumMap<>(b.rates);
    this.outages = List.copyOf(b.outages);
    this.slowMin = b.slowMin;
    this.slowMax = b.slowMax;
    this.watchDropMin = b.watchDropMin;
    this.watchDropMax = b.watchDropMax;
    this.random = new Random(b.seed);
  }

  /** A plan without faults: add rates and outages. */
  public static Builder builder(long seed) {
    return new Builder(seed);
  }

  /** Starts injecting; outages are timed from now. A second call changes nothing. */
  public synchronized FaultPlan start() {
    if (!started) {
      startNanos = System.nanoTime();
      started = true;
    }
    return this;
  }

  /** No more faults from now on; an outage in progress ends. */
  public void stop() {
    stopped = true;
  }

  public boolean isStopped() {
    return stopped;
  }

  public long seed() {
    return seed;
  }

  /** True while an outage is scheduled now. */
  public boolean inOutage() {
    if (!started || stopped) {
      return false;
    }
    long now = System.nanoTime() - startNanos;
    for (Outage o : outages) {
      long from = o.after().toNanos();
      if (now >= from && now < from + o.length().toNanos()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The fault for one request, if any.
   *
   * @param method the HTTP method
   * @param watch whether the request opens a watch
   */
  public Optional<Fault> draw(String method, boolean watch) {
    if (!started || stopped) {
      return Optional.empty();
    }
    boolean write = method.equals("PUT") || method.equals("PATCH") || method.equals("DELETE");
    double roll;
    synchronized (random) {
      roll = random.nextDouble();
    }
    double acc = 0;
    for (Map.Entry<Fault, Double> e : rates.entrySet()) {
      Fault f = e.getKey();
      if ((f == Fault.CONFLICT && !write) || (f == Fault.WATCH_DROP && !watch)) {
        continue;
      }
      acc += e.getValue();
      if (roll < acc) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** How long a {@link Fault#SLOW} request waits before it is forwarded. */
  public Duration slowDelay() {
    return between(slowMin, slowMax);
  }

  /** How long a watch marked {@link Fault#WATCH_DROP} streams before it is cut. */
  public Duration watchDropDelay() {
    return between(watchDropMin, watchDropMax);
  }

  private Duration between(Duration min, Duration max) {
    long span = max.toMillis() - min.toMillis();
    long extra;
    synchronized (random) {
      extra = span <= 0 ? 0 : (long) (random.nextDouble() * span);
    }
    return min.plusMillis(extra);
  }

  @Override
  public String toString() {
    return "fault plan (seed " + seed + "): rates " + rates + ", outages " + outages;
  }

  /** Builds a {@link FaultPlan}. */
  public static final class Builder {
    private final long seed;
    private final Map<Fault, Double> rates = new EnumMap<>(Fault.class);
    private final List<Outage> outages = new ArrayList<>();
    private Duration slowMin = Duration.ofSeconds(1);
    private Duration slowMax = Duration.ofSeconds(3);
    private Duration watchDropMin = Duration.ofMillis(500);
    private Duration watchDropMax = Duration.ofSeconds(5);

    private Builder(long seed) {
      this.seed = seed;
    }

    /**
     * The odds (0 to 1) that a request gets {@code fault}. {@link Fault#CONFLICT} applies to writes
     * only, {@link Fault#WATCH_DROP} to watches only; {@link Fault#OUTAGE} is scheduled with {@link
     * #outage} instead.
     */
    public Builder rate(Fault fault, double odds) {
      if (fault == Fault.OUTAGE) {
        throw new IllegalArgumentException("schedule outages with outage(after, length)");
      }
      if (odds < 0 || odds > 1) {
        throw new IllegalArgumentException("odds must be between 0 and 1, not " + odds);
      }
      rates.put(fault, odds);
      return this;
    }

    /** The server goes away {@code after} the start, for {@code length}. */
    public Builder outage(Duration after, Duration length) {
      outages.add(new Outage(after, length));
      return this;
    }

    /** The pause of a slow request (default 1 to 3 s). */
    public Builder slowDelay(Duration min, Duration max) {
      slowMin = min;
      slowMax = max;
      return this;
    }

    /** How long a dropped watch streams first (default 0.5 to 5 s). */
    public Builder watchDropDelay(Duration min, Duration max) {
      watchDropMin = min;
      watchDropMax = max;
      return this;
    }

    public FaultPlan build() {
      double sum = rates.values().stream().mapToDouble(Double::doubleValue).sum();
      if (sum > 1) {
        throw new IllegalArgumentException("the fault odds add up to " + sum + ", more than 1");
      }
      return new FaultPlan(this);
    }
  }
}
